"""The ``evalschema`` command: validate and summarize documents.

Exit statuses: 0 every document valid (warnings allowed unless --strict); 1 at least one document invalid;
2 usage error, or at least one input unreadable or unparseable (the others are still checked).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from . import __version__
from .findings import Finding, Report
from .loader import load_path
from .registry import KINDS, spec_version
from .summary import summarize
from .validate import validate

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2


def _write(text: str) -> None:
    """Write to stdout; if the reader has gone away (``| head``), stop writing but keep the exit status."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="evalschema", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"evalschema {__version__} (spec {spec_version()})")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("validate", help="validate documents")
    check.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    check.add_argument("--kind", choices=KINDS, help="the document kind (default: detect per document)")
    check.add_argument("--suite", type=Path, help="the suite the result sets were run from (cross-document rules)")
    check.add_argument("--strict", action="store_true", help="report warnings as errors")
    check.add_argument("--allow-unknown", action="store_true", help="unknown fields in a newer minor version are warnings")
    check.add_argument("--format", choices=("text", "json"), default="text")
    summary = commands.add_parser("summarize", help="print the reference summary of result sets")
    summary.add_argument("paths", nargs="+", type=Path, metavar="RESULTSET")
    summary.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def _entry(path: Path, report: Report, unreadable: bool) -> dict[str, Any]:
    return {"path": str(path), "unreadable": unreadable, **report.to_dict()}


def _validate(args: argparse.Namespace) -> int:
    suite: dict[str, Any] | None = None
    if args.suite is not None:
        loaded = load_path(args.suite)
        if loaded.problem is not None or not isinstance(loaded.document, dict):
            message = loaded.problem.message if loaded.problem else "not a JSON object"
            print(f"evalschema: --suite {args.suite}: {message}", file=sys.stderr)
            return EXIT_UNREADABLE
        suite = loaded.document
    entries = []
    for path in args.paths:
        loaded = load_path(path)
        if loaded.problem is not None:
            entries.append(_entry(path, Report.build(args.kind, [loaded.problem], strict=False), True))
            continue
        report = validate(loaded.document, args.kind, strict=args.strict, allow_unknown=args.allow_unknown, suite=suite)
        entries.append(_entry(path, report, False))
    unreadable = sum(1 for e in entries if e["unreadable"])
    invalid = sum(1 for e in entries if not e["valid"] and not e["unreadable"])
    if args.format == "json":
        totals = {"files": len(entries), "valid": len(entries) - invalid - unreadable, "invalid": invalid, "unreadable": unreadable}
        _write(json.dumps({"files": entries, "summary": totals}, indent=2) + "\n")
    else:
        lines = []
        for entry in entries:
            for finding in entry["errors"] + entry["warnings"]:
                where = entry["path"] + (f":{finding['line']}:{finding['column']}" if "line" in finding else "")
                lines.append(f"{where}: {finding['severity']} {finding['code']} at {finding['pointer'] or '/'}: {finding['message']}")
        lines.append(f"{len(entries)} file(s): {len(entries) - invalid - unreadable} valid, {invalid} invalid, {unreadable} unreadable")
        _write("\n".join(lines) + "\n")
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_INVALID if invalid else EXIT_OK


def _summarize(args: argparse.Namespace) -> int:
    out: list[dict[str, Any]] = []
    status = EXIT_OK
    for path in args.paths:
        loaded = load_path(path)
        if loaded.problem is not None or not isinstance(loaded.document, dict):
            problem = loaded.problem or Finding("", "TYPE_MISMATCH", "error", "not a JSON object")
            print(f"evalschema: {path}: {problem.code}: {problem.message}", file=sys.stderr)
            status = EXIT_UNREADABLE
            continue
        out.append({"path": str(path), "summary": summarize(loaded.document).to_dict()})
    if args.format == "json":
        _write(json.dumps(out, indent=2) + "\n")
    else:
        for item in out:
            s = item["summary"]
            rate = "n/a" if s["pass_rate"] is None else f"{s['pass_rate']:.1%}"
            _write(
                f"{item['path']}: {s['total']} results, {s['passed']} passed, {s['failed']} failed "
                f"({s['invalidated']} invalidated), {s['errored']} errored, {s['unscored']} unscored; pass rate {rate}\n"
            )
    return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_UNREADABLE
    if args.command == "validate":
        return _validate(args)
    return _summarize(args)


def run() -> None:
    try:
        status = main()
    except KeyboardInterrupt:
        status = 130
    sys.exit(status)
