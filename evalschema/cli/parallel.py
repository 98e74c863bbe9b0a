"""``validate -j N`` and ``summarize -j N``: the same work as one process, spread over a pool of N processes.

One whole file is checked in this process (a pool of one would only add a process start); in a pool, each file is
checked by one process, and a worker lost (killed, out of memory) costs only its own file's report.

The inputs become tasks: each file is one, and a large JSON Lines file is cut into byte ranges that end at line
boundaries, each range a task. Workers check their task exactly as one process would (the same functions of
``cli``) and number the lines of a range from 1; the parent reads the results in task order, adds to each line
number the lines of the file's earlier ranges, and so prints what ``-j 1`` prints, in the same order. (A suite
on a line of a range is followed by the entries of its ``test_cases_file``: their lines are that file's, not moved.)
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

from evalschema_models import rules as codes

from ..core.findings import Finding, Report
from ..core.messages import render
from ..io.loader import SUFFIXES, Loaded, name_problem, open_regular
from ..report.entry import ReportEntry
from ..report.json_report import entry as _entry
from ..sources import LineRange, renumbered_finding, shift_entry
from .common import skipped, source_reports, sources_of
from .summarizing import Summarizing, source_summaries

__all__ = ["RANGES_PER_JOB", "LineRange", "Task", "line_ranges", "plan", "summarize_sources", "validate_reports"]

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
    at the end of the file). OSError if it is not a regular file that can be opened."""
    handle = open_regular(path)  # the input gate: a path swapped for a FIFO since it was listed is not waited on
    if isinstance(handle, Finding):
        raise OSError(handle.message)  # the file is then read whole, and that reading says why it cannot be
    size = os.fstat(handle.fileno()).st_size
    bounds = [0]
    with handle:
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


def plan(args: argparse.Namespace) -> list[Task]:
    """The tasks for the command's paths, in the order one process would read them."""

    tasks: list[Task] = []
    for source in sources_of(args):
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
    for loaded in documents:
        yield loaded, list(source_reports(source, args, suite, iter([loaded])))


# a task's result: its items, each with whether its lines are the range's (to be moved); the lines of the range;
# whether the range was read to its end (a line over the input size limit stops the reading of the whole file)
Done = tuple[list[tuple[T, bool]], int, bool]


def _validate_task(task: Task) -> Done[Entry]:
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

    args = _context["args"]
    if task.end < 0:
        return [(item, False) for item in source_summaries(task.source, args)], 0, True
    assert isinstance(task.source, Path)
    lines = LineRange(task.source, task.start, task.end)
    out = [(item, True) for item in source_summaries(task.source, args, lines.documents())]
    return out, lines.lines, lines.finished


def _lost(task: Task, lost: Callable[[Task, Finding], T]) -> Done[T]:
    """A task whose process was lost (killed, out of memory): its file cannot be read, and is not read on."""
    detail = "the process checking it was lost (killed, or out of memory)"
    finding = Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "os_error", detail=detail))
    return [(lost(task, finding), False)], 0, False


def _outcome(future: Future[Done[T]], task: Task, again: Callable[[Task], Done[T]], lost: Callable[[Task, Finding], T]) -> Done[T]:
    """A task's result; if the pool broke (a worker lost), the task run again in a process of its own, and if that
    one is lost too, the task reported as unreadable. The other tasks are still run and reported."""
    try:
        return future.result()
    except BrokenProcessPool:
        pass
    try:
        return again(task)
    except BrokenProcessPool:
        return _lost(task, lost)


def _run(
    args: argparse.Namespace,
    suite: dict[str, Any] | None,
    work: Callable[[Task], Done[T]],
    shift: Callable[[T, int], T],
    lost: Callable[[Task, Finding], T],
) -> Iterator[T]:
    """Every task's items in task order, an item of a range moved down by the lines of its file's earlier ranges
    (none after a range that stopped the reading of its file). Stdin is read here, in the parent, which holds it.
    A task whose worker is lost is run again alone; lost again, its file is reported unreadable (``lost``)."""
    tasks = plan(args)
    if len(tasks) == 1 and tasks[0].end < 0:
        # one whole file: checked here; a pool of one would only add a process start
        _initialize(args, suite)
        yield from (item for item, _ in work(tasks[0])[0])
        return
    one_each = argparse.Namespace(**{**vars(args), "jobs": 1})  # a worker checks its task as one process does

    def alone(task: Task) -> Done[T]:
        with ProcessPoolExecutor(max_workers=1, initializer=_initialize, initargs=(one_each, suite)) as retry:
            return retry.submit(work, task).result()

    with ProcessPoolExecutor(max_workers=min(args.jobs, max(1, len(tasks))), initializer=_initialize, initargs=(one_each, suite)) as pool:
        _initialize(one_each, suite)
        done = iter([pool.submit(work, t) for t in tasks if t.source != "-"])
        offsets: dict[Path | str, int] = {}
        stopped: set[Path | str] = set()
        for task in tasks:
            items, lines, finished = work(task) if task.source == "-" else _outcome(next(done), task, alone, lost)
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


def _shift_entry(entry: Entry, base: int) -> Entry:
    return shift_entry(entry[0], base), entry[1]


def _shift_summarizing(item: Summarizing, base: int) -> Summarizing:
    return replace(
        item,
        line=None if item.line is None else item.line + base,
        refused=None if item.refused is None else shift_entry(item.refused, base),
        problem=None if item.problem is None else renumbered_finding(item.problem, base),
    )


def _lost_entry(task: Task, finding: Finding) -> Entry:
    return _entry(str(task.source), None, Report.build(None, [finding], strict=False)), False


def _lost_summarizing(task: Task, finding: Finding) -> Summarizing:
    return Summarizing(str(task.source), problem=finding)


def validate_reports(args: argparse.Namespace, suite: dict[str, Any] | None) -> Iterator[Entry]:
    """What ``cli._reports`` yields for ``args``, computed by ``args.jobs`` processes."""
    yield from _run(args, suite, _validate_task, _shift_entry, _lost_entry)


def summarize_sources(args: argparse.Namespace) -> Iterator[Summarizing]:
    """What ``summarizecmd.cmd_summarize`` collects for ``args``, computed by ``args.jobs`` processes."""
    yield from _run(args, None, _summarize_task, _shift_summarizing, _lost_summarizing)
