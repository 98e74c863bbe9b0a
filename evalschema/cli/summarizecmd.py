"""``evalschema summarize``: the reference summary of result sets (text, JSON, HTML), with their attempt statistics.

A module of its own so that the other commands do not import it (start-up: ``evalschema.__main__``). Exit statuses: the
command's (``evalschema.cli``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.display import display_path, finite, visible
from ..io.gate import Outputs
from ..report.entry import ReportEntry
from ..report.text import colour as _colour
from ..report.text import render_text as _render_text
from .common import EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, sources_of
from .common import write as _write
from .summarizing import Summarizing, source_summaries

if TYPE_CHECKING:
    from ..report.html import CaseLists


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
