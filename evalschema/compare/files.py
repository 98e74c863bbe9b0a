"""Feeding a ``Comparer`` from files: JSON result sets are read in pieces (``stream``), so memory holds the
compact tables and one batch of rows; YAML and other forms are read whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalschema_models import rules as codes

from .. import stream
from ..findings import Finding
from ..loader import load_path, paused_gc
from .core import Comparer, Options

ARRAY = "results"


class Unreadable(Exception):
    """A result set that cannot be read, with the finding that says why (the command exits 2)."""

    def __init__(self, path: str, finding: Finding) -> None:
        super().__init__(f"{path}: {finding.code}: {finding.message}")
        self.path, self.finding = path, finding


def _feed(comparer: Comparer, side: int, envelope: dict[str, Any], rows: Any) -> None:
    comparer.envelopes[side].update(envelope)
    add = comparer.add_base if side == 0 else comparer.add_new
    for row in rows if isinstance(rows, list) else ():
        add(row)


def read_into(comparer: Comparer, path: Path, side: int) -> None:
    """Read one result set into ``comparer`` (side 0: base, 1: new); raise ``Unreadable`` when it cannot be read."""
    comparer.labels[side] = str(path)
    if path.suffix.lower() in (".json", "") and path.is_file():
        with path.open("rb") as handle:
            envelope: dict[str, Any] = {}
            add = comparer.add_base if side == 0 else comparer.add_new
            try:
                for piece in stream.read(handle, ARRAY):
                    if isinstance(piece, stream.Problem):
                        raise Unreadable(str(path), piece.finding)
                    if isinstance(piece, stream.Member):
                        envelope[piece.key] = piece.value
                    elif isinstance(piece, stream.Rows):
                        for item in piece.items:
                            add(item)
                comparer.envelopes[side].update({k: v for k, v in envelope.items() if k != ARRAY})
                return
            except stream.NotStreamable:
                pass
    loaded = next(iter(load_path(path)))
    if loaded.problem is not None:
        raise Unreadable(str(path), loaded.problem)
    document = loaded.document
    if not isinstance(document, dict):
        raise Unreadable(str(path), Finding("", codes.TYPE_MISMATCH, "error", "a result set is a JSON object"))
    _feed(comparer, side, {k: v for k, v in document.items() if k != ARRAY}, document.get(ARRAY))


def compare_files(base: Path, new: Path, options: Options | None = None) -> dict[str, Any]:
    """The comparison document of two result set files (SPEC §12); raises ``Unreadable``."""
    comparer = Comparer(options or Options())
    with paused_gc():
        read_into(comparer, base, 0)
        read_into(comparer, new, 1)
        return comparer.finish()
