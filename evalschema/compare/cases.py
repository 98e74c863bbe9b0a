"""Compare's per-test-case view (SPEC §12.4, "Per grader, per test case"): next to the per-row paired difference, each run's
attempts at a test case reduce to one value by that run's own declared reducer, as ``summarize`` reduces them
(SPEC §4.7), and the reduced values of the test cases both runs have are differenced.

Each side keeps every scored value of every row it reads, as the summary does (errored rows left out, repeated rows
kept), so a side's view is the one ``summarize`` of that result set reports; the TypeScript SDK
(``js/src/compare/compareCases.ts``) takes the same steps and gives the same doubles.
"""

from __future__ import annotations

import math
from typing import Any

from ..summary.cases import Reducer, Value, exact_mean, grader_view, reducers, standard_error
from ..summary.states import attempt_number


class CaseValues:
    """One run's scored values per grader and test case, in reading order."""

    __slots__ = ("has_attempts", "values")

    def __init__(self) -> None:
        self.has_attempts = False  # the summary's per-test-case view exists only when some row carries `attempt`
        self.values: dict[str, dict[str, list[Value]]] = {}  # grader id -> test case id -> its values

    def add(self, row: Any) -> None:
        if type(row) is not dict:
            return
        if "attempt" in row:
            self.has_attempts = True
        case = row.get("test_case_id")
        results = row.get("grader_results")
        if "error" in row or type(case) is not str or type(results) is not list:
            return
        attempt = row.get("attempt", 1)
        if type(attempt) is not int:
            attempt = attempt_number(row)
        for result in results:
            if type(result) is not dict:
                continue
            grader_id = result.get("grader_id")
            score = result.get("score")
            value = _number(score)
            if type(grader_id) is not str or value is None:
                continue
            raw = _number(result.get("raw_score"))
            raw = raw if raw is not None and math.isfinite(raw) else None
            self.values.setdefault(grader_id, {}).setdefault(case, []).append((attempt, value, raw))


def _number(value: Any) -> float | None:
    """A JSON number as a double (an integer past the doubles is no value: a document that is not valid)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def reduced(values: list[Value], reducer: Reducer) -> float | None:
    """One test case's reduced score (the step ``summary.cases.grader_view`` takes for each test case)."""
    ordered = sorted(values, key=lambda value: value[0])  # stable: equal attempts keep reading order
    counted = [raw if raw is not None else score for _, score, raw in ordered]
    return reducer.reduce([score for _, score, _ in ordered], counted)


def grader_fields(sides: tuple[CaseValues, CaseValues], provenance: tuple[Any, Any], grader_id: str, z: float) -> dict[str, Any]:
    """The per-test-case members of one grader's ``GraderDelta``: each side's view where its rows carry
    ``attempt``, and their paired difference where both do."""
    out: dict[str, Any] = {}
    per_side: list[dict[str, float]] = []
    for name, side, declared in zip(("base", "new"), sides, provenance):
        if not side.has_attempts:
            continue
        reducer = reducers(declared).get(grader_id) or Reducer()
        by_case = side.values.get(grader_id, {})
        out[f"{name}_per_test_case"] = grader_view(by_case.values(), reducer)
        values = {}
        for case, held in by_case.items():
            value = reduced(held, reducer)
            if value is not None:
                values[case] = value
        per_side.append(values)
    if len(per_side) == 2:
        base, new = per_side
        both = [case for case in base if case in new]  # the base run's reading order
        differences = [new[case] - base[case] for case in both]
        difference = exact_mean(differences)
        stderr = standard_error(differences, difference)
        interval = None
        if stderr is not None and difference is not None:
            low, high = difference - z * stderr, difference + z * stderr
            interval = [low, high] if math.isfinite(low) and math.isfinite(high) else None
        out["per_test_case_difference"] = {
            "test_cases": len(both),
            "base_mean": exact_mean(base[case] for case in both),
            "new_mean": exact_mean(new[case] for case in both),
            "difference": difference,
            "stderr": stderr,
            "interval": interval,
        }
    return out
