"""``validate -j N`` and ``summarize -j N``: the same work as one process, spread over a pool of N processes.

One whole file is checked in this process: a large result set then gets a helper process for its rows
(``evalschema.helper``); in a pool, each file is checked by one process.

The inputs become tasks: each file is one, and a large JSON Lines file is cut into byte ranges that end at line
boundaries, each range a task. Workers check their task exactly as one process would (the same functions of
``cli``) and number the lines of a range from 1; the parent reads the results in task order, adds to each line
number the lines of the file's earlier ranges, and so prints what ``-j 1`` prints, in the same order. (A suite
on a line of a range is followed by the entries of its ``test_cases_file``: their lines are that file's, not moved.)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from ..core.findings import Finding
from ..io.loader import SUFFIXES, Loaded, _jsonl_lines, expand, name_problem
from ..report.entry import ReportEntry
from .summarizecmd import Summarizing

# JSON Lines files at least this large are cut into ranges; a range is at most RANGE_MAX bytes (a worker holds one
# range's bytes at a time) and there are at least four per process, so that uneven lines still even out.
SPLIT_MIN = 4 << 20
RANGE_MAX = 32 << 20
RANGES_PER_JOB = 4

Entry = tuple[ReportEntry, bool]
T = TypeVar("T")


@dataclass(frozen=True)
class Task:
    """A whole source (``end`` is -1), or the bytes ``[start, end)`` of a JSON Lines file."""

    source: Path | str
    start: int = 0
    end: int = -1


def line_ranges(path: Path, pieces: int) -> list[tuple[int, int]]:
    """``pieces`` byte ranges covering the file (fewer if lines are long), each ending just after a newline (the last
    at the end of the file)."""
    size = path.stat().st_size
    bounds = [0]
    with path.open("rb") as handle:
        for piece in range(1, pieces):
            target = size * piece // pieces
            if target <= bounds[-1]:
                continue
            handle.seek(target - 1)
            handle.readline()  # to just after the newline at or after target - 1
            boundary = handle.tell()
            if bounds[-1] < boundary < size:
                bounds.append(boundary)
    bounds.append(size)
    return list(pairwise(bounds))


class LineRange:
    """The lines of the bytes ``[start, end)`` of a JSON Lines file, read as ``-j 1`` reads the whole file (the
    loader's ``_jsonl_lines``: a line at a time; a line longer than the input size limit is refused, and the reading
    stops there), numbered from 1 as if the range were the file. After ``documents`` is read through: ``lines``,
    the lines the range holds, and ``finished``, whether it was read to its end."""

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
        with self.path.open("rb") as handle:
            handle.seek(self.start)
            self._handle = handle
            yield from _jsonl_lines(self, str(self.path))
            self.finished = handle.tell() >= self.end
            self._handle = None


def plan(args: argparse.Namespace) -> list[Task]:
    """The tasks for the command's paths, in the order one process would read them."""
    from . import skipped

    tasks: list[Task] = []
    for source in expand(args.paths):
        if skipped(source, args):
            continue
        form = args.input_format or (SUFFIXES.get(source.suffix.lower(), "json") if isinstance(source, Path) else None)
        # a file whose name is not UTF-8 is reported whole, as -j 1 reports it
        if isinstance(source, Path) and form == "jsonl" and source.is_file() and name_problem(str(source)) is None:
            try:
                size = source.stat().st_size
                ranges = line_ranges(source, max(args.jobs * RANGES_PER_JOB, -(-size // RANGE_MAX))) if size >= SPLIT_MIN else None
            except OSError:  # read as a whole, which reports why it cannot be read
                ranges = None
            if ranges is not None:
                tasks.extend(Task(source, start, end) for start, end in ranges)
                continue
        tasks.append(Task(source))
    return tasks


_context: dict[str, Any] = {}


def _initialize(args: argparse.Namespace, suite: dict[str, Any] | None) -> None:
    _context.update(args=args, suite=suite)


def document_reports(
    source: Path | str, documents: Iterable[Loaded], args: argparse.Namespace, suite: dict[str, Any] | None
) -> Iterator[tuple[Loaded, list[Entry]]]:
    """Each document with its entries: its own first, then (for a suite) its test cases file's."""
    from . import source_reports

    for loaded in documents:
        yield loaded, list(source_reports(source, args, suite, iter([loaded])))


# a task's result: its items, each with whether its lines are the range's (to be moved); the lines of the range;
# whether the range was read to its end (a line over the input size limit stops the reading of the whole file)
Done = tuple[list[tuple[T, bool]], int, bool]


def _validate_task(task: Task) -> Done[Entry]:
    from . import source_reports

    args, suite = _context["args"], _context["suite"]
    if task.end < 0:
        return [(entry, False) for entry in source_reports(task.source, args, suite)], 0, True
    assert isinstance(task.source, Path)
    lines = LineRange(task.source, task.start, task.end)
    out: list[tuple[Entry, bool]] = []
    for _, entries in document_reports(task.source, lines.documents(), args, suite):
        out += [(entry, index == 0) for index, entry in enumerate(entries)]
    return out, lines.lines, lines.finished


def _summarize_task(task: Task) -> Done[Summarizing]:
    from .summarizecmd import source_summaries

    args = _context["args"]
    if task.end < 0:
        return [(item, False) for item in source_summaries(task.source, args)], 0, True
    assert isinstance(task.source, Path)
    lines = LineRange(task.source, task.start, task.end)
    out = [(item, True) for item in source_summaries(task.source, args, lines.documents())]
    return out, lines.lines, lines.finished


def _run(
    args: argparse.Namespace, suite: dict[str, Any] | None, work: Callable[[Task], Done[T]], shift: Callable[[T, int], T]
) -> Iterator[T]:
    """Every task's items in task order, an item of a range moved down by the lines of its file's earlier ranges
    (none after a range that stopped the reading of its file). Stdin is read here, in the parent, which holds it."""
    tasks = plan(args)
    if len(tasks) == 1 and tasks[0].end < 0:
        # one whole file: checked here, where a result set read in pieces gets a helper process (validate_file's
        # ``jobs``); a pool of one would only add a process start
        _initialize(args, suite)
        yield from (item for item, _ in work(tasks[0])[0])
        return
    one_each = argparse.Namespace(**{**vars(args), "jobs": 1})  # a pool worker's file gets no helper of its own
    with ProcessPoolExecutor(max_workers=min(args.jobs, max(1, len(tasks))), initializer=_initialize, initargs=(one_each, suite)) as pool:
        _initialize(one_each, suite)
        done = iter(pool.map(work, [t for t in tasks if t.source != "-"]))
        offsets: dict[Path | str, int] = {}
        stopped: set[Path | str] = set()
        for task in tasks:
            items, lines, finished = work(task) if task.source == "-" else next(done)
            if task.source in stopped:
                continue
            base = 0
            if task.end >= 0:
                base = offsets.get(task.source, 0)
                offsets[task.source] = base + lines
                if not finished:
                    stopped.add(task.source)
            for item, moves in items:
                yield shift(item, base) if moves and base else item


def _renumbered(message: str, line: int, base: int) -> str:
    """The loader's message for a line over the input size limit names its line: moved with it."""
    named = f"line {line} is "
    return f"line {line + base} is " + message[len(named) :] if message.startswith(named) else message


def _shift_findings(findings: tuple[Finding, ...], base: int) -> tuple[Finding, ...]:
    return tuple(
        replace(f, line=f.line + base, message=_renumbered(f.message, f.line, base)) if f.line is not None else f for f in findings
    )


def _shift_entry(entry: Entry, base: int) -> Entry:
    report, readable = entry
    line = None if report.line is None else report.line + base
    moved = report._replace(line=line, errors=_shift_findings(report.errors, base), warnings=_shift_findings(report.warnings, base))
    return moved, readable


def _shift_summarizing(item: Summarizing, base: int) -> Summarizing:
    problem = item.problem
    if problem is not None and problem.line is not None:
        problem = replace(problem, line=problem.line + base, message=_renumbered(problem.message, problem.line, base))
    return replace(
        item,
        line=None if item.line is None else item.line + base,
        refused=None if item.refused is None else _shift_entry((item.refused, True), base)[0],
        problem=problem,
    )


def validate_reports(args: argparse.Namespace, suite: dict[str, Any] | None) -> Iterator[Entry]:
    """What ``cli._reports`` yields for ``args``, computed by ``args.jobs`` processes."""
    yield from _run(args, suite, _validate_task, _shift_entry)


def summarize_sources(args: argparse.Namespace) -> Iterator[Summarizing]:
    """What ``summarizecmd.cmd_summarize`` collects for ``args``, computed by ``args.jobs`` processes."""
    yield from _run(args, None, _summarize_task, _shift_summarizing)
