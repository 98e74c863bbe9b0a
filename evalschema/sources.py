"""The report entries of one source — a file, stdin, or the documents of a byte range of a JSON Lines file — as
``evalschema validate`` prints them, for every way of running it: one process, ``-j N`` (``evalschema.cli.parallel``)
and a Dask cluster (``evalschema.cli.distributed``). No command-line code: what to check comes as a ``Checking``.

A JSON file is read by path, in one reading (large result sets in pieces), each row of a result set handed to the
caller's ``rows`` as it is read (the summary a cluster merges); JSON Lines, YAML and stdin through the loaders. A
suite's entry is followed by the entries of its ``test_cases_file``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple, Protocol

from evalschema_models import constants
from evalschema_models import rules as codes

from .core.findings import Finding, Report
from .core.limits import MAX_FINDINGS
from .core.messages import render
from .io.loader import SUFFIXES, Loaded, jsonl_lines, load_path, load_stdin, name_problem, open_regular
from .pipeline import placed, validate, validate_and_read_file, validate_file
from .report.entry import ReportEntry
from .report.json_report import entry as _entry

Entry = tuple[ReportEntry, bool]  # a report entry, and whether its input could be read
UNREADABLE_CODES = frozenset(constants.UNREADABLE_CODES)


class Checking(NamedTuple):
    """How documents are checked (``validate``'s options)."""

    kind: str | None = None
    strict: bool = False
    allow_unknown: bool = False
    engine: str = "fast"
    spec_version: str | None = None
    input_format: str | None = None  # json, jsonl, yaml; ``None``: by the file's extension
    stream_rows: bool | None = None  # read a JSON result set in pieces: ``None`` from STREAM_THRESHOLD bytes on

    def options(self) -> dict[str, Any]:
        return {"strict": self.strict, "allow_unknown": self.allow_unknown, "engine": self.engine, "spec_version": self.spec_version}


class RowSink(Protocol):
    """What sees the rows of one document as they are read (a result set's; or, read whole, any document's
    ``results`` array), then (``done``) its entry and its own fields (``graders`` declares the reducers of the
    per-test-case view, SPEC 4.7): the rows count only if the entry says they should."""

    def add(self, row: Any) -> None: ...

    def done(self, entry: ReportEntry, fields: dict[str, Any]) -> None: ...


def json_file(source: Path | str, form: str | None) -> Path | None:
    """The path, if this source is a JSON file (by extension or ``form``), to read by path."""
    if not isinstance(source, Path):
        return None
    return source if (form or SUFFIXES.get(source.suffix.lower(), "json")) == "json" else None


def source_entries(
    source: Path | str,
    checking: Checking,
    suite: dict[str, Any] | None,
    documents: Iterator[Loaded] | None = None,
    rows: Callable[[], RowSink] | None = None,
) -> Iterator[Entry]:
    """The entries of one source (``documents``: its documents when already read, e.g. a range of JSON Lines, whose
    file name was checked). ``rows``, if given, makes the sink that sees the rows of each result set read."""
    options = {**checking.options(), "suite": suite}
    if documents is None:
        bad_name = name_problem(str(source))
        if bad_name is not None:
            yield _entry(str(source), None, Report.build(checking.kind, [bad_name], strict=False)), False
            return
        path = json_file(source, checking.input_format)
        if path is not None:
            made: list[RowSink] = []
            members: dict[str, Any] | None = None  # a result set's own fields, once its rows were read
            if rows is None:
                report = validate_file(path, checking.kind, stream_rows=checking.stream_rows, place_limit=MAX_FINDINGS, **options)
            else:

                def each_row() -> Callable[[Any], None]:
                    made.append(rows())  # afresh for each reading: a stream given up is read again whole
                    return made[-1].add

                report, members = validate_and_read_file(
                    path, each_row, checking.kind, stream_rows=checking.stream_rows, place_limit=MAX_FINDINGS, **options
                )
            readable = not any(f.code in UNREADABLE_CODES for f in report.errors)
            if readable and report.kind == "suite":  # its test_cases_file, followed
                (loaded,) = load_path(path, "json")
                yield from suite_entries(loaded.document, path, report, options, loaded)
                return
            entry = _entry(str(path), None, report)
            if rows is not None and readable:
                if members is not None:
                    made[-1].done(entry, members)
                else:  # no result set's rows were read (another kind, or decided before them): read whole
                    for loaded in load_path(path, "json"):
                        _hand_rows(loaded.document, entry, rows)
            yield entry, readable
            return
        documents = load_stdin(checking.input_format) if source == "-" else load_path(Path(source), checking.input_format)
    for loaded in documents:
        if loaded.problem is not None:
            yield _entry(loaded.path, loaded.line, Report.build(checking.kind, [loaded.problem], strict=False)), False
            continue
        report = validate(loaded.document, checking.kind, **options)
        if report.findings:
            report = placed(report, loaded.positions())
        if report.kind == "suite" and source != "-":
            yield from suite_entries(loaded.document, Path(source), report, options, loaded)
            continue
        entry = _entry(loaded.path, loaded.line, report)
        if rows is not None:
            _hand_rows(loaded.document, entry, rows)
        yield entry, True


def _hand_rows(document: Any, entry: ReportEntry, rows: Callable[[], RowSink]) -> None:
    """The rows of a document in hand (its ``results`` array, if it has one) to a sink of their own, then its entry."""
    held = document.get("results") if isinstance(document, dict) else None
    if isinstance(held, list):
        sink = rows()
        for row in held:
            sink.add(row)
        sink.done(entry, document)


def suite_entries(suite: Any, path: Path, report: Report, options: dict[str, Any], loaded: Loaded, cases: Any = None) -> Iterator[Entry]:
    """A suite's entry, then an entry per line of its ``test_cases_file``. A file that cannot be read is
    TEST_CASES_FILE_UNREADABLE on the suite's entry, which then counts as unreadable (SPEC §3.4: exit 2)."""
    if cases is None:
        from .casesfile import follow  # only a suite needs it (start-up: ``evalschema.__main__``)

        cases = follow(suite, path, **{k: v for k, v in options.items() if k != "suite"}, keep=None)
    if cases.problem is not None:
        report = placed(
            Report.build(report.kind, [*report.findings, cases.problem], strict=bool(options.get("strict"))), loaded.positions()
        )
    # a suite on a line of a JSON Lines file is reported at its line, as every other document there
    yield _entry(str(path), loaded.line, report), cases.problem is None
    for line, case_report, readable in cases.lines:
        yield _entry(str(cases.path), line, case_report), readable


# --- byte ranges of JSON Lines files (-j N and Dask cut large ones at line boundaries) ----------------------------


class LineRange:
    """The lines of the bytes ``[start, end)`` of a JSON Lines file, read as one process reads the whole file (a line
    at a time; a line longer than the input size limit is refused, and the reading stops there), numbered from 1 as
    if the range were the file. After ``documents`` is read through: ``lines``, the lines the range holds, and
    ``finished``, whether it was read to its end."""

    def __init__(self, path: Path, start: int, end: int) -> None:
        self.path, self.start, self.end = path, start, end
        self.lines = 0
        self.finished = False
        self._handle: BinaryIO | None = None

    def readline(self, size: int = -1) -> bytes:
        assert self._handle is not None
        left = self.end - self._handle.tell()
        if left <= 0:
            return b""
        line = self._handle.readline(left if size < 0 else min(size, left))
        self.lines += bool(line)
        return line

    def documents(self) -> Iterator[Loaded]:
        """The range's documents; a file gone or changed since it was planned is one that cannot be read (it stops
        there, as a read error stops one process)."""
        opened = open_regular(self.path)  # the input gate: swapped for a FIFO since it was planned, it is refused
        if isinstance(opened, Finding):
            yield Loaded(str(self.path), problem=opened)
            return
        handle = opened
        try:
            handle.seek(self.start)
        except OSError as exc:
            handle.close()
            problem = Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "os_error", detail=exc.strerror or exc))
            yield Loaded(str(self.path), problem=problem)
            return
        with handle:
            self._handle = handle
            yield from jsonl_lines(self, str(self.path))
            self.finished = handle.tell() >= self.end
            self._handle = None


def _renumbered(message: str, line: int, base: int) -> str:
    """The loader's message for a line over the input size limit names its line: moved with it."""
    named = f"line {line} is "
    return f"line {line + base} is " + message[len(named) :] if message.startswith(named) else message


def renumbered_finding(finding: Finding, base: int) -> Finding:
    """A finding of a range's line moved down by ``base`` lines."""
    from dataclasses import replace

    if finding.line is None:
        return finding
    return replace(finding, line=finding.line + base, message=_renumbered(finding.message, finding.line, base))


def shift_entry(entry: ReportEntry, base: int) -> ReportEntry:
    """An entry of a range's line moved down by ``base`` lines (its findings too)."""
    return entry._replace(
        line=None if entry.line is None else entry.line + base,
        errors=tuple(renumbered_finding(f, base) for f in entry.errors),
        warnings=tuple(renumbered_finding(f, base) for f in entry.warnings),
    )
