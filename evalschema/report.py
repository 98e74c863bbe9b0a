"""Human-readable summaries: a text table for the terminal and a self-contained HTML page with SVG charts."""

from __future__ import annotations

from html import escape
from typing import Any

from .display import visible
from .limits import shorten
from .summary import Summary

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


def render_text(results: list[Summarized], *, colour: bool = False) -> str:
    bold = (lambda s: f"\033[1m{s}\033[0m") if colour else (lambda s: s)
    out: list[str] = []
    for label, document, summary in results:
        s = summary.to_dict()
        scored = s["total"] - s["skipped"]
        suite, run = (visible(shorten(str(document.get(key, "?")))) for key in ("suite_id", "run_id"))
        head = f"{visible(label)}  (suite {suite}, run {run})"
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
                    f"  {grader:<{width}}  {t['passed']:>6}  {t['failed']:>6}  {t['unscored']:>8}  "
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
    total = sum(counts.values()) or 1
    width, x, parts = 600.0, 0.0, []
    for name, fill in OUTCOMES:
        share = counts[name] / total * width
        if counts[name]:
            parts.append(
                f'<rect x="{x:.2f}" y="0" width="{share:.2f}" height="36" fill="{fill}">'
                f"<title>{name}: {counts[name]}</title></rect>"
            )
        x += share
    legend = "".join(
        f'<g transform="translate({i * 120},56)"><rect width="14" height="14" fill="{fill}"/>'
        f'<text x="20" y="12">{name} {counts[name]}</text></g>'
        for i, (name, fill) in enumerate(OUTCOMES)
    )
    return (
        '<svg class="chart" role="img" aria-label="outcome breakdown" viewBox="0 0 600 80" width="600" height="80">'
        + "".join(parts)
        + legend
        + "</svg>"
    )


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
            + (f'<rect x="170" y="{y}" width="{400 * rate:.2f}" height="20" fill="#1565c0"><title>{escape(grader)}: {_percent(rate)}</title></rect>' if rate else "")
            + f'<text x="580" y="{y + 15}">{_percent(rate)}</text>'
        )
    return (
        f'<svg class="chart" role="img" aria-label="pass rate per grader" viewBox="0 0 640 {height}" width="640" height="{height}">'
        + "".join(bars)
        + "</svg>"
    )


_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; color: #212121; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2.5rem; border-bottom: 1px solid #ddd; }
.numbers { display: flex; gap: 1.5rem; flex-wrap: wrap; margin: 1rem 0; }
.numbers div { background: #f5f5f5; padding: .6rem .9rem; border-radius: 6px; }
.numbers b { display: block; font-size: 1.3rem; }
table { border-collapse: collapse; margin: 1rem 0; } td, th { padding: .25rem .8rem; text-align: right; }
th:first-child, td:first-child { text-align: left; } tr:nth-child(even) { background: #fafafa; }
svg text { font: 13px system-ui, sans-serif; fill: #212121; }
"""


def render_html(results: list[Summarized]) -> str:
    sections = []
    for label, document, summary in results:
        s = summary.to_dict()
        counts = _outcomes(s)
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
        sections.append(
            f"<section><h2>{escape(label)}</h2>"
            f"<p>Suite <code>{escape(str(document.get('suite_id', '?')))}</code>, run <code>{escape(str(document.get('run_id', '?')))}</code>.</p>"
            f'<div class="numbers">{numbers}</div>'
            f"<h3>Outcome breakdown</h3>{_outcome_chart(counts)}"
            f"<h3>Pass rate per grader</h3>{_grader_chart(s['by_grader']) if s['by_grader'] else '<p>No grader results.</p>'}"
            "<table><thead><tr><th>grader</th><th>passed</th><th>failed</th><th>unscored</th><th>pass rate</th>"
            f"<th>avg score</th></tr></thead><tbody>{grader_rows}</tbody></table>{attempts}</section>"
        )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>evalschema summary</title>'
        f"<style>{_STYLE}</style></head><body><h1>evalschema summary</h1>"
        "<p>Invalidated rows count as failures and stay in every denominator; errored rows leave the pass-rate and "
        "score denominators; unscored rows have no scored grader result.</p>"
        + "".join(sections)
        + "</body></html>\n"
    )
