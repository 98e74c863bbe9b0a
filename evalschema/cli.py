"""The ``evalschema`` command: validate, summarize and migrate documents.

Exit statuses (every subcommand): 0 success (for ``validate``: every document valid, warnings allowed unless
``--strict``); 1 at least one document invalid (``migrate --check``: a migration is needed); 2 a usage error,
or at least one input unreadable or unparseable (the other inputs are still checked and reported).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from . import __version__, diffcmd
from .findings import Finding, Report
from .loader import Loaded, expand, load_path, load_stdin
from .positions import locate
from .registry import KINDS, spec_version
from .validate import validate

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2
FORMS = ("json", "jsonl", "yaml")


class UsageError(Exception):
    pass


def _write(text: str, stream: TextIO | None = None) -> None:
    """Write; if the reader has gone away (``| head``), stop writing but keep the exit status."""
    stream = stream or sys.stdout
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _colour(stream: TextIO) -> bool:
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


class Progress:
    """A one-line progress display on stderr, only when stderr is a terminal and the run is long."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.count = 0
        self.shown = False

    def tick(self, label: str) -> None:
        self.count += 1
        if self.enabled and self.count % 200 == 0:
            _write(f"\r\033[Kchecked {self.count:,} documents… {label[-60:]}", sys.stderr)
            self.shown = True

    def done(self) -> None:
        if self.shown:
            _write("\r\033[K", sys.stderr)


# --- validate -------------------------------------------------------------------------------------------


def _documents(arguments: list[str], form: str | None) -> Iterator[Loaded]:
    for source in expand(arguments):
        if source == "-":
            yield from load_stdin(form)
        else:
            assert isinstance(source, Path)
            yield from load_path(source, form)


def _load_suite(path: Path) -> dict[str, Any]:
    loaded = list(load_path(path))
    if len(loaded) != 1 or loaded[0].problem is not None or not isinstance(loaded[0].document, dict):
        problem = loaded[0].problem if loaded and loaded[0].problem else None
        raise UsageError(f"--suite {path}: " + (f"{problem.code}: {problem.message}" if problem else "not one JSON object"))
    suite = loaded[0].document
    if isinstance(suite.get("test_cases_file"), str) and "test_cases" not in suite:
        # the cross-document rules need the test cases: read them from the JSON Lines file beside the suite
        cases = [d.document for d in load_path(path.parent / suite["test_cases_file"], "jsonl") if d.problem is None]
        suite = {**suite, "test_cases": cases}
    return suite


def _entry(loaded: Loaded, report: Report) -> dict[str, Any]:
    positions = loaded.positions() if report.findings else {}

    def finding(item: Finding) -> dict[str, Any]:
        out = item.to_dict()
        if "line" not in out:
            where = locate(positions, item.pointer)
            if where is not None:
                out["line"], out["column"] = where
        return out

    entry: dict[str, Any] = {"path": loaded.path}
    if loaded.line is not None:
        entry["line"] = loaded.line
    entry.update(
        kind=report.kind,
        valid=report.valid,
        errors=[finding(f) for f in report.errors],
        warnings=[finding(f) for f in report.warnings],
    )
    return entry


def _render_text(entries: list[dict[str, Any]], totals: dict[str, int], stream: TextIO) -> str:
    colour = _colour(stream)

    def paint(text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if colour else text

    lines: list[str] = []
    for entry in entries:
        findings = entry["errors"] + entry["warnings"]
        if not findings:
            continue
        where = entry["path"] + (f" (line {entry['line']})" if "line" in entry else "")
        lines.append(paint(where, "1") + (f"  [{entry['kind']}]" if entry["kind"] else ""))
        for f in findings:
            position = f"{f['line']}:{f.get('column') or 1}" if "line" in f else "-"
            severity = paint("error", "31") if f["severity"] == "error" else paint("warning", "33")
            lines.append(f"  {position:>9}  {severity}  {paint(f['code'], '36')}  {f['pointer'] or '/'}  {f['message']}")
    summary = (
        f"{totals['files']} document(s): {totals['valid']} valid, {totals['invalid']} invalid, "
        f"{totals['unreadable']} unreadable; {sum(len(e['errors']) for e in entries)} error(s), "
        f"{sum(len(e['warnings']) for e in entries)} warning(s)"
    )
    lines.append(paint(summary, "32" if totals["invalid"] + totals["unreadable"] == 0 else "31"))
    return "\n".join(lines) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _render_github(entries: list[dict[str, Any]]) -> str:
    lines = []
    for entry in entries:
        for f in entry["errors"] + entry["warnings"]:
            props = [f"file={_escape_property(entry['path'])}"]
            if "line" in f:
                props += [f"line={f['line']}", f"col={f.get('column') or 1}"]
            props.append(f"title={_escape_property(f['code'])}")
            level = "error" if f["severity"] == "error" else "warning"
            lines.append(f"::{level} {','.join(props)}::{_escape_data((f['pointer'] or '/') + ': ' + f['message'])}")
    return "\n".join(lines) + ("\n" if lines else "")


_UNREADABLE_CODES = frozenset({"FILE_UNREADABLE", "INVALID_JSON", "INVALID_YAML", "DUPLICATE_KEY"})


def cmd_validate(args: argparse.Namespace) -> int:
    if args.spec_version is not None:
        from . import releases

        if args.spec_version not in releases.available():
            raise UsageError(f"--spec-version {args.spec_version}: no such release; available: {', '.join(releases.available())}")
    suite = _load_suite(args.suite) if args.suite is not None else None
    entries: list[dict[str, Any]] = []
    progress = Progress()
    unreadable = invalid = 0
    for loaded in _documents(args.paths, args.input_format):
        if loaded.problem is not None:
            entry = _entry(loaded, Report.build(args.kind, [loaded.problem], strict=False))
            unreadable += 1
        else:
            report = validate(
                loaded.document, args.kind, strict=args.strict, allow_unknown=args.allow_unknown, suite=suite,
                engine=args.engine, spec_version=args.spec_version,
            )
            entry = _entry(loaded, report)
            invalid += not report.valid
        entries.append(entry)
        progress.tick(loaded.path)
    progress.done()
    if not entries:
        raise UsageError("no documents found in the given paths")
    totals = {"files": len(entries), "valid": len(entries) - invalid - unreadable, "invalid": invalid, "unreadable": unreadable}
    if args.format == "json":
        _write(json.dumps({"files": entries, "summary": totals}, indent=2, ensure_ascii=False) + "\n")
    elif args.format == "github":
        _write(_render_github(entries))
    else:
        _write(_render_text(entries, totals, sys.stdout))
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_INVALID if invalid else EXIT_OK


# --- summarize and migrate live in their own modules ------------------------------------------------------


def cmd_summarize(args: argparse.Namespace) -> int:
    from .report import render_html, render_text

    results: list[tuple[str, dict[str, Any]]] = []
    status = EXIT_OK
    for loaded in _documents(args.paths, args.input_format):
        if loaded.problem is not None or not isinstance(loaded.document, dict):
            problem = loaded.problem or Finding("", "TYPE_MISMATCH", "error", "not a JSON object")
            _write(f"evalschema: {loaded.path}: {problem.code}: {problem.message}\n", sys.stderr)
            status = EXIT_UNREADABLE
            continue
        label = loaded.path + (f":{loaded.line}" if loaded.line else "")
        results.append((label, loaded.document))
    if args.html is not None:
        from .atomic import write_atomic

        write_atomic(args.html, render_html(results).encode("utf-8"))
    if args.format == "json":
        from .summary import summarize

        payload = [{"path": label, "summary": summarize(document).to_dict()} for label, document in results]
        _write(json.dumps(payload, indent=2) + "\n")
    else:
        _write(render_text(results, colour=_colour(sys.stdout)))
    return status


def cmd_migrate(args: argparse.Namespace) -> int:
    from .migrate import run

    return run(args.paths, check=args.check, write=_write)


# --- entry points ---------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalschema", description="Validate, summarize and migrate evalschema documents.")
    parser.add_argument("--version", action="version", version=f"evalschema {__version__} (specification {spec_version()})")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = commands.add_parser("validate", help="validate documents (files, folders, globs, - for stdin)")
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--kind", choices=KINDS, help="the document kind (default: detected per document)")
    check.add_argument("--suite", type=Path, metavar="SUITE", help="the suite the result sets ran: enables the cross-document rules")
    check.add_argument("--strict", action="store_true", help="report warnings as errors")
    check.add_argument("--allow-unknown", action="store_true", help="unknown fields in a newer minor version are warnings")
    check.add_argument("--format", choices=("text", "json", "github"), default="text")
    check.add_argument("--input-format", choices=FORMS, help="how to parse inputs (default: by file extension; stdin: JSON or JSON Lines)")
    check.add_argument("--spec-version", metavar="VERSION", help="validate against a published release (e.g. 1.0.0) instead of the current schemas")
    check.add_argument("--engine", choices=("fast", "reference"), default="fast", help="JSON Schema engine (same findings; reference is slower)")
    check.set_defaults(handler=cmd_validate)

    summary = commands.add_parser("summarize", help="the reference summary of result sets")
    summary.add_argument("paths", nargs="+", metavar="RESULTSET")
    summary.add_argument("--format", choices=("text", "json"), default="text")
    summary.add_argument("--html", type=Path, metavar="REPORT.html", help="also write a self-contained HTML report with charts")
    summary.add_argument("--input-format", choices=FORMS)
    summary.set_defaults(handler=cmd_summarize)

    migrate = commands.add_parser("migrate", help="migrate packs off fail_on_violation (validators always enforce)")
    migrate.add_argument("paths", nargs="+", type=Path, metavar="PACK")
    migrate.add_argument("--check", action="store_true", help="print the diff and exit 1 if a migration is needed; write nothing")
    migrate.set_defaults(handler=cmd_migrate)

    diffcmd.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_UNREADABLE
    try:
        return int(args.handler(args))
    except UsageError as exc:
        _write(f"evalschema: {exc}\n", sys.stderr)
        return EXIT_UNREADABLE
    except OSError as exc:  # a write that failed (disk full, permissions): files were replaced atomically or not at all
        _write(f"evalschema: {exc.filename or ''}: {exc.strerror or exc}; nothing was changed\n", sys.stderr)
        return EXIT_UNREADABLE


def run() -> None:
    import gc

    # documents hold no reference cycles: the cyclic collector would only walk millions of parsed objects
    gc.disable()
    for stream in (sys.stdout, sys.stderr):  # a lone surrogate in a document must not stop the report
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        status = main()
    except KeyboardInterrupt:
        status = 130
    sys.exit(status)
