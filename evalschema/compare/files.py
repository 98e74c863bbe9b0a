"""Feeding a ``Comparer`` from files: JSON result sets are read in pieces (``stream``), so memory holds the
compact tables and one batch of rows; YAML and other forms are read whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core.findings import Finding, Report
from ..core.limits import MAX_FINDINGS
from ..io.compact import KeyTable
from ..io.loader import load_path, paused_gc
from ..pipeline import KIND, placed, validate, validate_and_read_file
from ..summary.states import attempt_number
from .cases import ValuesMissed
from .core import Attempts, Comparer, Options, pair_key, row_outcome
from .document import build

ARRAY = "results"
_UNREADABLE_CODES = frozenset(constants.UNREADABLE_CODES)


class Unreadable(Exception):
    """A result set that cannot be read, with the finding that says why (the command exits 2)."""

    def __init__(self, path: str, finding: Finding) -> None:
        super().__init__(f"{path}: {finding.code}: {finding.message}")
        self.path, self.finding = path, finding


class Invalid(Exception):
    """Result sets that are not valid, each with its report: their numbers could be ones the specification makes
    impossible, so nothing is compared (the command exits 1 with their findings)."""

    def __init__(self, refused: list[tuple[str, Report]]) -> None:
        super().__init__(", ".join(f"{path}: not a valid result set" for path, _ in refused))
        self.refused = refused


class _StartOver(Exception):
    """A stream was given up for a whole reading after some of its rows were handed on: compare again, whole."""


def _unreadable(report: Report) -> Finding | None:
    """The finding that says the input is no result set to read at all (it cannot be read, or is no object)."""
    return next((f for f in report.errors if f.code in _UNREADABLE_CODES or (f.code == codes.TYPE_MISMATCH and f.pointer == "")), None)


def read_checked(path: Path, add: Callable[[Any], None], *, stream_rows: bool | None = None) -> tuple[Report, dict[str, Any] | None]:
    """Validate the result set at ``path`` and hand each of its rows to ``add``, in one reading (JSON through the
    pipeline, large files in pieces; other forms read whole, their first document); its report and its own members
    (``None`` when the report was decided before the rows were read: a newer major version, say). Raises
    ``Unreadable`` when it cannot be read."""
    if path.suffix.lower() in (".json", ""):
        handed: list[int] = []

        def each_row() -> Callable[[Any], None]:
            if handed and handed[-1]:
                raise _StartOver  # the rows handed on so far cannot be taken back
            handed.append(0)

            def see(row: Any) -> None:
                handed[-1] += 1
                add(row)

            return see

        report, members = validate_and_read_file(path, each_row, stream_rows=stream_rows, place_limit=MAX_FINDINGS)
    else:
        loaded = next(iter(load_path(path)))
        if loaded.problem is not None:
            raise Unreadable(str(path), loaded.problem)
        document = loaded.document
        report = validate(document, KIND)
        if report.findings:
            report = placed(report, loaded.positions())
        members = None
        if isinstance(document, dict):
            rows = document.get(ARRAY)
            for row in rows if isinstance(rows, list) else ():
                add(row)
            members = {k: v for k, v in document.items() if k != ARRAY}
    problem = _unreadable(report)
    if problem is not None:
        raise Unreadable(str(path), problem)
    return report, members


def read_rows(path: Path, add: Callable[[Any], None]) -> dict[str, Any]:
    """Hand every row of the result set at ``path`` to ``add`` and return its other members (validated as it is
    read, as ``read_checked``); raise ``Unreadable`` when it cannot be read."""
    return read_checked(path, add)[1] or {}


def read_into(comparer: Comparer, path: Path, side: int, *, stream_rows: bool | None = None) -> tuple[Report, bool]:
    """Read one result set into ``comparer`` (side 0: base, 1: new); its report, and whether its rows were read
    (not when the report was decided before them). Raises ``Unreadable`` when it cannot be read."""
    comparer.labels[side] = str(path)
    report, envelope = read_checked(path, comparer.add_base if side == 0 else comparer.add_new, stream_rows=stream_rows)
    comparer.envelopes[side].update(envelope or {})
    return report, envelope is not None


def compare_checked(base: Path, new: Path, options: Options | None = None) -> tuple[dict[str, Any] | None, list[tuple[str, Report]]]:
    """Both result sets validated and compared in one reading each: the comparison document (``None`` when a result
    set's report was decided before its rows were read: there is nothing to compare) and the report of each result
    set that is not valid. Raises ``Unreadable``."""
    stream_rows: bool | None = None
    keep_all = False
    while True:
        comparer = Comparer(options or Options(), keep_all)
        refused: list[tuple[str, Report]] = []
        comparable = True
        try:
            with paused_gc():
                for side, path in enumerate((base, new)):
                    report, read = read_into(comparer, path, side, stream_rows=stream_rows)
                    comparable &= read
                    if not report.valid:
                        refused.append((str(path), report))
                return (build(comparer) if comparable else None), refused
        except _StartOver:
            if stream_rows is False:
                raise AssertionError("a whole reading never starts over") from None
            stream_rows = False
        except ValuesMissed:
            if keep_all:
                raise AssertionError("a comparison keeping every value never starts over") from None
            keep_all = True  # an `attempt` after rows whose values were skipped: again, keeping every value


def compare_files(base: Path, new: Path, options: Options | None = None) -> dict[str, Any]:
    """The comparison document of two result set files (SPEC §12); raises ``Unreadable``, or ``Invalid`` when either
    is not a valid result set (``compare_checked`` compares them all the same)."""
    document, refused = compare_checked(base, new, options)
    if refused or document is None:
        raise Invalid(refused)
    return document


class AttemptTally:
    """pass@k, pass^k and the flip rate of one result set's rows (SPEC §12.5), ``add``-ed one at a time in order."""

    def __init__(self) -> None:
        self.tally, self.seen = Attempts(), KeyTable()

    def add(self, row: Any) -> None:
        if isinstance(row, dict) and isinstance(row.get("test_case_id"), str):
            case = row["test_case_id"].encode("utf-8", "surrogatepass")
            if self.seen.setdefault(pair_key(case, attempt_number(row)), 0)[1]:  # a repeated (test case, attempt): the first counts
                self.tally.add(case, row_outcome(row, None))

    def to_dict(self) -> dict[str, Any]:
        return self.tally.to_dict()


def attempt_statistics(source: Path | dict[str, Any]) -> dict[str, Any] | None:
    """pass@k, pass^k and the flip rate of one result set (SPEC §12.5), for ``summarize``: from a document, or a
    file read again (JSON in pieces); ``None`` when the file cannot be read."""
    tally = AttemptTally()
    if isinstance(source, dict):
        rows = source.get(ARRAY)
        for row in rows if isinstance(rows, list) else ():
            tally.add(row)
        return tally.to_dict()
    try:
        with paused_gc():
            read_rows(source, tally.add)
    except Unreadable:
        return None
    return tally.to_dict()
