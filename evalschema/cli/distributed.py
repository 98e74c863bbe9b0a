"""Validate and summarize many result sets on a Dask cluster (``dask.distributed``): the same findings (file, line,
column) as ``evalschema validate`` and the summary of the rows of their valid result sets, merged from per-task
partial states.

Inputs are local paths, folders or globs, or fsspec URLs (``s3://bucket/runs/*.jsonl``, ``file:///data/runs``): the
tasks are planned where this runs — one per file, and one per byte range of a large JSON Lines file, cut at line
boundaries — and each worker reads its own task through fsspec, so data moves from storage to workers only. A
task's result is its report entries and its ``SummaryBuilder`` state (the rows of its valid result sets, as
``evalschema summarize`` counts them unless ``--force``, with the reducers their ``graders`` declare); the client
merges states in task order (``summary.merge`` is associative), so the merged summary is that of reading every row in
one pass — each grader's per-test-case view reduced as the first result set that declares it says (SPEC 4.7), the
view ``summarize`` gives of a single result set — and a task the engine re-runs (a worker lost mid-run) gives the same
answer.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.extras import require
from ..io.loader import SUFFIXES
from ..summary.states import SummaryBuilder, merge

if TYPE_CHECKING:
    from ..report.entry import ReportEntry

SPLIT_MIN = 64 << 20
RANGE_MAX = 64 << 20


@dataclass(frozen=True)
class Task:
    url: str  # an fsspec URL or a local path
    start: int = 0
    end: int = -1  # -1: the whole file


def _fs(url: str) -> tuple[Any, str]:
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(url)
    return fs, path


def _protocol(fs: Any) -> str:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return str(protocol)


def _unstrip(fs: Any, path: str) -> str:
    protocol = _protocol(fs)
    return path if protocol in ("file", "local") else f"{protocol}://{path}"


def expand(sources: list[str]) -> list[str]:
    """Files (sorted), folders (every JSON / JSON Lines file under them) and globs, as URLs, in the CLI's order."""
    out: list[str] = []
    for source in sources:
        fs, path = _fs(source)
        if fs.isdir(path):
            found = sorted(p for p in fs.find(path) if Path(p).suffix.lower() in (".json", ".jsonl", ".ndjson"))
        elif any(c in path for c in "*?["):
            found = sorted(fs.glob(path))
        else:
            found = [path]
        out += [_unstrip(fs, p) for p in found]
    return out


def plan(sources: list[str], *, split_min: int = SPLIT_MIN, range_max: int = RANGE_MAX) -> list[Task]:
    tasks: list[Task] = []
    for url in expand(sources):
        fs, path = _fs(url)
        size = fs.size(path) if SUFFIXES.get(Path(path).suffix.lower()) == "jsonl" else 0
        if size < max(split_min, 1):
            tasks.append(Task(url))
            continue
        bounds = [0]
        with fs.open(path, "rb") as handle:
            for piece in range(1, -(-size // range_max)):
                handle.seek(max(size * piece // -(-size // range_max) - 1, bounds[-1]))
                handle.readline()
                if bounds[-1] < handle.tell() < size:
                    bounds.append(handle.tell())
        bounds.append(size)
        tasks += [Task(url, a, b) for a, b in pairwise(bounds)]
    return tasks


def _local(url: str) -> Path | None:
    fs, path = _fs(url)
    return Path(path) if _protocol(fs) in ("file", "local") else None


class _Counted:
    """The rows of one result set, summarized as they are read; added to the task's state once its entry says they
    count (a valid result set; with ``force``, any)."""

    def __init__(self, state: SummaryBuilder, force: bool) -> None:
        self.state, self.force = state, force
        self.rows = SummaryBuilder()

    def add(self, row: Any) -> None:
        if isinstance(row, dict):
            self.rows.add(row)

    def done(self, entry: ReportEntry, fields: dict[str, Any]) -> None:
        if self.force or (entry.valid and entry.kind == "resultset"):
            # the reducers its ``graders`` declares (they may follow the rows): the per-test-case view (SPEC 4.7)
            self.rows.provenance = fields.get("graders")
            self.state.absorb(self.rows)


def _copy_range(fs: Any, remote: str, start: int, end: int, target: Path) -> None:
    """The bytes ``[start, end)`` (``end`` -1: to the end) of a file in object storage, copied to ``target`` a chunk
    at a time (memory holds one chunk, whatever the file's size)."""
    left = None if end < 0 else end - start
    with fs.open(remote, "rb") as source, target.open("wb") as out:
        source.seek(start)
        while left is None or left > 0:
            chunk = source.read(_CHUNK if left is None else min(_CHUNK, left))
            if not chunk:
                break
            out.write(chunk)
            if left is not None:
                left -= len(chunk)


_CHUNK = 4 << 20


def run_task(task: Task, options: dict[str, Any]) -> tuple[list[tuple[ReportEntry, bool]], int, bool, SummaryBuilder]:
    """A task's report entries (lines numbered within its range; each with whether it is the task's own, to be
    moved, rather than a suite's test cases file's), its number of lines, whether it was read to its end (a line
    over the input size limit stops the reading of a file) and its summary state: the rows of its valid result
    sets (with ``force``, of every result set), as ``evalschema summarize`` would count them. Each document is read
    once, for its report and its rows alike (a large JSON file in pieces: memory stays bounded)."""
    from ..io.loader import paused_gc
    from ..sources import Checking, LineRange, source_entries

    force = bool(options.get("force"))
    checking = Checking(**{k: v for k, v in options.items() if k != "force"})
    state = SummaryBuilder()  # one task's rows: the faster state; the client merges into a compact one

    def rows() -> _Counted:
        return _Counted(state, force)

    out: list[tuple[ReportEntry, bool]] = []
    with tempfile.TemporaryDirectory() as scratch:
        path = _local(task.url)
        if path is None:  # object storage: this task's bytes, copied to the worker
            fs, remote = _fs(task.url)
            path = Path(scratch) / Path(remote).name
            _copy_range(fs, remote, task.start, task.end, path)
            start, end = 0, (-1 if task.end < 0 else task.end - task.start)
        else:
            start, end = task.start, task.end
        lines, finished = 0, True
        with paused_gc():  # parsed documents hold no cycles: the collector would only walk them
            if end < 0:
                entries = [entry for entry, _ in source_entries(path, checking, None, rows=rows)]
                out += [(entry, index == 0) for index, entry in enumerate(entries)]
            else:
                part = LineRange(path, start, end)
                for loaded in part.documents():
                    entries = [entry for entry, _ in source_entries(path, checking, None, iter([loaded]), rows=rows)]
                    out += [(entry, index == 0) for index, entry in enumerate(entries)]
                lines, finished = part.lines, part.finished
    out = [(entry.with_path(task.url) if own and entry.path == str(path) else entry, own) for entry, own in out]
    return out, lines, finished, state


@dataclass
class Outcome:
    entries: list[dict[str, Any]]  # as the JSON report writes them
    state: SummaryBuilder

    @property
    def summary(self) -> dict[str, Any]:
        return self.state.build().to_dict()


def _shift(entry: ReportEntry, base: int) -> ReportEntry:
    from ..sources import shift_entry

    return shift_entry(entry, base)


def submit(
    client: Any, sources: list[str], *, strict: bool = False, force: bool = False, **plan_options: int
) -> tuple[list[Task], list[Any]]:
    """Plan the tasks and submit them to the cluster; ``collect`` turns the futures into the outcome. ``force``:
    the summary counts the rows of invalid result sets too (``evalschema summarize --force``)."""
    require("distributed", "distributed", "evalschema.cli.distributed")
    tasks = plan(sources, **plan_options)
    options = {"strict": strict, "force": force}
    futures = client.map(run_task, tasks, options=options, pure=False)
    return tasks, futures


def collect(client: Any, tasks: list[Task], futures: list[Any]) -> Outcome:
    """Every task's entries in task order (lines of a range moved by the lines before it) and the merged summary."""
    results = client.gather(futures)
    entries: list[ReportEntry] = []
    offsets: dict[str, int] = {}
    stopped: set[str] = set()
    states: list[SummaryBuilder] = []
    for task, (task_entries, lines, finished, state) in zip(tasks, results, strict=True):
        if task.url in stopped:  # after a line over the input size limit, the file is not read on (as the CLI)
            continue
        base = 0
        if task.end >= 0:
            base = offsets.get(task.url, 0)
            offsets[task.url] = base + lines
            if not finished:
                stopped.add(task.url)
        entries += [_shift(e, base) if own and base else e for e, own in task_entries]
        states.append(state)
    return Outcome([entry.to_dict() for entry in entries], merge(states, compact=True))


def validate_and_summarize(client: Any, sources: list[str], *, strict: bool = False, force: bool = False, **plan_options: int) -> Outcome:
    """Validate every document under ``sources`` and summarize the rows of its valid result sets (``force``: of
    all of them) on the cluster ``client`` is connected to."""
    tasks, futures = submit(client, sources, strict=strict, force=force, **plan_options)
    return collect(client, tasks, futures)
