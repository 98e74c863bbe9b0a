"""``evalschema summarize``: the reference summary of result sets (text, JSON, HTML), with their attempt statistics.

A module of its own so that the other commands do not import it (start-up: ``evalschema.__main__``). Exit statuses: the
command's (``evalschema.cli``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.display import display_path, finite, visible
from ..core.findings import Finding
from ..core.limits import MAX_FINDINGS
from ..io.gate import Outputs
from ..io.loader import Loaded, load_path, load_stdin, name_problem, not_an_object
from ..pipeline import placed, summarize_file, validate, validate_and_summarize_file
from ..report.entry import ReportEntry
from ..report.json_report import entry as _entry
from ..report.text import colour as _colour
from ..report.text import render_text as _render_text
from .common import EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, STREAM_CHOICES, sources_of
from .common import UNREADABLE_CODES as _UNREADABLE_CODES
from .common import json_path as _json_file
from .common import write as _write

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


def cmd_summarize(args: argparse.Namespace) -> int:
    """The reference summary of each result set; one that is not a valid result set is refused (its findings are
    printed, exit 1): its numbers could be ones the specification makes impossible. ``--force`` prints them
    anyway, under a warning, in text, JSON and HTML alike (the exit status stays 1). With ``-j N``, N processes
    compute the same (``evalschema.parallel``)."""
    # the output gate first: a refused --html target is refused before any work
    with Outputs([args.html] if args.html is not None else [], inputs=[s for s in sources_of(args) if isinstance(s, Path)]) as outputs:
        return _summarize(args, outputs)


def _summarize(args: argparse.Namespace, outputs: Any) -> int:
    from ..report.html import Summarized, render_html, render_text

    results: list[Summarized] = []
    refused: list[ReportEntry] = []
    invalid_labels: dict[str, int] = {}
    lists: dict[str, CaseLists] = {}
    known_attempts: dict[str, dict[str, Any]] = {}  # found while reading
    status = EXIT_OK
    if args.jobs > 1:
        from .parallel import summarize_sources

        items: Iterator[Summarizing] = summarize_sources(args)
    else:
        items = (item for source in sources_of(args) for item in source_summaries(source, args))
    for item in items:
        label = display_path(item.path) + (f":{item.line}" if item.line else "")
        if item.refused is not None:  # recorded whether or not --force summarizes it
            status = max(status, EXIT_INVALID)
            refused.append(item.refused)
            invalid_labels[label] = len(item.refused.errors)
        if item.problem is not None:
            _write(f"evalschema: {visible(display_path(item.path))}: {item.problem.code}: {visible(item.problem.message)}\n", sys.stderr)
            status = EXIT_UNREADABLE
        elif item.summary is not None:
            assert item.fields is not None
            results.append((label, item.fields, item.summary))
            if item.lists is not None:
                lists[label] = item.lists
            if item.attempts is not None:
                known_attempts[label] = item.attempts
    if args.html is not None:
        if results or not refused:
            outputs.write(args.html, render_html(results, invalid=invalid_labels, lists=lists).encode("utf-8"))
        else:
            outputs.abandon()  # nothing to show: the target is left as it was
    from . import comparecmd

    attempts = comparecmd.attempt_statistics_of(results, known_attempts)  # pass@k, pass^k, flip rate (SPEC §12.5)
    if args.format == "json":
        payload: list[dict[str, Any]] = [
            {
                "path": label,
                "valid": label not in invalid_labels,
                "summary": finite(summary.to_dict()),
                **({"attempt_statistics": finite(attempts[label])} if label in attempts else {}),
            }
            for label, _, summary in results
        ]
        payload += [{"path": e.path, "valid": False, "errors": [f.to_dict() for f in e.errors]} for e in refused if not args.force]
        _write(json.dumps(payload, indent=2, allow_nan=False) + "\n")
    else:
        if refused:
            totals = {"files": len(refused), "valid": 0, "invalid": len(refused), "unreadable": 0}
            verdict = "summarized anyway (--force)" if args.force else "not summarized (use --force to see the numbers anyway)"
            _write(_render_text(refused, totals, sys.stdout, verbosity=-1))
            _write(f"{len(refused)} invalid result set(s): {verdict}\n\n")
        _write(render_text(results, colour=_colour(sys.stdout), invalid=invalid_labels) + comparecmd.attempt_text(attempts))
    return status
