"""What ``evalschema summarize`` makes of each result set of a source — validated, then summarized if valid (or
``--force``) — in one reading. Below both ``summarizecmd`` (the command, which prints) and ``parallel`` (``-j N``,
which computes the same in other processes), so that neither imports the other.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding
from ..core.limits import MAX_FINDINGS
from ..io.loader import Loaded, load_path, load_stdin, name_problem, not_an_object
from ..pipeline import placed, summarize_file, validate, validate_and_summarize_file
from ..report.entry import ReportEntry
from ..report.json_report import entry as _entry
from .common import STREAM_CHOICES
from .common import UNREADABLE_CODES as _UNREADABLE_CODES
from .common import json_path as _json_file

if TYPE_CHECKING:
    from ..report.html import CaseLists
    from ..summary.states import Summary


@dataclass(frozen=True)
class Summarizing:
    """What ``summarize`` makes of one result set (``line``: of a JSON Lines entry): the entry of its findings if it
    is not valid (``refused``), why it cannot be read (``problem``), or its own fields (without its rows), its
    summary and, for the HTML report, its case lists."""

    path: str
    line: int | None = None
    refused: ReportEntry | None = None
    problem: Finding | None = None
    fields: dict[str, Any] | None = None
    summary: Summary | None = None
    lists: CaseLists | None = None
    attempts: dict[str, Any] | None = None  # pass@k, pass^k, flip rate, when found while reading (else from ``fields``)


def source_summaries(source: Path | str, args: argparse.Namespace, documents: Iterator[Loaded] | None = None) -> Iterator[Summarizing]:
    """The result sets of one source, validated, then summarized if valid or ``--force`` (``documents``: its
    documents when already read, e.g. a range of JSON Lines, whose file name was checked)."""
    from ..report.html import CaseLists, case_lists
    from ..summary.states import summarize

    if documents is None:
        bad_name = name_problem(str(source))
        if bad_name is not None:
            yield Summarizing(str(source), problem=bad_name)
            return
        path = _json_file(source, args.input_format)
        if path is not None:  # one reading (large files in pieces): the findings, the summary, the attempt statistics
            from ..compare.files import AttemptTally

            seen: list[tuple[CaseLists | None, AttemptTally]] = []

            def each_row() -> Callable[[Any], None]:
                lists, tally = CaseLists() if args.html else None, AttemptTally()
                seen.append((lists, tally))
                if lists is None:
                    return tally.add

                def both(row: Any) -> None:
                    lists.add(row)
                    tally.add(row)

                return both

            report, summarized = validate_and_summarize_file(
                path, stream_rows=STREAM_CHOICES[args.stream], place_limit=MAX_FINDINGS, each_row=each_row
            )
            # a file that cannot be read, or holds no JSON object, has nothing to summarize at all (exit 2)
            problem = next(
                (f for f in report.errors if f.code in _UNREADABLE_CODES or (f.code == "TYPE_MISMATCH" and f.pointer == "")), None
            )
            if problem is not None:
                yield Summarizing(str(path), problem=problem)
                return
            refused = None if report.valid else _entry(str(path), None, report)
            if refused is not None and not args.force:
                yield Summarizing(str(path), refused=refused)
                return
            if summarized is None:  # decided before its rows were read (a newer major version, say): read them now
                lists = CaseLists() if args.html else None
                again = summarize_file(path, stream_rows=STREAM_CHOICES[args.stream], each_row=lists.add if lists is not None else None)
                if isinstance(again, Finding):
                    yield Summarizing(str(path), refused=refused, problem=again)
                else:
                    yield Summarizing(str(path), refused=refused, fields=again[0], summary=again[1], lists=lists)
                return
            lists, tally = seen[-1]
            fields, summary = summarized
            attempts = tally.to_dict() if summary.attempts is not None else None
            yield Summarizing(str(path), refused=refused, fields=fields, summary=summary, lists=lists, attempts=attempts)
            return
        documents = load_stdin(args.input_format) if source == "-" else load_path(Path(source), args.input_format)
    for loaded in documents:
        document = loaded.document
        if loaded.problem is not None or not isinstance(document, dict):
            problem = loaded.problem or not_an_object()
            yield Summarizing(loaded.path, loaded.line, problem=problem)
            continue
        report = validate(document, "resultset")
        if report.findings:
            report = placed(report, loaded.positions())
        refused = None if report.valid else _entry(loaded.path, loaded.line, report)
        if refused is not None and not args.force:
            yield Summarizing(loaded.path, loaded.line, refused=refused)
            continue
        fields = {k: v for k, v in document.items() if k != "results"}
        lists = case_lists(document) if args.html else None
        yield Summarizing(loaded.path, loaded.line, refused=refused, fields=fields, summary=summarize(document), lists=lists)
