"""The reference summary of a result set (SPEC.md, "The outcome model").

Each row is classified once, in precedence order: errored (has ``error``) > invalidated (an invalidating
constraint violation) > unscored (no grader result with a score) > passed / failed (its ``passed``).
Errored and unscored rows leave the pass-rate and score denominators; invalidated rows stay, as failures
with a row score of 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any, Literal

from ..io.compact import KeyTable
from .cases import Reducer, Value, compact_value, exact_mean, grader_view, keep_value, listed, reducers

Outcome = Literal["passed", "failed", "invalidated", "errored", "unscored"]


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _score(grader_result: dict[str, Any]) -> float | None:
    score = grader_result.get("score")
    if type(score) is float:  # the common case first: this runs for every grader result
        return score
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return None
    return float(score)


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


# Sums of scores are kept exact, as integers in units of 2**-scale: integer addition is associative, so the sum of
# any partition of the rows, merged in any grouping, is the same number, and a mean is that exact sum divided by the
# count, rounded once (Python's int / int is correctly rounded). Every double is n / 2**k exactly, for an integer n
# and 0 <= k <= 1074 (2**-1074, the smallest double, needs the most). A builder's scale is the largest k its values
# have needed so far: it only grows, and its sums are shifted along when it does. Scores such as 0.77 need k of 60 or
# so: a value's units are then ``int(value * 2.0**scale)`` (multiplying by a power of two is exact), and the sums a
# few machine words long. In fixed units of 2**-1074, working out each value's units (``as_integer_ratio`` and a
# 1,100-bit shift) and adding them took about half of the summary's time.
_UNIT_BITS = 1074


def _ratio(value: float) -> tuple[int, int]:
    """``value`` (finite) as (n, k) with ``value == n / 2**k`` exactly and k >= 0."""
    numerator, denominator = value.as_integer_ratio()
    return numerator, denominator.bit_length() - 1


def _exact(value: float) -> int:
    """``value`` (finite) as an integer number of units of 2**-1074, exactly."""
    numerator, k = _ratio(value)
    return numerator << (_UNIT_BITS - k)


# A sum from this much on (times 2**scale) is beyond the largest double: summed as doubles (as the TypeScript SDK
# does, and as the summary did before sums were exact), it is infinite, and so is the mean. Deciding it on the exact
# sum keeps merging associative; it agrees with a sum of doubles whenever the partial sums grow with the rows (scores
# of one sign), and every valid result set's scores are far below it.
_BEYOND_DOUBLES = 2**1024 - 2**970
_LARGEST_EXPONENT = 1023  # 2.0**1023 is a double, 2.0**1024 is not


def _mean(total: int, count: int, scale: int = _UNIT_BITS) -> float:
    """The mean of ``count`` (> 0) values whose exact sum is ``total`` units of 2**-scale, rounded once."""
    if total.bit_length() >= 1024 + scale and abs(total) >= _BEYOND_DOUBLES << scale:
        return math.inf if total > 0 else -math.inf
    return total / (count << scale)


def _exact_mean(total: int, count: int, scale: int = _UNIT_BITS) -> float | None:
    return _mean(total, count, scale) if count else None


def classify(result: dict[str, Any]) -> Outcome:
    """The outcome of one result row."""
    if "error" in result:
        return "errored"
    if any(v.get("invalidates_result") is True for v in _objects(result.get("constraint_violations"))):
        return "invalidated"
    if not any(_score(g) is not None for g in _objects(result.get("grader_results"))):
        return "unscored"
    return "passed" if result.get("passed") is True else "failed"


def attempt_number(result: dict[str, Any]) -> int:
    """The attempt of a row: its ``attempt`` when that is a whole number (``2.0`` is 2, as in JSON), else 1."""
    attempt = result.get("attempt", 1)
    if isinstance(attempt, bool) or not isinstance(attempt, (int, float)):
        return 1
    return int(attempt) if float(attempt).is_integer() else 1


class GraderTotals:
    """One grader's counts in a summary being built (a plain class, not a dataclass: start-up, ``evalschema.__main__``)."""

    __slots__ = ("failed", "passed", "score_sum", "unscored")

    def __init__(self, passed: int = 0, failed: int = 0, unscored: int = 0, score_sum: int = 0) -> None:
        self.passed = passed  # scored results that passed
        self.failed = failed  # scored results that did not
        self.unscored = unscored
        self.score_sum = score_sum  # exact, in units of 2**-scale of the builder it belongs to (see _ratio)

    @property
    def scored(self) -> int:
        return self.passed + self.failed

    def absorb(self, other: GraderTotals, shift: int = 0) -> None:
        """Add ``other``'s counts; its score sum is in units ``2**shift`` times as coarse as this one's."""
        self.passed += other.passed
        self.failed += other.failed
        self.unscored += other.unscored
        self.score_sum += other.score_sum << shift

    def to_dict(self, scale: int) -> dict[str, Any]:
        average = _exact_mean(self.score_sum, self.scored, scale)
        return {"passed": self.passed, "failed": self.failed, "unscored": self.unscored, "avg_score": average}


@dataclass(frozen=True)
class AttemptRollup:
    """Test cases over their attempts (a result set with attempts): how many have scored rows, and the share of those
    passed on the first attempt, on any attempt, on every attempt (``None`` when none has). (Its own docstring also
    spares the dataclass machinery making one from the signature, at start-up.)"""

    test_cases: int
    first_attempt_pass_rate: float | None
    any_pass_rate: float | None
    all_pass_rate: float | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "test_cases": self.test_cases,
            "first_attempt_pass_rate": self.first_attempt_pass_rate,
            "any_pass_rate": self.any_pass_rate,
            "all_pass_rate": self.all_pass_rate,
        }


@dataclass(frozen=True)
class Summary:
    """The reference numbers of a result set. ``to_dict()`` uses the schema's ``summary`` field names."""

    total: int
    passed: int
    failed: int
    skipped: int
    errored: int
    invalidated: int
    unscored: int
    pass_rate: float | None
    avg_score: float | None
    by_grader: dict[str, dict[str, Any]]
    attempts: AttemptRollup | None
    # each grader's scored values by test case (SPEC 4.7), kept so the per-test-case view can be computed again
    # for the reducers a result set declares (``for_graders``) when the rows were summarized before they were known
    case_values: dict[str, dict[str, Value | list[Value]]] = field(default_factory=dict, repr=False, compare=False)

    def for_graders(self, provenance: Any) -> Summary:
        """This summary with the per-test-case view reduced by the reducers ``provenance`` (a result set's
        ``graders``) declares."""
        by_grader = {grader_id: dict(totals) for grader_id, totals in self.by_grader.items()}
        _views(by_grader, self.case_values, provenance, self.attempts is not None)
        return replace(self, by_grader=by_grader)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "errored": self.errored,
            "invalidated": self.invalidated,
            "unscored": self.unscored,
            "pass_rate": self.pass_rate,
            "avg_score": self.avg_score,
            "by_grader": self.by_grader,
        }
        if self.attempts is not None:
            out["attempts"] = self.attempts.to_dict()
        return out


class _CaseAttempts:
    """What the attempt rollup needs of one test case's scored rows, whatever the number of attempts."""

    __slots__ = ("all_passed", "any_passed", "first_attempt", "first_passed")

    def __init__(self, first_attempt: int, first_passed: bool, any_passed: bool, all_passed: bool) -> None:
        self.first_attempt, self.first_passed, self.any_passed, self.all_passed = first_attempt, first_passed, any_passed, all_passed

    def add(self, attempt: int, passed: bool) -> None:
        if attempt < self.first_attempt:  # the earliest attempt counts; among equal ones, the first row read
            self.first_attempt, self.first_passed = attempt, passed
        self.any_passed = self.any_passed or passed
        self.all_passed = self.all_passed and passed

    def absorb(self, later: _CaseAttempts) -> None:
        """Combine with the rollup of rows read after this one's: on equal attempts the earlier row stays first."""
        if later.first_attempt < self.first_attempt:
            self.first_attempt, self.first_passed = later.first_attempt, later.first_passed
        self.any_passed = self.any_passed or later.any_passed
        self.all_passed = self.all_passed and later.all_passed

    def pack(self) -> int:
        return self.first_attempt << 3 | self.first_passed << 2 | self.any_passed << 1 | self.all_passed

    @classmethod
    def unpack(cls, packed: int) -> _CaseAttempts:
        return cls(packed >> 3, bool(packed & 4), bool(packed & 2), bool(packed & 1))

    @staticmethod
    def add_packed(packed: int, attempt: int, passed: bool) -> int:
        """``add`` on a packed rollup, giving the packed result (``attempt`` must pack: below 2**59 in size)."""
        if attempt < packed >> 3:  # the earliest attempt counts; among equal ones, the first row read
            packed = attempt << 3 | passed << 2 | (packed & 3)
        return packed | 2 if passed else packed & ~1

    @staticmethod
    def packed_flags(packed: int) -> tuple[int, int, int]:
        """(first_passed, any_passed, all_passed) of a packed rollup, as 0 or 1, without building it."""
        return packed >> 2 & 1, packed >> 1 & 1, packed & 1


# A test case's rollup fits one 64-bit integer when its attempt numbers are below 2**59 (always, in practice); a
# case with a larger one moves to a dict, leaving this mark in the table.
_PACKABLE = 1 << 59
_MOVED = -(1 << 63)


class SummaryBuilder:
    """The reference summary, one row at a time: memory holds counts per grader and per test case, never rows.

    ``summarize`` uses it over a whole document; the streaming validator feeds it rows as they are read.

    A builder is also a *partial state* of the summary of a longer sequence of rows: :func:`merge` combines the
    states of consecutive parts (the rows of the first, then those of the second), and an empty builder is its
    identity. Merging is associative — any split of the rows into parts, merged in any grouping, gives the summary
    of reading them all in one pass — but not commutative: parts keep their reading order, because on equal
    attempts of a test case the row read first is its first attempt (SPEC 4.4, "ties keep document order").
    States pickle, so parts can be summarized in other processes.
    """

    def __init__(self, *, compact: bool = False) -> None:
        # ``compact`` (for rows that are streamed, not held): per-test-case state in a KeyTable, packed into one
        # integer per case, a third of the memory of a dict of objects and a few times slower
        self.compact = compact
        self.counts = dict.fromkeys(("passed", "failed", "invalidated", "errored", "unscored"), 0)
        self.scale = 0  # the unit of every score sum of this builder: 2**-scale (see _ratio)
        self.per_unit = 1.0  # 2.0**scale; infinite past the largest double, which sends every value the long way
        self.score_sum = 0  # exact
        self.infinite_rows = [0, 0]  # rows whose score is infinite: +inf, -inf (see _BEYOND_DOUBLES)
        self.scored_rows = 0
        self.graders: dict[str, GraderTotals] = {}
        self.has_attempts = False
        self.case_records: dict[str, _CaseAttempts] = {}
        self.cases = KeyTable()  # compact: test case id -> its packed _CaseAttempts
        self.wide_cases: dict[bytes, _CaseAttempts] = {}  # compact: the cases whose attempts do not pack
        self.case_values: dict[str, dict[str, Value | list[Value]]] = {}  # grader id -> test case id -> its scored values (keep_value)
        self.provenance: Any = None  # the result set's ``graders``, when known: the reducers it declares (SPEC 4.7)

    def add(self, result: dict[str, Any]) -> Outcome:
        """Count one row and return its outcome (``classify``'s, in one pass over its grader results: this runs
        once per row of every result set that is summarized or checked against a claimed summary)."""
        counts = self.counts
        if "attempt" in result:
            self.has_attempts = True
        if "error" in result:
            counts["errored"] += 1
            return "errored"
        case = result.get("test_case_id")
        attempt = result.get("attempt", 1)
        if type(attempt) is not int:
            attempt = attempt_number(result)
        by_case = self.case_values
        total = scored = 0  # the exact sum of the row's scores (in units of 2**-scale), and their number
        grader_results = result.get("grader_results")
        if isinstance(grader_results, list):
            graders = self.graders
            for grader_result in grader_results:
                if not isinstance(grader_result, dict):
                    continue
                value = grader_result.get("score")
                if type(value) is not float:  # floats are the common case; anything else goes the long way
                    value = _score(grader_result)
                if value is not None:
                    scaled = value * self.per_unit
                    if scaled.is_integer():  # the value's units at this scale, exactly
                        exact = int(scaled)
                    else:  # a value finer than the scale (or the scale past doubles)
                        scale = self.scale
                        exact = self._units_of(value)
                        total <<= self.scale - scale  # the row's sum so far, at the scale the value needed
                    total += exact
                    scored += 1
                grader_id = grader_result.get("grader_id")
                if not isinstance(grader_id, str):
                    continue
                totals = graders.get(grader_id)
                if totals is None:
                    totals = graders[grader_id] = GraderTotals()
                if value is None:
                    totals.unscored += 1
                else:
                    if isinstance(case, str):
                        raw = grader_result.get("raw_score")
                        if type(raw) is not float:
                            raw = float(raw) if isinstance(raw, int) and not isinstance(raw, bool) else None
                        if raw is not None and not math.isfinite(raw):
                            raw = None
                        values = by_case.get(grader_id)
                        if values is None:
                            values = by_case[grader_id] = {}
                        keep_value(values, case, compact_value(attempt, value, raw))
                    totals.score_sum += exact
                    if grader_result.get("passed") is True:
                        totals.passed += 1
                    else:
                        totals.failed += 1
        outcome: Outcome
        violations = result.get("constraint_violations")
        if violations and any(v.get("invalidates_result") is True for v in _objects(violations)):
            outcome, score = "invalidated", 0.0
        elif not scored:
            counts["unscored"] += 1
            return "unscored"
        else:
            outcome = "passed" if result.get("passed") is True else "failed"
            score = _mean(total, scored, self.scale) if scored > 1 else total / (1 << self.scale)  # one score: its own value
        counts[outcome] += 1
        if score:
            if math.isinf(score):
                self.infinite_rows[score < 0] += 1
            else:
                if scored == 1:
                    self.score_sum += total
                else:
                    mean_units = self._units_of(score)  # before the sum is read: it may move it to a finer scale
                    self.score_sum += mean_units
        self.scored_rows += 1
        if isinstance(case, str):
            passed = outcome == "passed"
            if self.compact:
                self._add_packed(case.encode("utf-8", "surrogatepass"), attempt, passed)
            else:
                record = self.case_records.get(case)
                if record is None:
                    self.case_records[case] = _CaseAttempts(attempt, passed, passed, passed)
                else:
                    record.add(attempt, passed)
        return outcome

    def _units_of(self, value: float) -> int:
        """``value`` (finite) in units of 2**-scale, exactly: the scale first made fine enough for it. (``add``
        inlines the first step for grader scores, the common case.)"""
        scaled = value * self.per_unit
        if scaled.is_integer():
            return int(scaled)
        numerator, k = _ratio(value)
        if k > self.scale:
            self._rescale(k)
        return numerator << (self.scale - k)

    def _rescale(self, scale: int) -> None:
        """Every score sum in units of 2**-scale (finer than now)."""
        shift = scale - self.scale
        self.score_sum <<= shift
        for totals in self.graders.values():
            totals.score_sum <<= shift
        self.scale = scale
        self.per_unit = math.ldexp(1.0, scale) if scale <= _LARGEST_EXPONENT else math.inf

    def _add_packed(self, case: bytes, attempt: int, passed: bool) -> None:
        """``_CaseAttempts.add`` on the packed rollup (see ``pack``), changing the table only when the rollup
        changes: most later attempts leave it as it was."""
        fits = -_PACKABLE <= attempt < _PACKABLE
        first = attempt << 3 | passed * 7  # its first row's rollup, packed: ``_CaseAttempts(attempt, passed, passed, passed)``
        packed, added = self.cases.setdefault(case, first if fits else _MOVED)
        if added and fits:
            return
        if packed == _MOVED:
            record = self.wide_cases.get(case)
            if record is None:
                self.wide_cases[case] = _CaseAttempts(attempt, passed, passed, passed)
            else:
                record.add(attempt, passed)
            return
        if not fits:
            record = _CaseAttempts.unpack(packed)
            record.add(attempt, passed)
            self.cases.replace(case, _MOVED)
            self.wide_cases[case] = record
            return
        changed = _CaseAttempts.add_packed(packed, attempt, passed)
        if changed != packed:
            self.cases.replace(case, changed)

    def _case_rollups(self) -> Iterator[tuple[str, _CaseAttempts]]:
        """Every test case's rollup, keyed by its id, in either mode."""
        yield from self.case_records.items()
        for key, record in self.wide_cases.items():
            yield key.decode("utf-8", "surrogatepass"), record
        for key, packed in self.cases.items():
            if packed != _MOVED:
                yield key.decode("utf-8", "surrogatepass"), _CaseAttempts.unpack(packed)

    def absorb(self, later: SummaryBuilder) -> None:
        """Make this the state of this state's rows followed by ``later``'s (``later`` is left unchanged)."""
        for outcome, count in later.counts.items():
            self.counts[outcome] += count
        if later.scale > self.scale:
            self._rescale(later.scale)
        shift = self.scale - later.scale
        self.score_sum += later.score_sum << shift
        self.infinite_rows = [mine + theirs for mine, theirs in zip(self.infinite_rows, later.infinite_rows, strict=True)]
        self.scored_rows += later.scored_rows
        for grader_id, theirs in later.graders.items():
            self.graders.setdefault(grader_id, GraderTotals()).absorb(theirs, shift)
        self.has_attempts = self.has_attempts or later.has_attempts
        self._declare(later.provenance)
        for grader_id, theirs_by_case in later.case_values.items():
            mine_by_case = self.case_values.setdefault(grader_id, {})
            for case, values in theirs_by_case.items():
                for value in listed(values):
                    keep_value(mine_by_case, case, value)
        for case, record in later._case_rollups():
            record = _CaseAttempts(record.first_attempt, record.first_passed, record.any_passed, record.all_passed)
            if self.compact:
                key = case.encode("utf-8", "surrogatepass")
                fits = -_PACKABLE <= record.first_attempt < _PACKABLE
                packed, added = self.cases.setdefault(key, record.pack() if fits else _MOVED)
                if added and fits:
                    continue
                if packed == _MOVED:
                    mine = self.wide_cases.get(key)
                    if mine is None:
                        self.wide_cases[key] = record
                    else:
                        mine.absorb(record)
                    continue
                mine = _CaseAttempts.unpack(packed)
                mine.absorb(record)
                if -_PACKABLE <= mine.first_attempt < _PACKABLE:
                    self.cases.replace(key, mine.pack())
                else:
                    self.cases.replace(key, _MOVED)
                    self.wide_cases[key] = mine
            else:
                mine = self.case_records.get(case)
                if mine is None:
                    self.case_records[case] = record
                else:
                    mine.absorb(record)

    def _declare(self, later: Any) -> None:
        """Take on the graders ``later`` (the ``graders`` of rows read after this state's) declares: a grader keeps
        the first declaration read, so the rows of several result sets (a cluster's merged summary) reduce each
        grader by what the first result set that declares it says, whatever the grouping of the merges."""
        if not isinstance(later, dict):
            if self.provenance is None:
                self.provenance = later
            return
        if not isinstance(self.provenance, dict):
            self.provenance = dict(later)
            return
        for grader_id, entry in later.items():
            self.provenance.setdefault(grader_id, entry)

    def _average(self) -> float | None:
        """The mean row score: exact, unless a row's score or the sum is beyond doubles (then as a sum of doubles
        gives it: infinite, or NaN when both infinities are there)."""
        average = _exact_mean(self.score_sum, self.scored_rows, self.scale)
        up, down = self.infinite_rows
        if up:
            average = (average or 0.0) + math.inf
        if down:
            average = (average or 0.0) - math.inf
        return average

    def build(self) -> Summary:
        counts = self.counts
        skipped = counts["errored"] + counts["unscored"]
        failed = counts["failed"] + counts["invalidated"]
        attempts = None
        if self.has_attempts:
            # counted case by case: a list of every test case's rollup would be the largest thing in memory
            scored = first = any_passed = all_passed = 0
            for case in chain(self.case_records.values(), self.wide_cases.values()):
                scored, first = scored + 1, first + case.first_passed
                any_passed, all_passed = any_passed + case.any_passed, all_passed + case.all_passed
            for packed in self.cases.values():
                if packed != _MOVED:
                    flags = _CaseAttempts.packed_flags(packed)
                    scored, first = scored + 1, first + flags[0]
                    any_passed, all_passed = any_passed + flags[1], all_passed + flags[2]
            attempts = AttemptRollup(
                test_cases=scored,
                first_attempt_pass_rate=_rate(first, scored),
                any_pass_rate=_rate(any_passed, scored),
                all_pass_rate=_rate(all_passed, scored),
            )
        by_grader = {grader_id: self.graders[grader_id].to_dict(self.scale) for grader_id in sorted(self.graders)}
        _views(by_grader, self.case_values, self.provenance, self.has_attempts)
        return Summary(
            total=sum(counts.values()),
            passed=counts["passed"],
            failed=failed,
            skipped=skipped,
            errored=counts["errored"],
            invalidated=counts["invalidated"],
            unscored=counts["unscored"],
            pass_rate=_rate(counts["passed"], counts["passed"] + failed),
            avg_score=self._average(),
            by_grader=by_grader,
            attempts=attempts,
            case_values=self.case_values,
        )


def merge(states: Iterable[SummaryBuilder], *, compact: bool = False) -> SummaryBuilder:
    """The state of the rows of ``states``, in their order, one after another (a new state; the inputs are left
    unchanged). ``merge([])`` is the identity, an empty state."""
    merged = SummaryBuilder(compact=compact)
    for state in states:
        merged.absorb(state)
    return merged


def _views(
    by_grader: dict[str, dict[str, Any]], case_values: dict[str, dict[str, Value | list[Value]]], provenance: Any, attempts: bool
) -> None:
    """Add to each grader's totals the mean raw value (where its results carry raw values) and, when rows carry
    attempts, its per-test-case view by the reducer ``provenance`` declares for it (SPEC 4.7)."""
    declared = reducers(provenance)
    for grader_id, totals in by_grader.items():
        per_case = [listed(values) for values in case_values.get(grader_id, {}).values()]
        raws = [raw for values in per_case for _, _, raw in values if raw is not None]
        totals.pop("per_test_case", None)
        totals.pop("avg_raw_score", None)
        if raws:
            totals["avg_raw_score"] = exact_mean(raws)
        if attempts:
            totals["per_test_case"] = grader_view(per_case, declared.get(grader_id) or Reducer())


def summarize(resultset: dict[str, Any]) -> Summary:
    """Compute the reference summary of a result set (rows that are not objects are ignored); the per-test-case
    view follows the reducers its ``graders`` declare."""
    builder = SummaryBuilder()
    builder.provenance = resultset.get("graders")
    for result in _objects(resultset.get("results")):
        builder.add(result)
    return builder.build()
