"""Human-readable summaries: a text table for the terminal and a self-contained HTML page with SVG charts."""

from __future__ import annotations

from html import escape
from typing import Any

from evalschema_models.constants import SUMMARY_INVALID_WARNING

from ..core.display import terminal_line, visible
from ..core.limits import shorten
from ..summary.states import Summary, classify

OUTCOMES = (
    ("passed", "#2e7d32"),
    ("failed", "#c62828"),
    ("invalidated", "#6a1b9a"),
    ("errored", "#ef6c00"),
    ("unscored", "#757575"),
)


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _grader_rate(totals: dict[str, Any]) -> float | None:
    scored = totals["passed"] + totals["failed"]
    return totals["passed"] / scored if scored else None


def _outcomes(summary: dict[str, Any]) -> dict[str, int]:
    """Rows by outcome; ``failed`` in the summary includes invalidated rows, the breakdown shows them apart."""
    return {
        "passed": summary["passed"],
        "failed": summary["failed"] - summary["invalidated"],
        "invalidated": summary["invalidated"],
        "errored": summary["errored"],
        "unscored": summary["unscored"],
    }


# What is shown of one result set: a label, the result set's own fields (its results are not needed), its summary.
Summarized = tuple[str, dict[str, Any], Summary]


INVALID_WARNING = SUMMARY_INVALID_WARNING


def render_text(results: list[Summarized], *, colour: bool = False, invalid: dict[str, int] | None = None) -> str:
    bold = (lambda s: f"\033[1m{s}\033[0m") if colour else (lambda s: s)
    out: list[str] = []
    for label, document, summary in results:
        s = summary.to_dict()
        if invalid and label in invalid:
            out.append(("\033[1;31m{}\033[0m" if colour else "{}").format(INVALID_WARNING.format(errors=invalid[label])))
        scored = s["total"] - s["skipped"]
        suite, run = (visible(shorten(str(document.get(key, "?")))) for key in ("suite_id", "run_id"))
        head = terminal_line(f"{label}  (suite {suite}, run {run})")
        out.append(bold(head))
        out.append(
            f"  results {s['total']}: passed {s['passed']}, failed {s['failed']} (of which invalidated by a "
            f"constraint {s['invalidated']}), errored {s['errored']}, unscored {s['unscored']}"
        )
        out.append(f"  pass rate {_percent(s['pass_rate'])} of {scored} scored; average score {_number(s['avg_score'])}")
        if s["by_grader"]:
            width = max(12, *(len(visible(shorten(g))) for g in s["by_grader"]))
            out.append(f"  {'grader':<{width}}  {'passed':>6}  {'failed':>6}  {'unscored':>8}  {'pass rate':>9}  {'avg score':>9}")
            for grader, t in s["by_grader"].items():
                grader = visible(shorten(grader))
                out.append(
                    "  "
                    + terminal_line(grader)
                    + " " * (width - len(grader))
                    + f"  {t['passed']:>6}  {t['failed']:>6}  {t['unscored']:>8}  "
                    f"{_percent(_grader_rate(t)):>9}  {_number(t['avg_score']):>9}"
                )
        if "attempts" in s:
            a = s["attempts"]
            out.append(
                f"  attempts: {a['test_cases']} test case(s); first attempt {_percent(a['first_attempt_pass_rate'])}, "
                f"any pass {_percent(a['any_pass_rate'])}, all pass {_percent(a['all_pass_rate'])}"
            )
        out.append("")
    return "\n".join(out)


def _outcome_chart(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    width, x, parts = 760.0, 0.0, []
    for name, fill in OUTCOMES:
        share = counts[name] / (total or 1) * width
        if counts[name]:
            label = f"{counts[name] / total:.0%}"
            parts.append(
                f'<rect x="{x:.2f}" y="0" width="{share:.2f}" height="36" fill="{fill}">'
                f"<title>{name}: {counts[name]} ({counts[name] / total:.1%})</title></rect>"
                + (
                    f'<text x="{x + share / 2:.2f}" y="23" text-anchor="middle" class="share" fill="#fff" style="fill:#fff">{label}</text>'
                    if share >= 36
                    else ""
                )
            )
        x += share
    legend = "".join(
        f'<g transform="translate({i * 152},56)"><rect width="14" height="14" fill="{fill}"/>'
        f'<text x="20" y="12" data-outcome="{name}" data-share="{_share(counts[name], total)}">{name} {counts[name]} ({_share(counts[name], total)})</text></g>'
        for i, (name, fill) in enumerate(OUTCOMES)
    )
    return (
        '<svg class="chart" role="img" aria-label="outcome breakdown" viewBox="0 0 760 80" width="760" height="80">'
        + "".join(parts)
        + legend
        + "</svg>"
    )


def _share(part: int, total: int) -> str:
    return f"{part / total:.0%}" if total else "n/a"


def _grader_chart(by_grader: dict[str, Any]) -> str:
    rows = list(by_grader.items())
    height = 28 * len(rows) + 10
    bars = []
    for i, (grader, totals) in enumerate(rows):
        rate = _grader_rate(totals)
        y = 28 * i + 4
        bars.append(
            f'<text x="0" y="{y + 15}" class="label">{escape(grader)}</text>'
            f'<rect x="170" y="{y}" width="400" height="20" fill="#e0e0e0"/>'
            + (
                f'<rect x="170" y="{y}" width="{400 * rate:.2f}" height="20" fill="#1565c0"><title>{escape(grader)}: {_percent(rate)}</title></rect>'
                if rate
                else ""
            )
            + f'<text x="580" y="{y + 15}">{_percent(rate)}</text>'
        )
    return (
        f'<svg class="chart" role="img" aria-label="pass rate per grader" viewBox="0 0 640 {height}" width="640" height="{height}">'
        + "".join(bars)
        + "</svg>"
    )


class CaseLists:
    """The rows a reader acts on, gathered while the rows go by (in any batches): failed, invalidated (with the
    ids of the invalidating constraints) and errored (with the error's type and message), each with its test case
    id; and the row durations. At most ``limit`` rows per list are kept; the counts are exact."""

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self.rows: dict[str, list[dict[str, Any]]] = {"failed": [], "invalidated": [], "errored": []}
        self.counts = {"failed": 0, "invalidated": 0, "errored": 0}
        self.durations: list[float] = []

    def add(self, result: Any) -> None:
        if not isinstance(result, dict):
            return
        duration = result.get("duration_ms")
        if isinstance(duration, (int, float)) and not isinstance(duration, bool):
            self.durations.append(float(duration))
        outcome = classify(result)
        if outcome not in self.rows:
            return
        self.counts[outcome] += 1
        if len(self.rows[outcome]) >= self.limit:
            return
        row: dict[str, Any] = {"test_case_id": result.get("test_case_id"), "attempt": result.get("attempt"), "duration_ms": duration}
        if outcome == "invalidated":
            row["constraints"] = [
                str(v.get("id"))
                for v in result.get("constraint_violations") or ()
                if isinstance(v, dict) and v.get("invalidates_result") is True
            ]
        elif outcome == "errored":
            error = result.get("error")
            row["error_type"] = error.get("type") if isinstance(error, dict) else None
            row["error_message"] = error.get("message") if isinstance(error, dict) else None
        else:
            row["graders"] = [
                str(g.get("grader_id")) for g in result.get("grader_results") or () if isinstance(g, dict) and g.get("passed") is False
            ]
        self.rows[outcome].append(row)


def case_lists(document: dict[str, Any]) -> CaseLists:
    lists = CaseLists()
    for result in document.get("results") or ():
        lists.add(result)
    return lists


_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #212121; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 0; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
.meta { color: #616161; margin-top: 0; }
.group { margin-top: 2.5rem; border-top: 1px solid #ddd; padding-top: 1rem; }
.runs { display: grid; grid-template-columns: repeat(auto-fit, minmax(30rem, 1fr)); gap: 1.5rem; }
.run { min-width: 0; }
.role { display: inline-block; background: #e3f2fd; color: #0d47a1; border-radius: 4px; padding: 0 .4rem; margin-right: .4rem; font-size: .85rem; }
.numbers { display: grid; grid-template-columns: repeat(5, minmax(0, 1fr)); gap: .6rem; margin: 1rem 0; }
.numbers div { background: #f5f5f5; padding: .5rem .6rem; border-radius: 6px; font-size: .85rem; }
.numbers b { display: block; font-size: 1.25rem; }
.banner { background: #ffebee; border: 2px solid #c62828; color: #b71c1c; padding: .6rem .9rem; border-radius: 6px; font-weight: 600; }
table { border-collapse: collapse; margin: .4rem 0 1rem; width: 100%; font-size: .9rem; }
td, th { padding: .25rem .6rem; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; } tr:nth-child(even) { background: #fafafa; }
table.cases th, table.cases td { text-align: left; overflow-wrap: anywhere; }
svg { max-width: 100%; height: auto; }
svg text { font: 13px system-ui, sans-serif; fill: #212121; }
"""


def _duration(value: Any) -> str:
    return f"{value:,.0f} ms" if isinstance(value, (int, float)) and not isinstance(value, bool) else "—"


def _cases_table(name: str, rows: list[dict[str, Any]], count: int, columns: list[tuple[str, str]]) -> str:
    if not count:
        return ""
    head = "".join(f"<th>{escape(title)}</th>" for _, title in columns)
    body = "".join(
        "<tr>" + "".join(f'<td data-column="{escape(key)}">{escape(_cell(row.get(key)))}</td>' for key, _ in columns) + "</tr>"
        for row in rows
    )
    more = f"<p>… and {count - len(rows)} more.</p>" if count > len(rows) else ""
    return (
        f"<h3>{escape(name.capitalize())} cases ({count})</h3>"
        f'<table class="cases" data-list="{escape(name)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}'
    )


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "—"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _run_section(label: str, document: dict[str, Any], summary: Summary, lists: CaseLists | None, invalid: int | None) -> str:
    s = summary.to_dict()
    counts = _outcomes(s)
    group: dict[str, Any] = document["group"] if isinstance(document.get("group"), dict) else {}
    role = f'<span class="role">{escape(str(group["role"]))}</span>' if isinstance(group.get("role"), str) else ""
    name = group.get("label") if isinstance(group.get("label"), str) else label
    banner = (
        f'<p class="banner" role="alert">Not a valid result set ({invalid} error(s)): these numbers may be ones the '
        "specification makes impossible. Run <code>evalschema validate</code> on it.</p>"
        if invalid
        else ""
    )
    numbers = "".join(
        f'<div><b data-metric="{key}">{value}</b>{caption}</div>'
        for key, value, caption in (
            ("total", s["total"], "results"),
            ("pass_rate", _percent(s["pass_rate"]), "pass rate (scored rows)"),
            ("avg_score", _number(s["avg_score"]), "average score"),
            ("invalidated", s["invalidated"], "invalidated by a constraint"),
            ("errored", s["errored"], "errored (not in the denominator)"),
        )
    )
    grader_rows = "".join(
        f"<tr><td>{escape(g)}</td><td>{t['passed']}</td><td>{t['failed']}</td><td>{t['unscored']}</td>"
        f"<td>{_percent(_grader_rate(t))}</td><td>{_number(t['avg_score'])}</td></tr>"
        for g, t in s["by_grader"].items()
    )
    attempts = ""
    if "attempts" in s:
        a = s["attempts"]
        attempts = (
            f"<p>Attempts over {a['test_cases']} test case(s): first attempt {_percent(a['first_attempt_pass_rate'])}, "
            f"any pass {_percent(a['any_pass_rate'])}, all pass {_percent(a['all_pass_rate'])}.</p>"
        )
    timing = ""
    if lists is not None and lists.durations:
        d = sorted(lists.durations)
        timing = (
            f'<p data-durations="{len(d)}">Durations of {len(d)} row(s): median {_duration(d[len(d) // 2])}, '
            f"max {_duration(d[-1])}, total {_duration(sum(d))}.</p>"
        )
    cases = ""
    if lists is not None:
        cases = (
            _cases_table(
                "failed",
                lists.rows["failed"],
                lists.counts["failed"],
                [("test_case_id", "test case"), ("attempt", "attempt"), ("graders", "failing graders"), ("duration_ms", "duration (ms)")],
            )
            + _cases_table(
                "invalidated",
                lists.rows["invalidated"],
                lists.counts["invalidated"],
                [
                    ("test_case_id", "test case"),
                    ("attempt", "attempt"),
                    ("constraints", "invalidating constraints"),
                    ("duration_ms", "duration (ms)"),
                ],
            )
            + _cases_table(
                "errored",
                lists.rows["errored"],
                lists.counts["errored"],
                [("test_case_id", "test case"), ("attempt", "attempt"), ("error_type", "error type"), ("error_message", "message")],
            )
        )
    when = " → ".join(escape(str(document[k])) for k in ("started_at", "completed_at") if isinstance(document.get(k), str))
    return (
        f'<section class="run" data-run="{escape(str(document.get("run_id", "?")))}">{banner}<h2>{role}{escape(str(name))}</h2>'
        f'<p class="meta">{escape(label)} · suite <code>{escape(str(document.get("suite_id", "?")))}</code>, run '
        f"<code>{escape(str(document.get('run_id', '?')))}</code>{' · ' + when if when else ''}</p>"
        f'<div class="numbers">{numbers}</div>'
        f"<h3>Outcome breakdown</h3>{_outcome_chart(counts)}"
        f"<h3>Pass rate per grader</h3>{_grader_chart(s['by_grader']) if s['by_grader'] else '<p>No grader results.</p>'}"
        '<table class="graders"><thead><tr><th>grader</th><th>passed</th><th>failed</th><th>unscored</th><th>pass rate</th>'
        f"<th>avg score</th></tr></thead><tbody>{grader_rows}</tbody></table>{attempts}{timing}{cases}</section>"
    )


def render_html(
    results: list[Summarized],
    *,
    invalid: dict[str, int] | None = None,
    lists: dict[str, CaseLists] | None = None,
    generated_at: str | None = None,
) -> str:
    """One self-contained page (no external resource; every value escaped). Runs that share a ``group.group_id``
    are shown side by side, in ``sequence`` order, each headed by its role and label."""
    from datetime import UTC, datetime

    from ..schemas.registry import spec_version

    __version__ = spec_version()  # evalschema.__version__ is this

    invalid, lists = invalid or {}, lists or {}
    groups: dict[str, list[Summarized]] = {}
    order: list[str] = []
    for item in results:
        group = item[1].get("group")
        key = (
            "group:" + str(group["group_id"])
            if isinstance(group, dict) and isinstance(group.get("group_id"), str)
            else "run:" + str(len(order))
        )
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(item)
    sections = []
    for key in order:
        members = sorted(
            groups[key],
            key=lambda m: (
                (m[1].get("group") or {}).get("sequence", 0) if isinstance((m[1].get("group") or {}).get("sequence", 0), int) else 0
            ),
        )
        runs = "".join(_run_section(label, document, summary, lists.get(label), invalid.get(label)) for label, document, summary in members)
        title = (
            f'<h2 class="group-title">Group <code>{escape(key[6:])}</code> ({len(members)} run(s))</h2>' if key.startswith("group:") else ""
        )
        sections.append(f'<div class="group" data-group="{escape(key)}">{title}<div class="runs">{runs}</div></div>')
    stamp = generated_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>evalschema summary</title>'
        f"<style>{_STYLE}</style></head><body><h1>evalschema summary</h1>"
        f'<p class="meta" data-generated="{escape(stamp)}">Generated by evalschema {escape(__version__)} at {escape(stamp)}.</p>'
        "<p>Invalidated rows count as failures and stay in every denominator; errored rows leave the pass-rate and "
        "score denominators; unscored rows have no scored grader result.</p>" + "".join(sections) + "</body></html>\n"
    )
