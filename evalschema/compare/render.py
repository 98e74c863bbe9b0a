"""The comparison document for people: the text the command prints and a self-contained HTML page.

The HTML page loads nothing: its style and its small script (filtering and sorting the flipped cases) are
inline, and every value from the result sets is escaped before it is written.
"""

from __future__ import annotations

import json
import re
from html import escape
from typing import Any

from ..core.display import terminal_line, visible
from .core import fewest_significant as fewest_significant  # re-exported: the power line's arithmetic
from .core import power
from .stats import mcnemar

TEXT_FLIPS = 50  # the text lists this many flipped cases; JSON and HTML list all


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def _signed(value: float, scale: float, digits: int) -> str:
    text = f"{value * scale:+.{digits}f}"
    return text.replace("-", "\u2212")


def _interval(interval: list[float] | None, scale: float, digits: int) -> str:
    if interval is None:
        return "n/a"
    return f"{_signed(interval[0], scale, digits)}\u2026{_signed(interval[1], scale, digits)}"


def _p(value: float) -> str:
    return f"{value:.2g}" if value < 0.01 else f"{value:.2f}"


def confidence(document: dict[str, Any]) -> str:
    return f"{100 * (1 - document['options']['alpha']):g} %"


def verdict_line(document: dict[str, Any]) -> str:
    """The one-line answer: rates, the difference with its interval, McNemar's p and what it means."""
    rate, test, verdict = document["pass_rate"], document["mcnemar"], document["verdict"]
    if rate["difference"] is None:
        return "no pair was scored in both runs: nothing to compare"
    meaning = {
        "regression": "significant regression",
        "improvement": "significant improvement",
        "no_significant_change": "not significant",
        "no_data": "no data",
    }[verdict["outcome"]]
    return (
        f"pass rate {_pct(rate['base']['rate'])} \u2192 {_pct(rate['new']['rate'])} "
        f"({_signed(rate['difference'], 100, 1)} pt, {confidence(document)} CI {_interval(rate['interval'], 100, 1)}), "
        f"McNemar p = {_p(test['p_value'])}: {meaning}"
    )


def grader_line(grader: dict[str, Any], document: dict[str, Any]) -> str:
    if grader["difference"] is None:
        return f"grader {grader['grader_id']}: no pair scored on both sides"
    return (
        f"grader {grader['grader_id']}: mean score {grader['base_mean']:.3f} \u2192 {grader['new_mean']:.3f} "
        f"({_signed(grader['difference'], 1, 3)}, {confidence(document)} CI {_interval(grader['interval'], 1, 3)}, "
        f"{grader['method'].replace('_', ' ')}) over {grader['pairs']} pairs in {grader['test_cases']} test cases"
    )


def power_line(document: dict[str, Any]) -> str:
    """What the comparison could show at all: the smallest pass-rate drop (or rise) that could be significant
    with this many pairs at ``--alpha``, or that none could."""
    pairs, alpha = document["pairs"]["comparable"], document["options"]["alpha"]
    found = document.get("power") or power(pairs, alpha)  # a document written before 1.3.0 has none
    needed = found["fewest_flips"]
    if needed is None:
        best = mcnemar(pairs, 0)[0] if pairs else 1.0
        fewest = found["pairs_needed"]
        return (
            f"power: no change can be significant at alpha {alpha:g} with {pairs} pair(s): even all of them flipping "
            f"one way gives McNemar p = {_p(best)}" + (f"; it takes at least {fewest} pairs" if fewest is not None else "")
        )
    return (
        f"power: with {pairs} pairs, the smallest change that can be significant at alpha {alpha:g} is "
        f"{100 * needed / pairs:.1f} pt ({needed} pairs flipping one way, none the other)"
    )


def render_text(document: dict[str, Any]) -> str:
    pairs, changes = document["pairs"], document["changes"]
    lines = [verdict_line(document)]
    lines.append(
        f"  {pairs['comparable']} pairs compared ({document['mcnemar']['discordant']} discordant); excluded: "
        f"{pairs['excluded_errored']} errored, {pairs['excluded_unscored']} unscored; "
        f"{pairs['only_in_base']} only in base, {pairs['only_in_new']} only in new"
    )
    lines.append("  " + power_line(document))
    lines.append("  changes: " + ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in changes.items()))
    lines += ["  " + grader_line(grader, document) for grader in document["graders"]]
    for side in ("base", "new"):
        stats = document["attempts"][side]
        if stats["multi_attempt_cases"]:
            ks = ", ".join(f"pass@{e['k']} {_pct(e['pass_at_k'])} pass^{e['k']} {_pct(e['pass_hat_k'])}" for e in stats["by_k"][:4])
            lines.append(f"  {side} attempts: flip rate {_pct(stats['flip_rate'])}; {ks}")
    for finding in document["findings"]:
        lines.append(f"  {finding['severity']}  {finding['code']}  {finding['pointer'] or '/'}  {finding['message']}")
    gate = document["verdict"]
    if gate["gate_failed"]:
        lines.append("  gate: fails with --fail-on-regression (" + ", ".join(r.replace("_", " ") for r in gate["gate_reasons"]) + ")")
    flips = document["flips"]
    if flips:
        lines.append(f"flipped ({len(flips)}):")
        for flip in flips[:TEXT_FLIPS]:
            detail = []
            if flip["graders_changed"]:
                detail.append("graders " + ", ".join(flip["graders_changed"]))
            if flip.get("constraint_ids"):
                detail.append("constraints " + ", ".join(flip["constraint_ids"]))
            if "error_type" in flip:
                detail.append(f"error {flip['error_type']}")
            lines.append(
                f"  {flip['change']:<17} {flip['test_case_id']} #{flip['attempt']}  {flip['base']} \u2192 {flip['new']}"
                + (f"  ({'; '.join(detail)})" if detail else "")
            )
        if len(flips) > TEXT_FLIPS:
            lines.append(f"  \u2026 and {len(flips) - TEXT_FLIPS} more (--format json or --html lists them all)")
    # ids, messages and file names come from the documents: each line is escaped so it stays one inert line
    return "\n".join(terminal_line(line) for line in lines) + "\n"


# --- Markdown (a CI step summary, a pull request comment) -----------------------------------------------------

MARKDOWN_FLIPS = 100  # a pull request comment holds at most 65,536 characters: the rest are counted, not listed
# the characters that open something in GitHub's Markdown: emphasis, code, links, HTML, table cells (``|``),
# strikethrough, math (``$``), mentions (``@``) and issue links (``#``); a backslash escapes any of them (CommonMark)
_MD_SPECIAL = re.compile(r"[\\`*_\[\]<>&|~$@#]")
_MD_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def md(value: Any) -> str:
    """A value as inert Markdown text on one line: controls and line breaks escaped (``visible``), ``<``, ``>`` and
    ``&`` as entities (no HTML reaches the page), and every other character that opens something backslash-escaped
    (no emphasis, code span, link, table cell break, math, mention or issue link from a test case's id). Never at
    the start of a line (a table cell, after ``**`` or ``> ``): block markers (``-``, ``1.``) need no escape."""
    if value is None:
        return "\u2014"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return _MD_SPECIAL.sub(lambda m: _MD_ENTITIES.get(m.group()) or "\\" + m.group(), visible(text))


def _row(*cells: Any) -> str:
    return "| " + " | ".join(md(cell) for cell in cells) + " |"


def render_markdown(document: dict[str, Any]) -> str:
    """The comparison for ``$GITHUB_STEP_SUMMARY`` or a pull request comment: the verdict, what the run could show,
    the gate, the pairs, the graders, the findings and the flipped cases, every quoted value escaped."""
    pairs, gate = document["pairs"], document["verdict"]
    out = ["### evalschema compare", "", "**" + md(verdict_line(document)) + "**", "", "> " + md(power_line(document)), ""]
    if gate["gate_failed"]:
        out += [
            "**"
            + md("gate: fails with --fail-on-regression (" + ", ".join(r.replace("_", " ") for r in gate["gate_reasons"]) + ")")
            + "**",
            "",
        ]
    out += ["| pairs | count |", "| --- | ---: |"]
    out += [_row(name.replace("_", " "), value) for name, value in pairs.items()]
    out += [_row(f"changes: {name.replace('_', ' ')}", count) for name, count in document["changes"].items()]
    if document["graders"]:
        out += [
            "",
            "| grader | pairs | base mean | new mean | difference | interval | method |",
            "| --- | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        out += [
            _row(
                g["grader_id"],
                g["pairs"],
                _num(g["base_mean"]),
                _num(g["new_mean"]),
                _num(g["difference"], True),
                _interval(g["interval"], 1, 3),
                g["method"],
            )
            for g in document["graders"]
        ]
    if document["findings"]:
        out += ["", "| severity | code | pointer | message |", "| --- | --- | --- | --- |"]
        out += [_row(f["severity"], f["code"], f["pointer"] or "/", f["message"]) for f in document["findings"]]
    flips = document["flips"]
    if flips:
        out += [
            "",
            f"#### Flipped cases ({len(flips)})",
            "",
            "| change | test case | attempt | base | new | graders changed | constraints | error |",
        ]
        out.append("| --- | --- | ---: | --- | --- | --- | --- | --- |")
        out += [
            _row(
                f["change"].replace("_", " "),
                f["test_case_id"],
                f["attempt"],
                f["base"],
                f["new"],
                ", ".join(f["graders_changed"]),
                ", ".join(f.get("constraint_ids", [])),
                f.get("error_type", ""),
            )
            for f in flips[:MARKDOWN_FLIPS]
        ]
        if len(flips) > MARKDOWN_FLIPS:
            out += ["", md(f"… and {len(flips) - MARKDOWN_FLIPS} more (--format json or --html lists them all)")]
    return "\n".join(out) + "\n"


# --- HTML -------------------------------------------------------------------------------------------------

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1a1a1a;background:#fff}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
.verdict{font-size:17px;padding:12px 16px;border-radius:6px;background:#eceff1}
.verdict.regression{background:#ffebee;color:#b71c1c}.verdict.improvement{background:#e8f5e9;color:#1b5e20}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #cfd8dc;padding:4px 8px;text-align:left}
th{background:#eceff1}th.sort{cursor:pointer}tr.differs td{background:#fff3e0;font-weight:600}
.finding{color:#e65100}.change-regression,.change-newly_invalidated,.change-newly_errored{color:#c62828}
.change-improvement,.change-no_longer_errored{color:#2e7d32}
.bar{display:inline-block;height:10px;background:#1565c0;vertical-align:middle}
"""

_SCRIPT = """
(function(){
  var table=document.getElementById('flips'); if(!table){return;}
  var body=table.tBodies[0], text=document.getElementById('filter'), kind=document.getElementById('change');
  function apply(){
    var q=text.value.toLowerCase(), k=kind.value, shown=0;
    Array.prototype.forEach.call(body.rows,function(r){
      var ok=(!k||r.getAttribute('data-change')===k)&&(!q||r.textContent.toLowerCase().indexOf(q)>=0);
      r.style.display=ok?'':'none'; if(ok){shown++;}
    });
    document.getElementById('shown').textContent=String(shown);
  }
  text.addEventListener('input',apply); kind.addEventListener('change',apply);
  Array.prototype.forEach.call(table.tHead.rows[0].cells,function(th,col){
    th.className='sort';
    th.addEventListener('click',function(){
      var up=th.getAttribute('data-dir')!=='up'; th.setAttribute('data-dir',up?'up':'down');
      var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){
        var x=a.cells[col].getAttribute('data-key')||a.cells[col].textContent,
            y=b.cells[col].getAttribute('data-key')||b.cells[col].textContent;
        var c=(isFinite(x)&&isFinite(y))?(Number(x)-Number(y)):(x<y?-1:x>y?1:0);
        return up?c:-c;
      });
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
  apply();
})();
"""


def _e(value: Any) -> str:
    if value is None:
        return "\u2014"
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return escape(value, quote=True)


def _provenance(document: dict[str, Any]) -> list[str]:
    base, new = document["base"], document["new"]
    rows = ["<table id='provenance'><thead><tr><th>field</th><th>base</th><th>new</th></tr></thead><tbody>"]
    names = ["path", "run_id", "suite_id", "suite_version", "suite_digest", "started_at", "runner", "provider"]
    for name in names:
        if name not in base and name not in new:
            continue
        differs = base.get(name) != new.get(name) and name not in ("path", "run_id", "started_at")
        rows.append(
            f"<tr{' class=differs' if differs else ''} data-field='{_e(name)}'><td>{_e(name)}</td>"
            f"<td>{_e(base.get(name))}</td><td>{_e(new.get(name))}</td></tr>"
        )
    for grader_id in sorted(set(base["graders"]) | set(new["graders"])):
        before, after = base["graders"].get(grader_id), new["graders"].get(grader_id)
        differs = before != after
        rows.append(
            f"<tr{' class=differs' if differs else ''} data-field='grader'><td>grader {_e(grader_id)}</td>"
            f"<td>{_e(before)}</td><td>{_e(after)}</td></tr>"
        )
    rows.append("</tbody></table>")
    return rows


def render_html(document: dict[str, Any]) -> str:
    verdict = verdict_line(document)
    out = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
        "<title>evalschema comparison</title><style>" + _STYLE + "</style></head><body>",
        "<h1>evalschema comparison</h1>",
        f"<p id='verdict' class='verdict {_e(document['verdict']['outcome'])}'>{_e(verdict)}</p>",
    ]
    if document["findings"]:
        out.append("<h2>Not comparable</h2><ul id='findings'>")
        out += [
            f"<li class='finding' data-code='{_e(f['code'])}'>{_e(f['code'])} {_e(f['pointer'])}: {_e(f['message'])}</li>"
            for f in document["findings"]
        ]
        out.append("</ul>")
    out.append("<h2>Provenance</h2>")
    out += _provenance(document)
    pairs = document["pairs"]
    out.append("<h2>Pairs</h2><table id='pairs'><tbody>")
    out += [f"<tr><td>{_e(name.replace('_', ' '))}</td><td data-metric='{_e(name)}'>{_e(value)}</td></tr>" for name, value in pairs.items()]
    out.append("</tbody></table>")
    out.append(
        "<h2>Graders</h2><table id='graders'><thead><tr><th>grader</th><th>pairs</th><th>base mean</th><th>new mean</th>"
        "<th>difference</th><th>interval</th><th>method</th></tr></thead><tbody>"
    )
    for grader in document["graders"]:
        width = 0 if grader["difference"] is None else round(abs(grader["difference"]) * 200)
        out.append(
            f"<tr data-grader='{_e(grader['grader_id'])}'><td>{_e(grader['grader_id'])}</td><td>{grader['pairs']}</td>"
            f"<td>{_e(_num(grader['base_mean']))}</td><td>{_e(_num(grader['new_mean']))}</td>"
            f"<td>{_e(_num(grader['difference'], True))} <span class='bar' style='width:{width}px'></span></td>"
            f"<td>{_e(_interval(grader['interval'], 1, 3))}</td><td>{_e(grader['method'])}</td></tr>"
        )
    out.append("</tbody></table>")
    flips = document["flips"]
    out.append(f"<h2>Flipped cases (<span id='shown'>{len(flips)}</span> of {len(flips)})</h2>")
    out.append(
        "<p><input id='filter' type='search' placeholder='filter: test case, grader, constraint'> <select id='change'><option value=''>every change</option>"
    )
    out += [f"<option value='{_e(name)}'>{_e(name.replace('_', ' '))}</option>" for name in dict.fromkeys(f["change"] for f in flips)]
    out.append("</select></p>")
    out.append(
        "<table id='flips'><thead><tr><th>change</th><th>test case</th><th>attempt</th><th>base</th><th>new</th>"
        "<th>graders changed</th><th>constraints</th><th>error</th></tr></thead><tbody>"
    )
    ranks = {name: rank for rank, name in enumerate(dict.fromkeys(f["change"] for f in flips))}
    for flip in flips:
        out.append(
            f"<tr data-change='{_e(flip['change'])}'><td class='change-{_e(flip['change'])}' data-key='{ranks[flip['change']]}'>{_e(flip['change'])}</td>"
            f"<td>{_e(flip['test_case_id'])}</td><td>{flip['attempt']}</td><td>{_e(flip['base'])}</td><td>{_e(flip['new'])}</td>"
            f"<td>{_e(', '.join(flip['graders_changed']))}</td><td>{_e(', '.join(flip.get('constraint_ids', [])))}</td>"
            f"<td>{_e(flip.get('error_type', ''))}</td></tr>"
        )
    out.append("</tbody></table>")
    out.append("<script>" + _SCRIPT + "</script></body></html>\n")
    return "\n".join(out)


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return _signed(value, 1, 3) if signed else f"{value:.3f}"
