"""The reference summary of a result set (SPEC.md, "The outcome model").

Each row is classified once, in precedence order: errored (has ``error``) > invalidated (an invalidating
constraint violation) > unscored (no grader result with a score) > passed / failed (its ``passed``).
Errored and unscored rows leave the pass-rate and score denominators; invalidated rows stay, as failures
with a row score of 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

Outcome = Literal["passed", "failed", "invalidated", "errored", "unscored"]


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _score(grader_result: dict[str, Any]) -> float | None:
    score = grader_result.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return None
    return float(score)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


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


def row_score(result: dict[str, Any], outcome: Outcome) -> float | None:
    if outcome == "invalidated":
        return 0.0
    if outcome in ("errored", "unscored"):
        return None
    return _mean([s for g in _objects(result.get("grader_results")) if (s := _score(g)) is not None])


@dataclass
class GraderTotals:
    passed: int = 0
    failed: int = 0
    unscored: int = 0
    scores: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "failed": self.failed, "unscored": self.unscored, "avg_score": _mean(self.scores)}


@dataclass(frozen=True)
class AttemptRollup:
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


def _attempt_rollup(rows: list[tuple[dict[str, Any], Outcome]]) -> AttemptRollup | None:
    if not any("attempt" in result for result, _ in rows):
        return None
    per_case: dict[str, list[tuple[int, Outcome]]] = {}
    for result, outcome in rows:
        case = result.get("test_case_id")
        if not isinstance(case, str) or outcome in ("errored", "unscored"):
            continue
        per_case.setdefault(case, []).append((attempt_number(result), outcome))
    cases = [sorted(attempts, key=lambda pair: pair[0]) for attempts in per_case.values()]
    scored = len(cases)
    return AttemptRollup(
        test_cases=scored,
        first_attempt_pass_rate=_rate(sum(1 for c in cases if c[0][1] == "passed"), scored),
        any_pass_rate=_rate(sum(1 for c in cases if any(o == "passed" for _, o in c)), scored),
        all_pass_rate=_rate(sum(1 for c in cases if all(o == "passed" for _, o in c)), scored),
    )


def summarize(resultset: dict[str, Any]) -> Summary:
    """Compute the reference summary of a result set (rows that are not objects are ignored)."""
    rows = [(result, classify(result)) for result in _objects(resultset.get("results"))]
    counts = {outcome: 0 for outcome in ("passed", "failed", "invalidated", "errored", "unscored")}
    row_scores: list[float] = []
    graders: dict[str, GraderTotals] = {}
    for result, outcome in rows:
        counts[outcome] += 1
        score = row_score(result, outcome)
        if score is not None:
            row_scores.append(score)
        if outcome == "errored":
            continue
        for grader_result in _objects(result.get("grader_results")):
            grader_id = grader_result.get("grader_id")
            if not isinstance(grader_id, str):
                continue
            totals = graders.setdefault(grader_id, GraderTotals())
            value = _score(grader_result)
            if value is None:
                totals.unscored += 1
            else:
                totals.scores.append(value)
                if grader_result.get("passed") is True:
                    totals.passed += 1
                else:
                    totals.failed += 1
    skipped = counts["errored"] + counts["unscored"]
    failed = counts["failed"] + counts["invalidated"]
    return Summary(
        total=len(rows),
        passed=counts["passed"],
        failed=failed,
        skipped=skipped,
        errored=counts["errored"],
        invalidated=counts["invalidated"],
        unscored=counts["unscored"],
        pass_rate=_rate(counts["passed"], counts["passed"] + failed),
        avg_score=_mean(row_scores),
        by_grader={grader_id: graders[grader_id].to_dict() for grader_id in sorted(graders)},
        attempts=_attempt_rollup(rows),
    )
