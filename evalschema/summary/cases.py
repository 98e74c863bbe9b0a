"""The per-test-case view of a grader (SPEC §4.7): its values over the attempts at one test case reduce to one value
by the grader's declared reducer (``graders.<id>.reducer`` of the result set; ``mean`` without one), then test cases
are averaged, with the standard error of that mean; the same for the source's raw values where a grader has them.

Every mean here is exact, rounded once (as the rest of the summary), and every other step a single IEEE operation
in a fixed order, so the TypeScript SDK (``js/src/summary/cases.ts``) gives the same doubles.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from ..schemas.registry import current


@cache
def reducer_methods() -> frozenset[str]:
    """The methods the schemas' ``ReducerMethod`` enumerates, read from the working schemas (already loaded to
    validate), not from the generated models: importing pydantic costs start-up a small document must not pay."""
    common = next(d for d in current().documents.values() if d.get("$id", "").endswith("/common.json"))
    return frozenset(common["$defs"]["ReducerMethod"]["enum"])


# One value of a grader at one attempt: (attempt, score, raw value or None), in reading order.
Value = tuple[int, float, float | None]

# the values most test cases hold (a pass or a fail score of an early attempt, no raw value): one shared tuple each,
# not a tuple and a float per test case (88 bytes; most graders score 0 or 1)
_PASS_FAIL: tuple[tuple[Value, Value], ...] = tuple(((a, 0.0, None), (a, 1.0, None)) for a in range(1, 9))


def compact_value(attempt: int, score: float, raw: float | None) -> Value:
    """One value as the per-test-case views keep it (a shared tuple for the common ones)."""
    if raw is None and 0 < attempt <= len(_PASS_FAIL) and (score == 1.0 or (score == 0.0 and math.copysign(1.0, score) > 0)):
        return _PASS_FAIL[attempt - 1][score == 1.0]
    return (attempt, score, raw)


def keep_value(by_case: dict[str, Any], case: str, value: Value) -> None:
    """Keep one more value of a test case: its only value as itself (most test cases have one attempt; a list of one
    costs 88 bytes more per test case, a fifth of an import's memory per test case), its values as a list after."""
    held = by_case.get(case)
    if held is None:
        by_case[case] = value
    elif type(held) is tuple:
        by_case[case] = [held, value]
    else:
        held.append(value)


def listed(held: Value | list[Value]) -> list[Value]:
    """A test case's values as ``keep_value`` holds them, as a list."""
    return [held] if type(held) is tuple else held  # type: ignore[return-value]


_UNITS = 1074  # every double is a whole number of units of 2**-1074 (see states._ratio)
_BEYOND = 2**1024 - 2**970  # a sum this large (in doubles' terms) has no double mean: see states._BEYOND_DOUBLES


def exact_mean(values: Iterable[float]) -> float | None:
    """The mean of doubles: their exact sum divided by their count, rounded once; ``None`` for none. Infinite values
    (a median of huge scores, in a document that is not valid) count in the denominator and make the mean infinite
    (NaN with both signs), as a sum of doubles would (the TypeScript ``Mean``)."""
    total = count = 0
    up = down = False
    for value in values:
        count += 1
        if value == math.inf:
            up = True
        elif value == -math.inf:
            down = True
        elif value != value:  # NaN
            up = down = True
        else:
            numerator, denominator = value.as_integer_ratio()
            total += numerator << (_UNITS - (denominator.bit_length() - 1))
    if not count:
        return None
    if abs(total) >= _BEYOND << _UNITS:
        mean = math.inf if total > 0 else -math.inf
    else:
        mean = total / (count << _UNITS)
    if up:
        mean += math.inf
    if down:
        mean -= math.inf
    return mean


class Reducer:
    """A grader's declared reducer, read defensively from the result set's ``graders`` (an unknown or malformed
    one is ``mean``: the summary of a document that is not valid still runs)."""

    __slots__ = ("k", "method", "threshold")

    def __init__(self, declared: Any = None) -> None:
        declared = declared if isinstance(declared, dict) else {}
        method = declared.get("method")
        self.method: str = method if isinstance(method, str) and method in reducer_methods() else "mean"
        k = declared.get("k", 1)
        self.k: int = k if type(k) is int and k >= 1 else 1
        threshold = declared.get("threshold", 1)
        self.threshold: float = float(threshold) if isinstance(threshold, (int, float)) and not isinstance(threshold, bool) else 1.0

    @property
    def keeps_scale(self) -> bool:
        return self.method not in ("at_least", "pass_at")

    def reduce(self, values: Sequence[float], counted: Sequence[float]) -> float | None:
        """One test case's values (by attempt, ties in reading order) to one value; ``counted``: the values compared
        with the threshold (the raw ones where the grader has them)."""
        method = self.method
        if method == "mean":
            return exact_mean(values)
        if method == "median":
            ordered = sorted(values)
            middle = len(ordered) // 2
            return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
        if method == "mode":
            return Counter(values).most_common(1)[0][0]
        if method == "max":
            return max(values)
        if method == "min":
            return min(values)
        n, reached = len(counted), sum(1 for value in counted if value >= self.threshold)
        if method == "at_least":
            return 1.0 if reached >= self.k else 0.0
        # pass_at: the unbiased estimator of pass@k (Chen et al. 2021), as a product in ascending order
        if n < self.k:
            return None
        if n - reached < self.k:
            return 1.0
        product = 1.0
        for i in range(n - reached + 1, n + 1):
            product *= 1.0 - self.k / i
        return 1.0 - product


def reducers(provenance: Any) -> dict[str, Reducer]:
    """Each grader's declared reducer, from a result set's ``graders`` member (anything else declares none)."""
    if not isinstance(provenance, dict):
        return {}
    return {
        grader_id: Reducer(entry.get("reducer"))
        for grader_id, entry in provenance.items()
        if isinstance(entry, dict) and isinstance(entry.get("reducer"), dict)
    }


def grader_view(per_case: Iterable[list[Value]], reducer: Reducer, reduced_scores: list[float | None] | None = None) -> dict[str, Any]:
    """The per-test-case metrics of one grader, from its values grouped by test case; each test case's reduced
    score (``None`` when it has none) is appended to ``reduced_scores`` when given (compare pairs them, SPEC 12.4)."""
    scores: list[float] = []
    raws: list[float] = []
    has_raw = False
    for values in per_case:
        ordered = sorted(values, key=lambda value: value[0])  # stable: equal attempts keep reading order
        raw_values = [raw for _, _, raw in ordered if raw is not None]
        has_raw = has_raw or bool(raw_values)
        counted = [raw if raw is not None else score for _, score, raw in ordered]
        reduced = reducer.reduce([score for _, score, _ in ordered], counted)
        if reduced_scores is not None:
            reduced_scores.append(reduced)
        if reduced is not None:
            scores.append(reduced)
        if raw_values and reducer.keeps_scale:
            reduced_raw = reducer.reduce(raw_values, raw_values)
            if reduced_raw is not None:
                raws.append(reduced_raw)
    mean = exact_mean(scores)
    view: dict[str, Any] = {"reducer": reducer.method, "test_cases": len(scores), "avg_score": mean, "stderr": standard_error(scores, mean)}
    if has_raw and reducer.keeps_scale:
        raw_mean = exact_mean(raws)
        view["avg_raw_score"] = raw_mean
        view["raw_stderr"] = standard_error(raws, raw_mean)
    return view


def standard_error(values: Sequence[float], mean: float | None) -> float | None:
    """sqrt(S / (n - 1)) / sqrt(n), where S is the exact sum of the squared deviations (each rounded) from ``mean``
    and S / (n - 1) is rounded once; ``None`` for fewer than two values, or when a mean or a square is not finite."""
    n = len(values)
    if n < 2 or mean is None or not math.isfinite(mean):
        return None
    total = 0
    for value in values:
        deviation = value - mean
        square = deviation * deviation  # (not ** 2, which raises on overflow)
        if not math.isfinite(square):
            return None  # beyond doubles (huge scores, in a document that is not valid): no standard error
        numerator, denominator = square.as_integer_ratio()
        total += numerator << (_UNITS - (denominator.bit_length() - 1))
    if total >= _BEYOND << _UNITS:
        return None
    return math.sqrt(total / ((n - 1) << _UNITS)) / math.sqrt(n)
