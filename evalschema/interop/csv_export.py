"""Export a result set as CSV for spreadsheets: one line per (row, grader result), and one line with empty
grader columns for a row that has no grader result (so errored rows stay visible).

Columns, in order (SPEC.md, Appendix A.8): ``run_id``, ``suite_id``, ``test_case_id``, ``attempt``, ``outcome``
(the row's class, SPEC 4.2), ``row_passed``, ``grader_id``, ``grader_type``, ``score`` (empty when null),
``grader_passed``, ``reason``, ``error_type``, ``error_message``, ``duration_ms``, ``completed_at``,
``actual_output``. Metadata and constraint violations other than their count are not exported.
"""

from __future__ import annotations

import csv
import io
from typing import IO, Any

from ..summary.states import classify
from .common import LossReport

COLUMNS = (
    "run_id",
    "suite_id",
    "test_case_id",
    "attempt",
    "outcome",
    "row_passed",
    "grader_id",
    "grader_type",
    "score",
    "grader_passed",
    "reason",
    "error_type",
    "error_message",
    "duration_ms",
    "completed_at",
    "actual_output",
)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    # no spreadsheet formulas: OWASP's prefixes (= + - @ TAB CR) are neutralised with a quote; a signed number is
    # a number (float() takes leading blanks too, so a number after TAB or CR is neutralised all the same)
    first = text[:1]
    if first in ("=", "+", "-", "@", "\t", "\r") and not (first in ("+", "-") and _number(text)):
        return "'" + text
    return text


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def write(document: dict[str, Any], stream: IO[bytes], loss: LossReport, source: str) -> int:
    text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
    writer = csv.writer(text, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    lines = 0
    for index, row in enumerate(document.get("results", [])):
        error = row.get("error") or {}
        base = {
            "run_id": document["run_id"],
            "suite_id": document["suite_id"],
            "test_case_id": row["test_case_id"],
            "attempt": row.get("attempt"),
            "outcome": classify(row),
            "row_passed": row["passed"],
            "error_type": error.get("type"),
            "error_message": error.get("message"),
            "duration_ms": row.get("duration_ms"),
            "completed_at": row.get("completed_at"),
            "actual_output": row.get("actual_output"),
        }
        for g, result in enumerate(row["grader_results"] or [None]):
            cells = dict(base)
            if result is not None:
                cells.update(
                    {
                        "grader_id": result["grader_id"],
                        "grader_type": result["type"],
                        "score": result["score"],
                        "grader_passed": result["passed"],
                        "reason": result.get("reason"),
                    }
                )
                if result.get("metadata"):
                    loss.dropped(source, f"/results/{index}/grader_results/{g}/metadata", "grader result metadata has no CSV column")
            line = [_cell(cells.get(c)) for c in COLUMNS]
            try:
                "".join(line).encode("utf-8")
            except UnicodeEncodeError:  # a lone surrogate (JSON can escape one, UTF-8 cannot hold it): U+FFFD
                line = [c.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for c in line]
                loss.approximated(source, f"/results/{index}", "a lone surrogate (a CSV file is UTF-8) is written as U+FFFD")
            writer.writerow(line)
            lines += 1
        for field in ("metadata", "constraint_violations"):
            if row.get(field):
                loss.dropped(
                    source,
                    f"/results/{index}/{field}",
                    f"the row's {field} has no CSV column (the outcome column reflects invalidating violations)",
                )
        if error.get("code") is not None or "retryable" in error:
            loss.dropped(source, f"/results/{index}/error", "error code and retryable have no CSV column")
    for key in ("metadata", "provider", "runner", "summary", "group"):
        if document.get(key):
            loss.dropped(source, f"/{key}", f"the result set's {key} has no CSV column (the summary is recomputable from the lines)")
    text.flush()
    text.detach()
    return lines
