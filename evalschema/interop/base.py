"""The import pipeline every importer plugs into: a sink for graders, test cases and rows, and the mapping
helpers the importers share (score mapping, the outcome rule for ``passed``, metadata keys).

Metadata: whatever a source holds that has no field of its own in evalschema is kept under ``metadata`` with
the key prefix ``<format>.`` (``inspect_ai.``, ``promptfoo.``, ``lm_eval.``, ``openai_evals.``, ``deepeval.``):
a tool prefix, as the schemas recommend.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from ..core.rfc3339 import is_date_time
from .common import ConversionError, LossReport, ResultSetWriter, SuiteWriter

PASS_THRESHOLD = 1.0  # a numeric score with no threshold in the source passes only at full credit
# I-JSON (RFC 7493, 2.2): the largest integer every JSON reader holds exactly. A count or a duration beyond it is
# not a measurement but noise (or an attack: 1e300 would not even fit the 64 bits the writer can hold)
SAFE_INTEGER = 2**53 - 1


@dataclass
class Headers:
    resultset: dict[str, Any]
    suite: dict[str, Any]


class Sink:
    """Receives one import: the headers first, then graders, test cases and rows in any order."""

    def __init__(self, stream: IO[bytes], format: str, loss: LossReport) -> None:
        self.stream = stream
        self.format = format
        self.loss = loss
        self.suite = SuiteWriter()
        self.writer: ResultSetWriter | None = None
        self.headers: Headers | None = None
        self.summary: dict[str, Any] | None = None
        self.declared: dict[str, tuple[str, ...]] = {}
        self.interned: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.spelled: dict[str, str | int] = {}  # each test case id made by case_id(): the source's id
        self.contents: dict[str, bytes] = {}  # each test case id's content digest: an id seen again must be the same case

    def start(self, resultset: dict[str, Any], suite: dict[str, Any]) -> None:
        assert self.writer is None
        suite.setdefault("id", resultset["suite_id"])
        self.headers = Headers(resultset, suite)
        with _writable("", "(the result set's header)"):
            self.writer = ResultSetWriter(self.stream, resultset)

    def grader(self, grader: dict[str, Any]) -> None:
        if grader["id"] not in self.suite.graders:  # written at the end: a value the writer cannot hold is found now
            with _writable("", f"(grader {grader['id']})"):
                orjson.dumps(grader)
        self.suite.grader(grader)

    def test_case(self, case: dict[str, Any], *, distinct: bool = False) -> bool:
        """Add a test case; ``False`` when its id is there already (the first one is kept).

        ``distinct``: the importer's ids name one source test case each, so the same id again must be the same
        test case (a repeated run): one with another input or expected output is two source test cases merged into
        one, refused. (Not for Inspect, whose epochs of one sample id may carry other inputs.)"""
        with _writable("", f"(test case {case['id']})"):
            added = self.suite.test_case(case)
            asked = orjson.dumps([case.get("input"), case.get("expected_output")]) if distinct else b""
        content = hashlib.blake2b(asked, digest_size=16).digest() if distinct else b""
        if distinct and self.contents.setdefault(case["id"], content) != content:
            raise ConversionError(
                "IMPORT_NOT_FORMAT",
                "two different test cases of the source get the same test case id (their input or expected output "
                "differ); importing would keep one and lose the other",
                "",
                f"(test case {case['id']})",
            )
        if added and "graders" in case:
            self.declared[case["id"]] = self._intern(tuple(g for g in case["graders"] if isinstance(g, str)))
        return added

    def case_id(self, raw: str | int, source: str, where: str) -> str:
        """A source's sample id (text or a whole number) as a test case id: ``3`` and ``"3"`` are two samples
        whose ids have one text, refused (``IMPORT_NOT_FORMAT``) rather than merged into one test case."""
        text = str(raw)
        first = self.spelled.setdefault(text, raw)
        if type(first) is not type(raw):
            raise ConversionError(
                "IMPORT_NOT_FORMAT", f"sample ids {first!r} and {raw!r} are distinct samples with the same text", source, where
            )
        return text

    def _intern(self, ids: tuple[str, ...]) -> tuple[str, ...]:
        return self.interned.setdefault(ids, ids)

    def result(self, row: dict[str, Any], verdict: bool | None = None) -> None:
        """Write a row: ``passed`` decided by the outcome model, or the source's own ``verdict`` where the source
        has one (promptfoo's threshold and weights) — never true where the outcome model forbids it (an error, an
        invalidating violation, no scored result); a non-errored row gets an unscored result for each
        grader its test case lists but the source did not score (so the cross-document rules hold), and a
        placeholder grader ``<format>:none`` when the source scored nothing at all."""
        assert self.writer is not None, "start() first"
        case = row["test_case_id"]
        results = row.setdefault("grader_results", [])
        if "error" not in row:
            have = {g["grader_id"] for g in results}
            for grader_id in self.declared.get(case, ()):
                if grader_id not in have:
                    results.append({"grader_id": grader_id, "type": self.suite.graders[grader_id]["type"], "score": None, "passed": False})
                    self.loss.defaulted(
                        "", "(test case *)", "a grader of the test case has no result on a row: unscored", example=f"(test case {case})"
                    )
            if not results:
                placeholder = f"{self.format}:none"
                self.grader({"id": placeholder, "type": "custom", "params": {"handler": placeholder}})
                results.append({"grader_id": placeholder, "type": "custom", "score": None, "passed": False})
                self.loss.defaulted(
                    "", "(rows)", f"the source has no score for a row: one unscored result of the placeholder grader {placeholder}"
                )
        seen = self.suite.case_graders.get(case, ())
        ids = tuple(g["grader_id"] for g in results)
        if not set(ids) <= set(seen):
            self.suite.case_graders[case] = self._intern(tuple(sorted(set(seen) | set(ids))))
        row["passed"] = decide_passed(row) if verdict is None else verdict and decide_passed(row, verdict=True)
        with _writable("", f"(a row of test case {case})"):
            self.writer.add(row)

    def finish(self, source: str) -> dict[str, Any]:
        if self.writer is None or self.writer.rows == 0:
            raise ConversionError("IMPORT_EMPTY", "no samples or results to import", source)
        self.summary = self.writer.finish()
        return self.summary


class _writable:
    """Turns a value the JSON writer cannot hold (an integer beyond 64 bits, nesting deeper than the writer's
    recursion limit, a key that is not a string) into ``IMPORT_NOT_FORMAT`` naming where it was: a source value
    kept under ``metadata`` is written as the source had it, so the source decides whether it can be."""

    def __init__(self, source: str, where: str) -> None:
        self.source, self.where = source, where

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, trace: object) -> None:
        if isinstance(exc, (orjson.JSONEncodeError, RecursionError)):
            reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
            raise ConversionError("IMPORT_NOT_FORMAT", f"a value cannot be written as JSON: {reason}", self.source, self.where) from None


def decide_passed(row: dict[str, Any], *, verdict: bool = False) -> bool:
    """The outcome model's conventional policy (SPEC 4.1): a row passes when it has no error, no invalidating
    violation, at least one scored grader result, and every scored grader result passed. With ``verdict`` (the
    source decided), only what the outcome model requires of any passed row: no error, no invalidating
    violation, a scored grader result."""
    if "error" in row:
        return False
    if any(v.get("invalidates_result") is True for v in row.get("constraint_violations", [])):
        return False
    scored = [g for g in row.get("grader_results", []) if g.get("score") is not None]
    return bool(scored) and (verdict or all(g.get("passed") is True for g in scored))


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (sources are read defensively)."""
    return value if isinstance(value, dict) else {}


def arr(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def finite_number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


class Scales:
    """The scale of each grader whose values are all numbers and leave [0, 1] (a 1-10 rating): declared by the
    source (Inspect: a scorer's metadata ``scale: {min, max}`` or ``[min, max]``), else the smallest and largest
    values the source holds -- Inspect, lm-eval and OpenAI Evals declare no scale (reported as approximated)."""

    def __init__(self) -> None:
        self.low: dict[str, float] = {}
        self.high: dict[str, float] = {}
        self.declared: dict[str, dict[str, float]] = {}
        self.mixed: set[str] = set()  # graders with a value that is not a number (a letter, a bool): no scale

    def see(self, grader_id: str, value: Any) -> None:
        if isinstance(value, float) and math.isnan(value):
            return  # Inspect's unscored value
        number = finite_number(value)
        if number is None or isinstance(value, bool):
            self.mixed.add(grader_id)
            return
        self.low[grader_id] = min(number, self.low.get(grader_id, number))
        self.high[grader_id] = max(number, self.high.get(grader_id, number))

    def declare(self, scorer: dict[str, Any]) -> None:
        declared = (scorer.get("metadata") or {}).get("scale")
        if isinstance(declared, dict):
            low, high = finite_number(declared.get("min")), finite_number(declared.get("max"))
        elif isinstance(declared, list) and len(declared) == 2:
            low, high = finite_number(declared[0]), finite_number(declared[1])
        else:
            return
        if low is not None and high is not None and high > low:
            self.declared[str(scorer.get("name"))] = {"min": low, "max": high}

    def write_scales(
        self, resultset: dict[str, Any], loss: LossReport, source: str, pointer: str, reason: str
    ) -> dict[str, dict[str, float]]:
        """The scale of each grader whose values leave [0, 1], written into the result set's ``graders`` (before any
        row: a row's score is normalised by it) and each reported approximated (``reason``: why, after the grader's
        id), for a source that declares no scale."""
        scaled = {grader: scale for grader in sorted(self.low) if (scale := self.of(grader)) is not None}
        if scaled:
            resultset["graders"] = {grader: {"type": "custom", "scale": scale} for grader, scale in scaled.items()}
        for grader in scaled:
            loss.approximated(source, pointer, f"{grader}: {reason}")
        return scaled

    def of(self, grader_id: str) -> dict[str, float] | None:
        """The grader's scale, or ``None`` when its values all lie in [0, 1] (scores as they are)."""
        scorer = grader_id.split("/", 1)[0]
        if grader_id in self.declared or scorer in self.declared:
            return self.declared.get(grader_id) or self.declared[scorer]
        low, high = self.low.get(grader_id), self.high.get(grader_id)
        if low is None or high is None or (low >= 0.0 and high <= 1.0) or grader_id in self.mixed:
            return None  # scores as they are (A.0): a stray number among letters stays out of range, unscored
        return {"min": low, "max": high if high > low else low + 1}


LETTERS = {"C": (1.0, True), "I": (0.0, False), "P": (0.5, False), "N": (0.0, False)}


def map_score(
    value: Any, loss: LossReport, source: str, where: str, *, threshold: float | None = None, letters: bool = False
) -> tuple[float | None, bool, dict[str, Any]]:
    """A source score as (score in [0, 1] or None, passed, metadata to keep): the shared rules of Appendix A.

    - booleans: 1 / 0, passed when true;
    - numbers in [0, 1]: as they are, passed at ``threshold`` (or at full credit, approximated, when the source
      has none);
    - Inspect's letters (``letters=True``): C 1 pass, I 0, P 0.5 (partial credit does not pass), N 0 — approximated;
    - numeric strings: as numbers (approximated);
    - anything else (out-of-range numbers, other strings, lists, objects): unscored (``None``), the value kept
      in metadata under ``value`` (approximated).
    """
    if isinstance(value, bool):
        return (1.0 if value else 0.0), value, {}
    if letters and isinstance(value, str) and value in LETTERS:
        score, passed = LETTERS[value]
        loss.approximated(
            source, where, "Inspect letter value mapped to a number (C=1 pass, I=0, P=0.5, N=0); the letter is kept in metadata"
        )
        return score, passed, {"value": value}
    number = finite_number(value)
    if number is None and isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is not None and math.isfinite(number):
            loss.approximated(source, where, "numeric string score read as a number")
        else:
            number = None
    if number is not None and 0.0 <= number <= 1.0:
        if threshold is None:
            loss.approximated(source, where, "the source has no pass threshold: a numeric score passes only at 1.0")
            return number, number >= PASS_THRESHOLD, {}
        return number, number >= threshold, {}
    loss.approximated(source, where, "score outside [0, 1] or not a number: unscored (null), the value kept in metadata")
    return None, False, {"value": value}


def prefixed(prefix: str, values: dict[str, Any], skip: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """``values`` (minus ``skip`` and empty values) as metadata keys ``<prefix>.<key>``."""
    return {f"{prefix}.{k}": v for k, v in values.items() if k not in skip and v not in (None, {}, [], "")}


def text_or_default(value: Any, loss: LossReport, source: str, where: str, placeholder: str = "(empty)") -> str:
    if isinstance(value, str) and value:
        return value
    loss.defaulted(source, where, f"empty or missing input: the test case input is {placeholder!r} (input must be non-empty)")
    return placeholder


def name_of(path: Path) -> str:
    return path.name


def whole_ms(value: Any, scale: float, loss: LossReport, source: str, where: str) -> int | None:
    """A non-negative duration (``value`` × ``scale``) as whole milliseconds, or ``None`` when the source has none.
    One beyond :data:`SAFE_INTEGER` is dropped with a loss entry (no JSON reader holds it exactly)."""
    number = finite_number(value)
    if number is None or number < 0:
        return None
    ms = number * scale
    if not math.isfinite(ms) or ms > SAFE_INTEGER:
        loss.dropped(source, where, f"a duration beyond {SAFE_INTEGER} ms (the exact JSON integer range): dropped")
        return None
    return round(ms)


def from_epoch(seconds: float) -> str | None:
    """A Unix time as an RFC 3339 date-time in UTC, or ``None`` outside the years 1-9999 (which no date-time holds)."""
    try:
        moment = dt.datetime.fromtimestamp(seconds, dt.UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat().replace("+00:00", "Z")


def date_time(value: Any, loss: LossReport, source: str, where: str) -> str | None:
    """A source timestamp as a date-time ``validate`` accepts (the same checker,
    :func:`evalschema.core.rfc3339.is_date_time`), or ``None`` when it has none or none can be read from it.

    An ISO 8601 time Python reads but RFC 3339 does not write (a UTC offset with seconds, ``+05:30:15``; a space
    for ``T``; no offset, read as UTC) is converted to the same instant in UTC (approximated); anything else is
    ``None`` with a loss entry (the caller defaults it)."""
    if not isinstance(value, str) or not value:
        return None
    if is_date_time(value):
        return value
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is not None:
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=dt.UTC)
        try:
            text = moment.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
        except (OverflowError, ValueError):
            text = ""
        if is_date_time(text):
            loss.approximated(source, where, "a time RFC 3339 does not write (offset with seconds, no offset): the same instant in UTC")
            return text
    loss.dropped(source, where, "not an RFC 3339 date-time: not carried over")
    return None
