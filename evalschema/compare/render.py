"""The comparison document for people: the text the command prints and its Markdown (the HTML page is
``evalschema.report.comparehtml``, drawn from the same document by the shared report template)."""

from __future__ import annotations

import json
import re
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


def reducer_of(grader: dict[str, Any]) -> str:
    """The reducer each run applied to this grader: one name when both agree, else ``base → new``."""
    base, new = (grader.get(f"{side}_per_test_case") for side in ("base", "new"))
    before, after = (view["reducer"] if view else "n/a" for view in (base, new))
    return before if before == after else f"{before} \u2192 {after}"


def per_test_case_line(grader: dict[str, Any], document: dict[str, Any]) -> str | None:
    """A grader's per-test-case view (SPEC §12.4), when either run's rows carry attempts; else ``None``."""
    base, new = grader.get("base_per_test_case"), grader.get("new_per_test_case")
    if base is None and new is None:
        return None
    line = (
        f"grader {grader['grader_id']} per test case ({reducer_of(grader)}): mean "
        f"{_num(base['avg_score']) if base else 'n/a'} \u2192 {_num(new['avg_score']) if new else 'n/a'}"
    )
    paired = grader.get("per_test_case_difference")
    if paired is None or paired["difference"] is None:
        return line
    return (
        f"{line}; paired over {paired['test_cases']} test cases: {_signed(paired['difference'], 1, 3)}, "
        f"{confidence(document)} CI {_interval(paired['interval'], 1, 3)}"
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
    for grader in document["graders"]:
        lines.append("  " + grader_line(grader, document))
        view = per_test_case_line(grader, document)
        if view is not None:
            lines.append("    " + view)
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
    viewed = [g for g in document["graders"] if g.get("base_per_test_case") or g.get("new_per_test_case")]
    if viewed:
        out += [
            "",
            "| grader per test case | reducer | base mean | new mean | paired test cases | difference | interval |",
            "| --- | --- | ---: | ---: | ---: | ---: | --- |",
        ]
        for g in viewed:
            base, new, paired = g.get("base_per_test_case"), g.get("new_per_test_case"), g.get("per_test_case_difference")
            out.append(
                _row(
                    g["grader_id"],
                    reducer_of(g),
                    _num(base["avg_score"]) if base else "n/a",
                    _num(new["avg_score"]) if new else "n/a",
                    paired["test_cases"] if paired else "n/a",
                    _num(paired["difference"], True) if paired else "n/a",
                    _interval(paired["interval"], 1, 3) if paired else "n/a",
                )
            )
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


def _num(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "n/a"
    return _signed(value, 1, 3) if signed else f"{value:.3f}"
