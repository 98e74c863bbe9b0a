"""The columnar formats of ``evalschema export --to parquet|arrow`` and ``evalschema import --from parquet|arrow``
(the subcommands are ``evalschema.interop.cli``'s; this module does what they do for these formats, see
``evalschema.columnar``).

``export`` reads result sets (JSON files, streamed; JSON Lines files, one result set per line; folders; globs) and
writes a new folder of three tables: ``runs``, ``results`` and ``grader_results``. ``import`` reads such a folder
back and writes the result sets as JSON (one) or JSON Lines (several), each equal to the one exported. Nothing is
lost either way, so the loss report is empty.
"""

from __future__ import annotations

import io
import json
import os
import secrets
from pathlib import Path
from typing import Any, BinaryIO

from ..columnar import Unexportable
from ..core.findings import Finding
from ..io.loader import open_regular

FORMATS = ("parquet", "arrow")

__all__ = ["FORMATS", "Unexportable", "Unreadable", "export_paths", "import_folder"]


class Unreadable(ValueError):
    """A folder that is not a columnar export this version can read: ``code`` says why (an ``IMPORT_*`` code)."""

    def __init__(self, message: str, code: str = "IMPORT_UNREADABLE") -> None:
        super().__init__(message)
        self.code = code


def export_paths(arguments: list[str], folder: Path, fmt: str, *, force: bool = False, refused: list[Any] | None = None) -> int:
    """Export the result sets of these arguments (files, folders, globs) into the new ``folder``; how many.
    Raises ``Unexportable``, ``columnar.Invalid`` (unless ``force``: then listed in ``refused``) or a refusal of the
    output gate; nothing is written then."""
    from .. import columnar
    from ..io.loader import expand

    paths = [p for p in expand(arguments) if isinstance(p, Path)]
    return columnar.export_files(paths, folder, fmt, force=force, refused=refused)


def import_folder(folder: Path, fmt: str, output: Path) -> int:
    """Write the result sets of an export to ``output`` (written atomically); how many."""
    from .. import columnar
    from ..io.gate import Outputs

    tables = [p for p in Path(folder).iterdir() if p.is_file()] if Path(folder).is_dir() else []
    with Outputs([output], inputs=tables) as outputs:  # refused before the tables are read
        count = _import_into(folder, fmt, output, outputs, columnar)
    return count


def _text(value: Any) -> bytes:
    """A JSON value's text as ``json.dumps`` writes it; a lone surrogate (JSON can escape one, UTF-8 cannot hold
    it) escaped."""
    try:
        return json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value).encode("utf-8")


def _import_into(folder: Path, fmt: str, output: Path, outputs: Any, columnar: Any) -> int:
    """The result sets, one JSON line each, streamed to ``output`` as they are read (a row at a time); nothing is
    renamed into place unless every table checked out to the end and every result set written is valid."""
    count = 0
    lines: list[tuple[int, int]] = []  # each result set's bytes in the output
    written = 0
    try:
        stream = None
        for document, rows in columnar.read_runs(folder):
            stream = stream or outputs.stream(output)
            start = written
            if rows is None:
                written += stream.write(_text(document) + b"\n")
            else:  # the result set's own fields around its rows, written a row at a time (json.dumps's layout)
                marker = f"evalschema-rows-{secrets.token_hex(16)}"
                document[columnar.ROWS] = marker
                head, tail = _text(document).split(_text(marker), 1)
                written += stream.write(head + b"[")
                for number, row in enumerate(rows):
                    written += stream.write((b", " if number else b"") + _text(row))
                written += stream.write(b"]" + tail + b"\n")
            lines.append((start, written))
            count += 1
    except columnar.NotAnExport as exc:
        raise Unreadable(f"cannot read as {fmt}: {exc}", exc.code) from None
    if not count:
        raise Unreadable(f"cannot read as {fmt}: the export holds no result set", "IMPORT_EMPTY")
    _refuse_invalid(outputs.written(output), lines, output)
    return count


def _refuse_invalid(written: Path, lines: list[tuple[int, int]], output: Path) -> None:
    """Each result set written validated as ``validate`` would (read in pieces) before the output is committed:
    the typed columns and ``_json`` of an export can hold a document that is not valid (a ``_json`` of
    ``{"version": "1.1.0"}`` alone), and an import never writes an invalid document with exit 0."""
    from ..interop import SHOWN_FINDINGS
    from ..pipeline import validate, validate_stream

    file = open_regular(written)  # the input gate, as for any file read (here the import's own output)
    if isinstance(file, Finding):
        raise OSError(file.message)
    with file:
        for number, (start, end) in enumerate(lines, 1):
            handle = io.BufferedReader(_Window(file, start, end))
            report = validate_stream(handle, "resultset", place_limit=SHOWN_FINDINGS)
            if report is None:  # rows judged together: the line read whole (it is one the reader wrote, in memory once)
                file.seek(start)
                report = validate(json.loads(file.read(end - start)), "resultset")
            if not report.valid:
                first = report.errors[0]
                raise Unreadable(
                    f"the converted result set on line {number} of {output.name} would not be valid ({len(report.errors)} "
                    f"error(s)), first: {first.code} at {first.pointer or '/'}: {first.message}; nothing is written",
                    "IMPORT_INVALID_OUTPUT",
                )


class _Window(io.RawIOBase):
    """The bytes ``[start, end)`` of an open file, as a file of their own (seekable: a streamed validation reads
    the end for a summary, and may read the rows again)."""

    def __init__(self, file: BinaryIO, start: int, end: int) -> None:
        super().__init__()
        self._file, self._start, self._end, self._at = file, start, end, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._at

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._at, os.SEEK_END: self._end - self._start}[whence]
        self._at = max(0, base + offset)
        return self._at

    def readinto(self, buffer: Any) -> int:
        size = max(0, min(len(buffer), self._end - self._start - self._at))
        self._file.seek(self._start + self._at)
        data = self._file.read(size)
        buffer[: len(data)] = data
        self._at += len(data)
        return len(data)
