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

from ..summary.cases import Reducer, Value, compact_value, exact_mean, grader_view, keep_value, listed, reducers, standard_error


class ValuesMissed(Exception):
    """A row carrying ``attempt`` came after rows whose values were not kept (a run's view exists only when its
    rows carry attempts, so values are kept from the first such row on): compare again, keeping every value."""


class CaseValues:
    """One run's scored values per grader and test case, in reading order. ``Comparer._scan`` hands each value on
    as it reads the row (one pass over its grader results); a test case's only value is held as itself, its values
    as a list from the second, and a pass or fail score of an early attempt without a raw value is one shared tuple
    (most test cases of most graders): the memory the view costs per test case."""

    __slots__ = ("has_attempts", "keep_all", "skipped", "values")

    def __init__(self, keep_all: bool = False) -> None:
        self.has_attempts = False  # the summary's per-test-case view exists only when some row carries `attempt`
        # values are kept once a row carries `attempt` (a run of single attempts pays nothing), or all of them
        # (``keep_all``) when a compare starts over because an `attempt` came after values that were skipped
        self.keep_all = keep_all
        self.skipped = False
        self.values: dict[str, dict[str, Value | list[Value]]] = {}  # grader id -> test case id -> its values

    def attempts_seen(self) -> None:
        """A row carries `attempt`: the run has a view; raises ``ValuesMissed`` when values were skipped before."""
        self.has_attempts = True
        if self.skipped:
            raise ValuesMissed

    def keep(self, grader_id: str, case: str, attempt: int, score: float, raw: Any) -> None:
        """One scored value of a row that did not error (its raw value as the row holds it)."""
        if not (self.has_attempts or self.keep_all):
            self.skipped = True
            return
        if raw is not None:
            raw = _number(raw)
            if raw is not None and not math.isfinite(raw):
                raw = None
        by_case = self.values.get(grader_id)
        if by_case is None:
            by_case = self.values[grader_id] = {}
        keep_value(by_case, case, compact_value(attempt, score, raw))  # as the summary keeps them

    def by_case(self, grader_id: str) -> dict[str, list[Value]]:
        """The grader's values per test case, each as a list."""
        return {case: listed(held) for case, held in self.values.get(grader_id, {}).items()}


def _number(value: Any) -> float | None:
    """A JSON number as a double (an integer past the doubles is no value: a document that is not valid)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def grader_fields(sides: tuple[CaseValues, CaseValues], provenance: tuple[Any, Any], grader_id: str, z: float) -> dict[str, Any]:
    """The per-test-case members of one grader's ``GraderDelta``: each side's view where its rows carry
    ``attempt``, and their paired difference where both do."""
    out: dict[str, Any] = {}
    per_side: list[dict[str, float]] = []
    for name, side, declared in zip(("base", "new"), sides, provenance):
        if not side.has_attempts:
            continue
        reducer = reducers(declared).get(grader_id) or Reducer()
        by_case = side.by_case(grader_id)
        scores: list[float | None] = []
        out[f"{name}_per_test_case"] = grader_view(by_case.values(), reducer, scores)
        per_side.append({case: value for case, value in zip(by_case, scores) if value is not None})
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
