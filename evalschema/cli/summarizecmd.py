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
    if args.format == "markdown":
        _write(render_markdown(results, attempts, refused, invalid_labels, force=args.force))
    elif args.format == "json":
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


# --- Markdown (``--format markdown``: ``$GITHUB_STEP_SUMMARY``, a pull request comment) ------------------------
# Generic over the summary's JSON: every member it holds is shown (a scalar as a row, an object of scalars as rows
# under its name, an object of objects or a list of objects as a table of its own), so that a field the summary
# gains appears without a change here. Numbers are written by the schema's type (``integer`` or ``number``; a
# ``…rate`` as a percentage), as the TypeScript command writes them (``js/src/report/summaryMarkdown.ts``).


def _schema_defs(name: str) -> dict[str, Any]:
    from ..schemas.registry import schema_dir

    defs: dict[str, Any] = json.loads((schema_dir() / name).read_text(encoding="utf-8"))["$defs"]
    return defs


def _resolved(node: Any, defs: dict[str, Any]) -> dict[str, Any] | None:
    for _ in range(32):
        if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            break
        ref: str = node["$ref"]
        node = defs.get(ref[len("#/$defs/") :]) if ref.startswith("#/$defs/") else None
    return node if isinstance(node, dict) else None


def _member(node: dict[str, Any] | None, key: str, defs: dict[str, Any]) -> dict[str, Any] | None:
    if node is None:
        return None
    properties = node.get("properties")
    if isinstance(properties, dict) and key in properties:
        return _resolved(properties[key], defs)
    extra = node.get("additionalProperties")
    return _resolved(extra, defs) if isinstance(extra, dict) else None


def _md_number(value: Any, key: str, node: dict[str, Any] | None) -> Any:
    """A number as the Markdown shows it: an integer as is, a rate as a percentage, another number to 3 decimals."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    kind = node.get("type") if node else None
    kinds = kind if isinstance(kind, list) else [kind]
    if "integer" in kinds or ("number" not in kinds and float(value).is_integer()):
        return str(int(value))
    if key.endswith("rate"):
        return f"{100 * value:.1f} %"
    return f"{value:.3f}"


def _words(key: str) -> str:
    return key.replace("_", " ")


def _md_section(title: str, value: dict[str, Any], node: dict[str, Any] | None, defs: dict[str, Any]) -> list[str]:
    """``value``'s scalars as rows of one table, then a table for each member that is an object of objects or a
    list of objects."""
    from ..compare.render import md

    rows: list[str] = []
    tables: list[str] = []
    for key, item in value.items():
        child = _member(node, key, defs)
        if isinstance(item, dict) and item and all(isinstance(v, dict) for v in item.values()):
            tables += _md_table(_words(key), list(item.items()), _member(child, "", defs) if child else None, defs)
        elif isinstance(item, list) and item and all(isinstance(v, dict) for v in item):
            tables += _md_table(_words(key), [(None, v) for v in item], _resolved(child.get("items"), defs) if child else None, defs)
        elif isinstance(item, dict):
            rows += [_md_row(f"{_words(key)}: {_words(k)}", _md_number(v, k, _member(child, k, defs))) for k, v in item.items()]
        else:
            rows.append(_md_row(_words(key), _md_number(item, key, child)))
    head = [f"| {md(title)} | value |", "| --- | ---: |"] if rows else []
    return [*head, *rows, *tables]


def _md_row(*cells: Any) -> str:
    from ..compare.render import md

    return "| " + " | ".join(md(cell) for cell in cells) + " |"


def _md_cell(value: Any, key: str, node: dict[str, Any] | None, defs: dict[str, Any]) -> Any:
    """A table cell: a number as ``_md_number`` shows it; an object (a grader's per-test-case view) as its members,
    ``name: value; …``, each shown the same way (never a JSON text, whose numbers the two SDKs write differently)."""
    if not isinstance(value, dict):
        return _md_number(value, key, node)
    parts = []
    for name, item in value.items():
        shown = _md_cell(item, name, _member(node, name, defs), defs)
        text = "\u2014" if shown is None else shown if isinstance(shown, str) else json.dumps(shown, ensure_ascii=False, sort_keys=True)
        parts.append(f"{_words(name)}: {text}")
    return "; ".join(parts)


def _md_table(title: str, items: list[tuple[str | None, dict[str, Any]]], node: dict[str, Any] | None, defs: dict[str, Any]) -> list[str]:
    """An object of objects (its keys in the first column, headed ``title``) or a list of objects, as one table."""
    columns = list(dict.fromkeys(k for _, item in items for k in item))
    named = items[0][0] is not None
    head = ([title] if named else []) + [_words(c) for c in columns]
    out = ["", _md_row(*head), "| " + " | ".join(["---"] * named + ["---:"] * len(columns)) + " |"]
    for name, item in items:
        cells = [_md_cell(item.get(c), c, _member(node, c, defs), defs) if c in item else "" for c in columns]
        out.append(_md_row(*([name] if named else []), *cells))
    return out


def render_markdown(
    results: list[tuple[str, dict[str, Any], Any]],
    attempts: dict[str, dict[str, Any]],
    refused: list[ReportEntry],
    invalid: dict[str, int],
    *,
    force: bool,
) -> str:
    """Each summarized result set (its summary, then its attempt statistics) and the findings of those refused, as
    Markdown with every quoted value escaped (``compare.render.md``)."""
    from evalschema_models.constants import SUMMARY_INVALID_WARNING

    from ..compare.render import md

    resultset, comparison = _schema_defs("resultset.json"), _schema_defs("comparison.json")
    out = ["### evalschema summarize"]
    if refused:
        verdict = "summarized anyway (--force)" if force else "not summarized (use --force to see the numbers anyway)"
        out += ["", "**" + md(f"{len(refused)} invalid result set(s): {verdict}") + "**", ""]
        out += [_md_row("file", "line", "severity", "code", "pointer", "message"), "| --- | ---: | --- | --- | --- | --- |"]
        for e in refused:
            label = e.path + (f":{e.line}" if e.line is not None else "")
            out += [_md_row(label, f.line if f.line is not None else "", f.severity, f.code, f.pointer or "/", f.message) for f in e.errors]
            if e.omitted:
                out.append(_md_row(label, "", "", "", "", f"… {e.omitted:,} more finding(s) not shown"))
    for label, fields, summary in results:
        suite, run = (fields.get(key, "?") for key in ("suite_id", "run_id"))
        out += ["", f"#### {md(label)} (suite {md(suite)}, run {md(run)})", ""]
        if label in invalid:
            out += ["**" + md(SUMMARY_INVALID_WARNING.format(errors=invalid[label])) + "**", ""]
        out += _md_section("summary", finite(summary.to_dict()), resultset.get("Summary"), resultset)
        if label in attempts:
            out += ["", *_md_section("attempt statistics", finite(attempts[label]), comparison.get("AttemptStats"), comparison)]
    return "\n".join(out) + "\n"
