"""Pairing two result sets and computing their comparison (SPEC.md §12).

Memory holds compact per-key tables, never two parsed documents: the base run's rows go into a ``KeyTable``
keyed by (attempt, test case id) with a few machine-array columns per row; the new run's rows are then streamed
past it, each pair folded into per-test-case accumulators at once. The comparison document is built from those
tables by ``compare.document.build``; ``compare`` (two documents) and ``compare_files`` (two files, read in pieces)
are the two ways to feed one.
"""

from __future__ import annotations

import hashlib
import math
import struct
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..io.compact import KeyTable
from ..schemas.registry import schema_dir
from ..summary.states import attempt_number
from . import stats
from .cases import CaseValues

# a row's outcome (SPEC §4.2, or the --grader verdict), stored in one byte
PASSED, FAILED, INVALIDATED, ERRORED, UNSCORED = 0, 1, 2, 3, 4


def _comparison_schema() -> dict[str, Any]:
    """schemas/comparison.json, read as JSON (the generated models would import pydantic: 13 MiB for three lists)."""
    import json

    schema: dict[str, Any] = json.loads((schema_dir() / "comparison.json").read_text(encoding="utf-8"))
    return schema["$defs"]  # type: ignore[no-any-return]


_DEFS = _comparison_schema()
OUTCOME_NAMES: tuple[str, ...] = tuple(_DEFS["RowOutcome"]["enum"])  # in the codes' order, as the schema lists them
# a grader result's state in one byte
G_ABSENT, G_FAILED, G_PASSED, G_NULL = 0, 1, 2, 3
CHANGE_ORDER: tuple[str, ...] = tuple(_DEFS["Changes"]["properties"])  # every change, as the schema's `Changes` lists them
FLIP_ORDER: tuple[str, ...] = tuple(_DEFS["FlipChange"]["enum"])  # the changes that are flips, in reporting order
FLIPS = frozenset(FLIP_ORDER)
MAX_K = 20


@dataclass(frozen=True)
class Options:
    """What ``compare`` is asked (the command's flags)."""

    alpha: float = 0.05
    seed: int = stats.DEFAULT_SEED
    resamples: int = stats.DEFAULT_RESAMPLES
    grader: str | None = None
    max_drop: float | None = None
    suite_digest: str | None = None  # the digest of the suite given with --suite
    strict: bool = False  # non-comparability findings are errors

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "seed": self.seed, "resamples": self.resamples, "grader": self.grader, "max_drop": self.max_drop}


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, list):
        yield from (item for item in value if isinstance(item, dict))


def _score(grader_result: dict[str, Any]) -> float | None:
    score = grader_result.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)):
        return None
    return float(score)


def row_outcome(row: dict[str, Any], grader: str | None) -> int:
    """The outcome of a row under the outcome model's precedence; with ``grader``, that grader's verdict stands
    for the row's ``passed`` (an errored row stays errored, an invalidated one fails, a missing or null result of
    that grader leaves the row unscored)."""
    if "error" in row:
        return ERRORED
    if any(v.get("invalidates_result") is True for v in _objects(row.get("constraint_violations"))):
        return INVALIDATED
    results = list(_objects(row.get("grader_results")))
    if grader is not None:
        results = [g for g in results if g.get("grader_id") == grader]
        if not results or _score(results[0]) is None:
            return UNSCORED
        return PASSED if results[0].get("passed") is True else FAILED
    if not any(_score(g) is not None for g in results):
        return UNSCORED
    return PASSED if row.get("passed") is True else FAILED


_HUGE_ATTEMPT = struct.pack("<q", -(2**63))  # no valid attempt (minimum 1) packs to this


def pair_key(case: bytes, attempt: int) -> bytes:
    """The key of a pair: the attempt packed in 8 bytes, then the test case id. An attempt beyond 64 bits (valid:
    ``attempt`` has no maximum, and ``1e300`` is a whole number) takes a marker no valid attempt packs to, then
    its decimal digits and a NUL (never a digit): distinct keys stay distinct."""
    if -(2**63) < attempt < 2**63:
        return struct.pack("<q", attempt) + case
    return _HUGE_ATTEMPT + str(attempt).encode("ascii") + b"\0" + case


def change_of(base: int, new: int) -> str:
    """What happened to one pair (SPEC §12.2): the first matching test wins."""
    if new == ERRORED:
        return "excluded" if base == ERRORED else "newly_errored"
    if base == ERRORED:
        return "no_longer_errored"
    if base == UNSCORED or new == UNSCORED:
        return "excluded"
    if new == INVALIDATED and base != INVALIDATED:
        return "newly_invalidated"
    if base == PASSED and new != PASSED:
        return "regression"
    if base != PASSED and new == PASSED:
        return "improvement"
    return "unchanged"


class _Growing:
    """Per-grader columns, one slot per test case, grown by a quarter at a time (memory over speed)."""

    def __init__(self, typecode: str, fill: float) -> None:
        self.typecode, self.fill = typecode, fill
        self.columns: dict[str, array[Any]] = {}

    def column(self, grader_id: str, size: int) -> array[Any]:
        """The grader's column, at least ``size`` long (slots beyond the ones written hold the fill value)."""
        column = self.columns.get(grader_id)
        if column is None:
            column = self.columns[grader_id] = array(self.typecode)
        if len(column) < size:
            column.extend([self.fill] * max(size - len(column), len(column) // 4, 64))
        return column


class Attempts:
    """Per test case: scored attempts and passes, packed in one integer (n << 32 | c)."""

    def __init__(self) -> None:
        self.cases = KeyTable()

    def add(self, case: bytes, outcome: int) -> None:
        if outcome in (ERRORED, UNSCORED):
            return
        self.cases.add(case, (1 << 32) | (1 if outcome == PASSED else 0))

    def to_dict(self) -> dict[str, Any]:
        counts: dict[tuple[int, int], int] = {}
        for packed in self.cases.values():
            pair = (packed >> 32, packed & 0xFFFFFFFF)
            counts[pair] = counts.get(pair, 0) + 1
        return attempt_stats(counts)


def attempt_stats(counts: dict[tuple[int, int], int]) -> dict[str, Any]:
    """pass@k, pass^k and the flip rate (SPEC §12.5) from how many test cases had n scored attempts of which c
    passed."""
    cases = sum(counts.values())
    multi = sum(m for (n, _), m in counts.items() if n >= 2)
    flipped = sum(m for (n, c), m in counts.items() if n >= 2 and 0 < c < n)
    top = min(MAX_K, max((n for n, _ in counts), default=0))
    by_k = []
    for k in range(1, top + 1):
        eligible = [(n, c, m) for (n, c), m in sorted(counts.items()) if n >= k]
        total = sum(m for _, _, m in eligible)
        by_k.append(
            {
                "k": k,
                "test_cases": total,
                "pass_at_k": math.fsum(m * stats.pass_at_k(n, c, k) for n, c, m in eligible) / total,
                "pass_hat_k": math.fsum(m * stats.pass_hat_k(n, c, k) for n, c, m in eligible) / total,
            }
        )
    return {"test_cases": cases, "multi_attempt_cases": multi, "flip_rate": flipped / multi if multi else None, "by_k": by_k}


def fewest_significant(pairs: int, alpha: float) -> int | None:
    """The fewest discordant pairs, all flipped the same way, whose McNemar p (SPEC §12.4, the test ``compare``
    uses) is below ``alpha``; ``None`` when even all ``pairs`` flipping one way would not be. In the exact range
    p = 2 · 0.5^k, so k = ⌊log₂(2/α)⌋ + 1: 6 at α = 0.05, 8 at α = 0.01."""
    for k in range(1, pairs + 1):
        if stats.mcnemar(k, 0)[0] < alpha:
            return k
    return None


def power(pairs: int, alpha: float, search: int = 1 << 20) -> dict[str, Any]:
    """The comparison document's ``power`` (SPEC §12.7): what ``pairs`` comparable pairs can show at ``alpha``
    (``pairs_needed`` is looked for up to ``search`` pairs)."""
    fewest = fewest_significant(pairs, alpha)
    return {
        "fewest_flips": fewest,
        "smallest_change": fewest / pairs if fewest is not None else None,
        "pairs_needed": fewest_significant(search, alpha),
    }


PROVENANCE = ("run_id", "suite_id", "suite_version", "suite_digest", "started_at", "runner", "provider", "graders")


class Comparer:
    """Feed the base run's rows, then the new run's; ``finish`` gives the comparison document."""

    def __init__(self, options: Options, keep_all: bool = False) -> None:
        self.options = options
        self.grader = options.grader
        # base rows
        self.base_keys = KeyTable()  # (attempt, case) -> row index
        self.base_outcome = array("b")
        self.base_matched = bytearray()
        # each base row's grader results, flattened: row i's are entries base_start[i] … base_start[i + 1] − 1
        self.grader_index: dict[str, int] = {}
        self.grader_names: list[str] = []
        self.base_start = array("I", [0])
        self.base_grader = array("H")  # index into grader_names
        self.base_state = array("B")
        self.base_score = array("d")
        self.base_rows = self.new_rows = self.ignored = self.duplicates = 0
        self.new_only = KeyTable()
        self.grader_types: tuple[dict[str, str], dict[str, str]] = ({}, {})
        # per test case of either run (in order of first sight): its attempt tallies, and its pairs folded
        self.cases = KeyTable()  # case -> slot
        self.case_tally = (array("Q"), array("Q"))  # per run: scored attempts << 32 | passed attempts
        self.case_paired = bytearray()  # 1: the case has a pair (a bootstrap unit)
        self.case_pass_sum = array("i")  # Σ (new passed − base passed) over the case's comparable pairs
        self.case_pairs = array("i")
        self.grader_sums = _Growing("d", 0.0)
        self.grader_counts = _Growing("i", 0)
        self.grader_totals: dict[str, list[float]] = {}  # Σ base score, Σ new score: the grader's two means
        self.table = [0, 0, 0, 0]  # a: both passed, b: base only, c: new only, d: neither
        self.changes = dict.fromkeys(CHANGE_ORDER, 0)
        self.excluded = {"errored": 0, "unscored": 0}
        self.flips: list[dict[str, Any]] = []
        self.envelopes: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
        self.labels: list[str | None] = [None, None]  # the files' paths, when read from files
        self.case_values = (CaseValues(keep_all), CaseValues(keep_all))  # per run: its scored values (per-test-case view)

    # --- reading ---------------------------------------------------------------------------------------------

    def _scan(self, row: Any, side: int) -> tuple[bytes, int, int, list[tuple[str, int, float]]] | None:
        """One pass over a row: its test case, attempt, outcome, and each grader's first result as (grader id,
        state, score); ``None`` (counted as ignored) when it has no string ``test_case_id``."""
        if type(row) is not dict:
            self.ignored += 1
            return None
        values = self.case_values[side]  # every row's values, repeated rows too: the side's summary counts them all
        if not values.has_attempts and "attempt" in row:
            values.attempts_seen()
        case = row.get("test_case_id")
        if type(case) is not str:
            self.ignored += 1
            return None
        attempt = row.get("attempt", 1)
        if type(attempt) is not int:
            attempt = attempt_number(row)
        graders: list[tuple[str, int, float]] = []
        scored = False
        results = row.get("grader_results")
        if type(results) is list:
            types = self.grader_types[side]
            seen: set[str] = set()
            kept = "error" not in row  # an errored row's values leave the per-test-case view, as the summary's
            for g in results:
                if type(g) is not dict:
                    continue
                score = g.get("score")
                if type(score) is not float:
                    score = _score(g)
                grader_id = g.get("grader_id")
                if score is not None:
                    scored = True
                    if kept and type(grader_id) is str:
                        values.keep(grader_id, case, attempt, score, g.get("raw_score"))
                if type(grader_id) is not str or grader_id in seen:
                    continue
                seen.add(grader_id)
                if grader_id not in types and isinstance(g.get("type"), str):
                    types[grader_id] = g["type"]
                if score is None:
                    graders.append((grader_id, G_NULL, math.nan))
                else:
                    graders.append((grader_id, G_PASSED if g.get("passed") is True else G_FAILED, score))
        if "error" in row:
            outcome = ERRORED
        elif (violations := row.get("constraint_violations")) and any(v.get("invalidates_result") is True for v in _objects(violations)):
            outcome = INVALIDATED
        elif self.grader is not None:
            state = next((state for grader_id, state, _ in graders if grader_id == self.grader), G_ABSENT)
            outcome = PASSED if state == G_PASSED else FAILED if state == G_FAILED else UNSCORED
        elif not scored:
            outcome = UNSCORED
        else:
            outcome = PASSED if row.get("passed") is True else FAILED
        return case.encode("utf-8", "surrogatepass"), attempt, outcome, graders

    def add_base(self, row: Any) -> None:
        scanned = self._scan(row, 0)
        if scanned is None:
            return
        case, attempt, outcome, graders = scanned
        _, added = self.base_keys.setdefault(pair_key(case, attempt), self.base_rows)
        if not added:
            self.duplicates += 1
            return
        self.base_rows += 1
        self.base_outcome.append(outcome)
        self.base_matched.append(0)
        self._tally(case, 0, outcome)
        numbers = self.grader_index
        for grader_id, state, score in graders:
            number = numbers.get(grader_id)
            if number is None:
                number = numbers[grader_id] = len(self.grader_names)
                self.grader_names.append(grader_id)
            self.base_grader.append(number)
            self.base_state.append(state)
            self.base_score.append(score)
        self.base_start.append(len(self.base_state))

    def add_new(self, row: Any) -> None:
        scanned = self._scan(row, 1)
        if scanned is None:
            return
        case, attempt, outcome, graders = scanned
        key = pair_key(case, attempt)
        index = self.base_keys.get(key)
        if index is None:
            _, added = self.new_only.setdefault(key, 0)
            if not added:
                self.duplicates += 1
                return
            self.new_rows += 1
            self._tally(case, 1, outcome)
            return
        if self.base_matched[index]:
            self.duplicates += 1
            return
        self.base_matched[index] = 1
        self.new_rows += 1
        slot = self._tally(case, 1, outcome)
        self._pair(slot, row, case, attempt, index, outcome, graders)

    def _tally(self, case: bytes, side: int, outcome: int) -> int:
        """Count a scored attempt of ``case`` on one side (errored and unscored rows do not count); its slot."""
        slot, added = self.cases.setdefault(case, len(self.case_pairs))
        if added:
            for tally in self.case_tally:
                tally.append(0)
            self.case_paired.append(0)
            self.case_pass_sum.append(0)
            self.case_pairs.append(0)
        if outcome != ERRORED and outcome != UNSCORED:
            self.case_tally[side][slot] += (1 << 32) | (outcome == PASSED)
        return slot

    def attempt_statistics(self, side: int) -> dict[str, Any]:
        counts: dict[tuple[int, int], int] = {}
        for packed in self.case_tally[side]:
            if packed:
                pair = (packed >> 32, packed & 0xFFFFFFFF)
                counts[pair] = counts.get(pair, 0) + 1
        return attempt_stats(counts)

    def _pair(
        self, slot: int, row: dict[str, Any], case: bytes, attempt: int, index: int, new: int, graders: list[tuple[str, int, float]]
    ) -> None:
        base = self.base_outcome[index]
        change = change_of(base, new)
        self.changes[change] += 1
        errored = base == ERRORED or new == ERRORED
        if errored:
            self.excluded["errored"] += 1
        elif base == UNSCORED or new == UNSCORED:
            self.excluded["unscored"] += 1
        self.case_paired[slot] = 1
        if change not in ("excluded", "newly_errored", "no_longer_errored"):
            base_passed, new_passed = base == PASSED, new == PASSED
            self.table[(0 if base_passed else 2) + (0 if new_passed else 1)] += 1
            self.case_pass_sum[slot] += new_passed - base_passed
            self.case_pairs[slot] += 1
        flip = change in FLIPS
        changed: list[str] = []
        start, end = self.base_start[index], self.base_start[index + 1]
        names = self.grader_names
        before = {
            names[number]: (state, score)
            for number, state, score in zip(self.base_grader[start:end], self.base_state[start:end], self.base_score[start:end])
        }
        size = slot + 1
        for grader_id, new_state, score in graders:
            state, base_score = before.pop(grader_id, (G_ABSENT, math.nan))
            if flip and state != new_state:
                changed.append(grader_id)
            if new_state == G_NULL or state in (G_ABSENT, G_NULL) or errored:
                continue
            sums = self.grader_sums.columns.get(grader_id)
            if sums is None or len(sums) <= slot:
                sums = self.grader_sums.column(grader_id, size)
                self.grader_counts.column(grader_id, size)
                self.grader_totals.setdefault(grader_id, [0.0, 0.0])
            sums[slot] += score - base_score
            self.grader_counts.columns[grader_id][slot] += 1
            totals = self.grader_totals[grader_id]
            totals[0] += base_score
            totals[1] += score
        if not flip:
            return
        changed += before  # graders of the base row only (every entry is a result: none is absent)
        record: dict[str, Any] = {
            "test_case_id": case.decode("utf-8", "surrogatepass"),
            "attempt": attempt,
            "change": change,
            "base": OUTCOME_NAMES[base],
            "new": OUTCOME_NAMES[new],
            "graders_changed": sorted(changed),
        }
        if new == INVALIDATED:
            violations = _objects(row.get("constraint_violations"))
            record["constraint_ids"] = sorted(
                {v["id"] for v in violations if v.get("invalidates_result") is True and isinstance(v.get("id"), str)}
            )
        if new == ERRORED:
            error = row.get("error")
            kind = error.get("type") if isinstance(error, dict) else None
            record["error_type"] = kind if isinstance(kind, str) else None
        self.flips.append(record)


def _canonical(value: Any) -> str:
    """RFC 8785 (JCS) text of a JSON value: keys sorted by UTF-16 code units, no whitespace, ECMAScript numbers."""
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda item: item[0].encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(_canonical(k) + ":" + _canonical(v) for k, v in items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_canonical(v) for v in value) + "]"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return _es_number(value)
    import json

    return json.dumps(value, ensure_ascii=False)


def _es_number(value: float | int) -> str:
    """ECMAScript's Number::toString of a finite double (what JSON.stringify writes)."""
    number = float(value)
    if number == 0:
        return "0"
    if not math.isfinite(number):
        raise ValueError("JSON has no non-finite numbers")
    sign = "-" if number < 0 else ""
    digits, exponent = _shortest(abs(number))
    n = exponent + len(digits)  # the decimal point sits after n digits
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return sign + mantissa + "e" + ("+" if e >= 0 else "-") + str(abs(e))


def _shortest(number: float) -> tuple[str, int]:
    """The shortest round-tripping decimal digits of a positive double and their exponent: number = digits × 10^e."""
    mantissa, _, exp = repr(number).partition("e")  # '1.5e-07', '123.0', '1e+22', '0.001'
    whole, _, fraction = mantissa.partition(".")
    if fraction == "0":
        fraction = ""
    digits = (whole + fraction).lstrip("0")
    stripped = digits.rstrip("0")
    return stripped, int(exp or 0) - len(fraction) + len(digits) - len(stripped)


def suite_digest(suite: Any) -> str:
    """The suite digest (SPEC §12.6): ``sha256:`` and the hex SHA-256 of the suite document's RFC 8785 text."""
    return "sha256:" + hashlib.sha256(_canonical(suite).encode("utf-8", "surrogatepass")).hexdigest()
