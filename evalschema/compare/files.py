"""Feeding a ``Comparer`` from files: JSON result sets are read in pieces (``stream``), so memory holds the
compact tables and one batch of rows; YAML and other forms are read whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.findings import Finding
from ..io import stream
from ..io.compact import KeyTable
from ..io.loader import load_path, not_an_object, paused_gc
from ..summary.states import attempt_number
from .core import Comparer, Options, _Attempts, _key, row_outcome

ARRAY = "results"


class Unreadable(Exception):
    """A result set that cannot be read, with the finding that says why (the command exits 2)."""

    def __init__(self, path: str, finding: Finding) -> None:
        super().__init__(f"{path}: {finding.code}: {finding.message}")
        self.path, self.finding = path, finding


def read_rows(path: Path, add: Callable[[Any], None]) -> dict[str, Any]:
    """Hand every row of the result set at ``path`` to ``add`` and return its other members; raise ``Unreadable``
    when it cannot be read. JSON is read in pieces, other forms whole."""
    if path.suffix.lower() in (".json", "") and path.is_file():
        with path.open("rb") as handle:
            envelope: dict[str, Any] = {}
            try:
                for piece in stream.read(handle, ARRAY):
                    if isinstance(piece, stream.Problem):
                        raise Unreadable(str(path), piece.finding)
                    if isinstance(piece, stream.Member):
                        envelope[piece.key] = piece.value
                    elif isinstance(piece, stream.Rows):
                        for item in piece.items:
                            add(item)
                return {k: v for k, v in envelope.items() if k != ARRAY}
            except stream.NotStreamable:
                pass
    loaded = next(iter(load_path(path)))
    if loaded.problem is not None:
        raise Unreadable(str(path), loaded.problem)
    document = loaded.document
    if not isinstance(document, dict):
        raise Unreadable(str(path), not_an_object())
    rows = document.get(ARRAY)
    for row in rows if isinstance(rows, list) else ():
        add(row)
    return {k: v for k, v in document.items() if k != ARRAY}


def read_into(comparer: Comparer, path: Path, side: int) -> None:
    """Read one result set into ``comparer`` (side 0: base, 1: new); raise ``Unreadable`` when it cannot be read."""
    comparer.labels[side] = str(path)
    envelope = read_rows(path, comparer.add_base if side == 0 else comparer.add_new)
    comparer.envelopes[side].update(envelope)


def compare_files(base: Path, new: Path, options: Options | None = None) -> dict[str, Any]:
    """The comparison document of two result set files (SPEC §12); raises ``Unreadable``."""
    comparer = Comparer(options or Options())
    with paused_gc():
        read_into(comparer, base, 0)
        read_into(comparer, new, 1)
        return comparer.finish()


class AttemptTally:
    """pass@k, pass^k and the flip rate of one result set's rows (SPEC §12.5), ``add``-ed one at a time in order."""

    def __init__(self) -> None:
        self.tally, self.seen = _Attempts(), KeyTable()

    def add(self, row: Any) -> None:
        if isinstance(row, dict) and isinstance(row.get("test_case_id"), str):
            case = row["test_case_id"].encode("utf-8", "surrogatepass")
            if self.seen.setdefault(_key(case, attempt_number(row)), 0)[1]:  # a repeated (test case, attempt): the first counts
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
