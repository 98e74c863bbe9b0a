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

from . import comparecmd, diffcmd, schemacmd
from .extras import MissingExtra
from .findings import Finding, Report
from .loader import SUFFIXES, expand, load_path, load_stdin
from .registry import KINDS, spec_version
from .selection import declared
from .streaming import STREAM_THRESHOLD, placed, summarize_file, validate_file
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


def _entry(path: str, line: int | None, report: Report) -> dict[str, Any]:
    """The report of one document (``line``: of a JSON Lines entry) as the JSON report writes it."""
    entry: dict[str, Any] = {"path": path}
    if line is not None:
        entry["line"] = line
    entry.update(
        kind=report.kind,
        valid=report.valid,
        errors=[f.to_dict() for f in report.errors],
        warnings=[f.to_dict() for f in report.warnings],
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


STREAM_CHOICES = {"auto": None, "always": True, "never": False}


def _json_file(source: Path | str, form: str | None) -> Path | None:
    """The path, if this source is a JSON file (by extension or ``--input-format json``), to read by path."""
    if not isinstance(source, Path):
        return None
    return source if (form or SUFFIXES.get(source.suffix.lower(), "json")) == "json" else None


def _reports(args: argparse.Namespace, suite: dict[str, Any] | None) -> Iterator[tuple[dict[str, Any], bool]]:
    """An entry per document, and whether it could be read. JSON files go through ``validate_file`` (large result
    sets are read in pieces); stdin, JSON Lines and YAML through the loaders."""
    options: dict[str, Any] = dict(
        strict=args.strict, allow_unknown=args.allow_unknown, suite=suite, engine=args.engine, spec_version=args.spec_version
    )
    for source in expand(args.paths):
        if args.only_declared and isinstance(source, Path) and source.is_file() and not declared(source):
            continue
        path = _json_file(source, args.input_format)
        if path is not None:
            report = validate_file(path, args.kind, stream_rows=STREAM_CHOICES[args.stream], **options)
            readable = not any(f.code in _UNREADABLE_CODES for f in report.errors)
            yield _entry(str(path), None, report), readable
            continue
        loaded_documents = load_stdin(args.input_format) if source == "-" else load_path(Path(source), args.input_format)
        for loaded in loaded_documents:
            if loaded.problem is not None:
                yield _entry(loaded.path, loaded.line, Report.build(args.kind, [loaded.problem], strict=False)), False
                continue
            report = validate(loaded.document, args.kind, **options)
            if report.findings:
                report = placed(report, loaded.positions())
            yield _entry(loaded.path, loaded.line, report), True


def cmd_validate(args: argparse.Namespace) -> int:
    if args.spec_version is not None:
        from . import releases

        if args.spec_version not in releases.available():
            raise UsageError(f"--spec-version {args.spec_version}: no such release; available: {', '.join(releases.available())}")
    suite = _load_suite(args.suite) if args.suite is not None else None
    entries: list[dict[str, Any]] = []
    progress = Progress()
    unreadable = invalid = 0
    for entry, readable in _reports(args, suite):
        if not readable:
            unreadable += 1
        else:
            invalid += not entry["valid"]
        entries.append(entry)
        progress.tick(entry["path"])
    progress.done()
    if not entries and args.only_declared:  # a commit that touches no evalschema document
        _write("no evalschema documents among the given files\n")
        return EXIT_OK
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
    from .report import Summarized, render_html, render_text
    from .summary import summarize

    results: list[Summarized] = []
    status = EXIT_OK

    def unreadable(path: str, problem: Finding) -> None:
        nonlocal status
        _write(f"evalschema: {path}: {problem.code}: {problem.message}\n", sys.stderr)
        status = EXIT_UNREADABLE

    for source in expand(args.paths):
        path = _json_file(source, args.input_format)
        if path is not None:  # large files are summarized in pieces
            summarized = summarize_file(path, stream_rows=STREAM_CHOICES[args.stream])
            if isinstance(summarized, Finding):
                unreadable(str(path), summarized)
            else:
                results.append((str(path), *summarized))
            continue
        for loaded in load_stdin(args.input_format) if source == "-" else load_path(Path(source), args.input_format):
            if loaded.problem is not None or not isinstance(loaded.document, dict):
                unreadable(loaded.path, loaded.problem or Finding("", "TYPE_MISMATCH", "error", "not a JSON object"))
                continue
            label = loaded.path + (f":{loaded.line}" if loaded.line else "")
            results.append((label, loaded.document, summarize(loaded.document)))
    if args.html is not None:
        from .atomic import write_atomic

        write_atomic(args.html, render_html(results).encode("utf-8"))
    attempts = comparecmd.attempt_statistics_of(results)  # pass@k, pass^k, flip rate (SPEC §12.5)
    if args.format == "json":
        payload = [{"path": label, "summary": summary.to_dict(), **({"attempt_statistics": attempts[label]} if label in attempts else {})} for label, _, summary in results]
        _write(json.dumps(payload, indent=2) + "\n")
    else:
        _write(render_text(results, colour=_colour(sys.stdout)) + comparecmd.attempt_text(attempts))
    return status


def cmd_migrate(args: argparse.Namespace) -> int:
    from .migrate import run

    return run(args.paths, check=args.check, write=_write)


# --- entry points ---------------------------------------------------------------------------------------


class _Version(argparse.Action):
    """``--version``: the installed distribution's version and the bundled schemas' (read only when asked)."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            package = version("evalschema")
        except PackageNotFoundError:  # imported from a source tree that was never installed
            package = "(not installed)"
        sys.stdout.write(f"evalschema {package} (specification {spec_version()})\n")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalschema", description="Validate, summarize and migrate evalschema documents.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the package and specification versions, then exit")
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
    check.add_argument(
        "--only-declared", action="store_true",
        help="skip files that do not declare themselves evalschema documents, by name (*.resultset.json, *.pack.yaml, …) or by $schema",
    )
    check.add_argument("--engine", choices=("fast", "reference"), default="fast", help="JSON Schema engine (same findings; reference is slower)")
    check.add_argument(
        "--stream", choices=tuple(STREAM_CHOICES), default="auto",
        help=f"read result sets in pieces, memory bounded by a batch of rows (auto: JSON files of {STREAM_THRESHOLD >> 20} MiB or more; the report is the same)",
    )
    check.set_defaults(handler=cmd_validate)

    summary = commands.add_parser("summarize", help="the reference summary of result sets")
    summary.add_argument("paths", nargs="+", metavar="RESULTSET")
    summary.add_argument("--format", choices=("text", "json"), default="text")
    summary.add_argument("--html", type=Path, metavar="REPORT.html", help="also write a self-contained HTML report with charts")
    summary.add_argument("--input-format", choices=FORMS)
    summary.add_argument("--stream", choices=tuple(STREAM_CHOICES), default="auto", help=f"read result sets in pieces (auto: JSON files of {STREAM_THRESHOLD >> 20} MiB or more)")
    summary.set_defaults(handler=cmd_summarize)

    migrate = commands.add_parser("migrate", help="migrate packs off fail_on_violation (validators always enforce)")
    migrate.add_argument("paths", nargs="+", type=Path, metavar="PACK")
    migrate.add_argument("--check", action="store_true", help="print the diff and exit 1 if a migration is needed; write nothing")
    migrate.set_defaults(handler=cmd_migrate)

    diffcmd.add_parser(commands)
    schemacmd.add_parser(commands)
    comparecmd.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_UNREADABLE
    try:
        return int(args.handler(args))
    except (UsageError, MissingExtra) as exc:
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
