"""Human-readable summaries: a text table for the terminal, and the data of the summary's HTML page (drawn by the
shared template, ``report.page``: the same page from both SDKs; ``js/src/report/summaryHtml.ts`` mirrors the data)."""

from __future__ import annotations

import math
from typing import Any

from evalschema_models.constants import REPORT_CASE_ROWS, SUMMARY_INVALID_WARNING

from ..core.display import finite, terminal_line, visible
from ..core.limits import shorten
from ..summary.states import Summary, classify
from . import page


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _grader_rate(totals: dict[str, Any]) -> float | None:
    scored = totals["passed"] + totals["failed"]
    return totals["passed"] / scored if scored else None


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


def scalar(value: Any) -> str | int | float | None:
    """A value the page shows as it is: a string or a finite number; anything else (a result set shown under
    ``--force`` may hold an object where an id belongs) is ``None``, shown as a dash."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    return None


def _text(value: Any) -> str | None:
    """A long text (an output, a reason, an error message) as the page shows it: cut to ``MAX_VALUE_CHARS``."""
    return shorten(value) if isinstance(value, str) else None


class CaseLists:
    """The rows a reader acts on, gathered while the rows go by (in any batches): failed (with each failing
    grader's id and reason, and the output), invalidated (with the ids of the invalidating constraints, and the
    output) and errored (with the error's type and message), each with its test case id and attempt; and the row
    durations. Long texts are shortened (``shorten``). At most ``limit`` rows per list are kept; the counts are
    exact. ``js/src/report/summaryHtml.ts`` ``CaseLists`` gathers the same."""

    def __init__(self, limit: int = REPORT_CASE_ROWS) -> None:
        self.limit = limit
        self.rows: dict[str, list[dict[str, Any]]] = {"failed": [], "invalidated": [], "errored": []}
        self.counts = {"failed": 0, "invalidated": 0, "errored": 0}
        self.durations: list[float] = []

    def add(self, result: Any) -> None:
        if not isinstance(result, dict):
            return
        duration = result.get("duration_ms")
        if isinstance(duration, (int, float)) and not isinstance(duration, bool) and math.isfinite(duration):
            self.durations.append(float(duration))
        outcome = classify(result)
        if outcome not in self.rows:
            return
        self.counts[outcome] += 1
        if len(self.rows[outcome]) >= self.limit:
            return
        row: dict[str, Any] = {
            "test_case_id": scalar(result.get("test_case_id")),
            "attempt": scalar(result.get("attempt")),
            "duration_ms": scalar(duration),
        }
        if outcome == "invalidated":
            row["constraints"] = [
                scalar(v.get("id"))
                for v in result.get("constraint_violations") or ()
                if isinstance(v, dict) and v.get("invalidates_result") is True
            ]
            row["output"] = _text(result.get("actual_output"))
        elif outcome == "errored":
            given = result.get("error")
            error: dict[str, Any] = given if isinstance(given, dict) else {}
            row["error_type"] = scalar(error.get("type"))
            row["error_message"] = _text(error.get("message"))
        else:
            row["graders"] = [
                {"grader_id": scalar(g.get("grader_id")), "reason": _text(g.get("reason"))}
                for g in result.get("grader_results") or ()
                if isinstance(g, dict) and g.get("passed") is False
            ]
            row["output"] = _text(result.get("actual_output"))
        self.rows[outcome].append(row)

    def to_dict(self) -> dict[str, Any]:
        return {name: {"count": self.counts[name], "rows": self.rows[name]} for name in self.rows}

    def duration_stats(self) -> dict[str, Any] | None:
        """Median (the upper one of an even count), max and total of the row durations, summed in ascending order
        one by one (as JavaScript adds them: Python's ``sum`` of floats may round otherwise)."""
        if not self.durations:
            return None
        ordered, total = sorted(self.durations), 0.0
        for value in ordered:
            total += value
        return {"count": len(ordered), "median": ordered[len(ordered) // 2], "max": ordered[-1], "total": total}


def case_lists(document: dict[str, Any]) -> CaseLists:
    lists = CaseLists()
    for result in document.get("results") or ():
        lists.add(result)
    return lists


GROUP_FIELDS = ("group_id", "role", "label", "sequence")


def run_data(label: str, document: dict[str, Any], summary: Summary, lists: CaseLists | None, invalid: int | None) -> dict[str, Any]:
    """One result set as the summary page shows it: its own fields, its summary (all of it: the page shows what it
    knows of and ignores the rest), its case lists and durations."""
    group, provider = document.get("group"), document.get("provider")
    return {
        "label": label,
        "run_id": scalar(document.get("run_id")),
        "suite_id": scalar(document.get("suite_id")),
        "model": scalar(provider.get("model")) if isinstance(provider, dict) else None,
        "started_at": scalar(document.get("started_at")),
        "completed_at": scalar(document.get("completed_at")),
        "group": {k: scalar(group[k]) for k in GROUP_FIELDS if k in group} if isinstance(group, dict) else None,
        "invalid": invalid,
        "summary": finite(summary.to_dict()),
        "cases": lists.to_dict() if lists is not None else None,
        "durations": lists.duration_stats() if lists is not None else None,
    }


def summary_data(
    results: list[Summarized],
    *,
    invalid: dict[str, int] | None = None,
    lists: dict[str, CaseLists] | None = None,
    generated_at: str | None = None,
) -> dict[str, Any]:
    from ..schemas.registry import spec_version

    invalid, lists = invalid or {}, lists or {}
    return {
        "page": "summary",
        "version": spec_version(),
        "generated_at": generated_at or page.generated_at(),
        "runs": [run_data(label, document, summary, lists.get(label), invalid.get(label)) for label, document, summary in results],
    }


def render_html(
    results: list[Summarized],
    *,
    invalid: dict[str, int] | None = None,
    lists: dict[str, CaseLists] | None = None,
    generated_at: str | None = None,
) -> str:
    """One self-contained page (loads nothing; every value drawn as text). Runs that share a ``group.group_id`` are
    shown side by side, in ``sequence`` order, each headed by its role and label; when two runs or more of a suite
    × model say when they started, a chart of their pass rates over time comes first, the runs' table under it."""
    return page.render_page(summary_data(results, invalid=invalid, lists=lists, generated_at=generated_at))
