"""The ``evalschema`` command: validate, summarize and migrate documents.

Exit statuses (every subcommand): 0 success (for ``validate``: every document valid, warnings allowed unless
``--strict``); 1 at least one document invalid (``migrate --check``: a migration is needed); 2 a usage error,
or at least one input unreadable or unparseable (the other inputs are still checked and reported).
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core.display import display_path, visible
from ..core.extras import MissingExtra
from ..core.messages import show
from ..io.loader import load_path
from ..pipeline import STREAM_THRESHOLD, placed, validate
from ..report.json_report import json_entry as _json_entry
from ..report.text import colour as _colour
from ..report.text import painter as _paint
from ..report.text import text_entry as _text_entry
from ..report.text import text_summary as _text_summary
from ..schemas.registry import KINDS, spec_version
from ..sources import Entry, suite_entries
from .common import EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, STREAM_CHOICES, UsageError, skipped, source_reports, sources_of
from .common import write as _write

if TYPE_CHECKING:
    from ..casesfile import CasesFile

__all__ = [
    "EXIT_INVALID",
    "EXIT_OK",
    "EXIT_UNREADABLE",
    "STREAM_CHOICES",
    "UsageError",
    "main",
    "run",
    "skipped",
    "source_reports",
    "sources_of",
]
FORMS = constants.INPUT_FORMS


class Progress:
    """A one-line progress display on stderr, only when stderr is a terminal and the run is long."""

    def __init__(self) -> None:
        self.enabled = sys.stderr is not None and sys.stderr.isatty()
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


def _load_suite(path: Path, options: dict[str, Any]) -> tuple[dict[str, Any], list[Entry]]:
    """The suite given with ``--suite`` (its ``test_cases_file`` followed), and the entries of its own findings
    and its test cases file's, to report with the rest: results checked against a broken suite mislead."""
    loaded = list(load_path(path))
    if len(loaded) != 1 or loaded[0].problem is not None or not isinstance(loaded[0].document, dict):
        problem = loaded[0].problem if loaded and loaded[0].problem else None
        raise UsageError(
            f"--suite {visible(display_path(str(path)))}: "
            + (f"{problem.code}: {visible(problem.message)}" if problem else "not one JSON object")
        )
    suite = loaded[0].document
    checked = {k: v for k, v in options.items() if k != "suite"}
    report = validate(suite, "suite", **checked)
    if report.findings:
        report = placed(report, loaded[0].positions())
    from ..casesfile import follow  # only --suite needs them (start-up: ``evalschema.__main__``)
    from ..rules.crossdoc import IndexedSuite

    # the test cases as the cross-document rules need them, not whole: a large import's file holds 200,000
    cases = follow(suite, path, **checked, keep="index")
    incomplete = _incomplete_cases(suite, cases)
    if incomplete is not None:  # results checked against a suite without its test cases would all be "unknown"
        raise UsageError(f"--suite {visible(display_path(str(path)))}: {codes.TEST_CASES_FILE_UNREADABLE}: {visible(incomplete)}")
    entries = [
        (entry, readable)
        for entry, readable in suite_entries(suite, path, report, checked, loaded[0], cases)
        if entry.errors or entry.warnings
    ]
    if isinstance(suite.get("test_cases_file"), str) and "test_cases" not in suite and cases.index is not None:
        # the cross-document rules need the test cases: those of the JSON Lines file beside the suite, indexed
        suite = IndexedSuite(suite, cases.index)
    return suite, entries


def _incomplete_cases(suite: dict[str, Any], cases: CasesFile) -> str | None:
    """Why the test cases a suite keeps in its ``test_cases_file`` are not all in hand, or ``None``."""
    if "test_cases_file" not in suite or "test_cases" in suite:
        return None
    if cases.path is None and cases.problem is None:
        return "test_cases_file names no file"
    if cases.problem is not None:
        return cases.problem.message
    for line, report, readable in cases.lines:
        if not readable:
            problem = report.errors[0]
            return f"line {line} of the test cases file {show(str(suite['test_cases_file']))}: {problem.code}: {problem.message}"
    return None


def _reports(args: argparse.Namespace, suite: dict[str, Any] | None) -> Iterator[Entry]:
    """An entry per document, and whether it could be read. JSON files go through ``validate_file`` (large result
    sets are read in pieces); stdin, JSON Lines and YAML through the loaders. With ``-j N``, N processes compute
    the same entries (``evalschema.parallel``)."""
    if getattr(args, "jobs", 1) > 1:
        from .parallel import validate_reports

        yield from validate_reports(args, suite)
        return
    for source in sources_of(args):
        yield from source_reports(source, args, suite)


class _Buffered:
    """Output gathered into writes of about 64 KiB: one write (and flush) per document would cost more than
    validating a small one."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        if self.size >= 1 << 16:
            self.flush()

    def flush(self) -> None:
        if self.parts:
            _write("".join(self.parts))
        self.parts, self.size = [], 0


def cmd_validate(args: argparse.Namespace) -> int:
    if args.spec_version is not None:
        from ..schemas import releases

        if args.spec_version not in releases.available():
            raise UsageError(f"--spec-version {args.spec_version}: no such release; available: {', '.join(releases.available())}")
    options = {"strict": args.strict, "allow_unknown": args.allow_unknown, "engine": args.engine, "spec_version": args.spec_version}
    suite, suite_entries = _load_suite(args.suite, options) if args.suite is not None else (None, [])
    given = {str(p) for p in sources_of(args) if isinstance(p, Path)}
    progress = Progress()
    paint = _paint(_colour(sys.stdout))
    verbosity = -1 if args.quiet else args.verbose
    # each entry is written as soon as it is known: memory does not grow with the number of documents
    files = valid = unreadable = invalid = errors = warnings = omitted = 0
    out = _Buffered()
    if args.format == "github":
        from ..report.github import github_entry as _github_entry  # for its format only (start-up: ``evalschema.__main__``)
    suite_first = [(e, r) for e, r in suite_entries if e.path not in given]  # unless it is checked anyway
    for entry, readable in itertools.chain(suite_first, _reports(args, suite)):
        if not readable:
            unreadable += 1
        else:
            invalid += not entry.valid
        valid += readable and entry.valid
        errors += len(entry.errors)
        warnings += len(entry.warnings)
        omitted += entry.omitted
        if args.format == "json":
            out.add(('{\n  "files": [\n' if files == 0 else ",\n") + _json_entry(entry))
        elif args.format == "github":
            out.add(_github_entry(entry))
        else:
            out.add(_text_entry(entry, paint, verbosity))
        files += 1
        if files % 10_000 == 0:  # the collector is off (see run): cycles a validation leaves are freed now and then
            gc.collect()
        progress.tick(entry.path)
    progress.done()
    out.flush()
    if not files and args.only_declared:  # a commit that touches no evalschema document
        _write("no evalschema documents among the given files\n")
        return EXIT_OK
    if not files:
        raise UsageError("no documents found in the given paths")
    totals = {"files": files, "valid": valid, "invalid": invalid, "unreadable": unreadable}
    if args.format == "json":
        _write('\n  ],\n  "summary": ' + json.dumps(totals) + "\n}\n")
    elif args.format == "text" and verbosity >= 0:
        _write(_text_summary(totals, errors, warnings, paint, omitted))
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_INVALID if invalid else EXIT_OK


# --- summarize lives in ``summarizecmd`` (imported for it alone), migrate in ``evalschema.migrate`` -----------


def cmd_migrate(args: argparse.Namespace) -> int:
    from ..migrate import run

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


JOBS_HELP = "use N processes: files, and parts of large JSON Lines files, are checked in parallel (same output as -j 1)"


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if not 1 <= jobs <= 1024:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of processes from 1 to 1024")
    return jobs


def _command(argv: Sequence[str]) -> str | None:
    """The command word of ``argv`` (its first argument that is not an option), if any."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized to the terminal only when it formats something. argparse makes one for every
    argument it adds (to check the argument), and sizing one imports ``shutil`` (with ``bz2``, ``lzma``, ``zlib``:
    ~3 ms of a small document's run: ``evalschema.__main__``); help and usage text come out as argparse's own."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=80)  # a stand-in: the real size is looked up on first use
        del self._width, self._max_help_position

    def __getattr__(self, name: str) -> Any:
        if name not in ("_width", "_max_help_position"):
            raise AttributeError(name)
        sized = argparse.HelpFormatter(self._prog, self._indent_increment)
        self._width, self._max_help_position = sized._width, sized._max_help_position
        return getattr(self, name)


class _Parser(argparse.ArgumentParser):
    """The command's parsers (the subcommands' too: argparse makes them of the top parser's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. For one of the core commands only that command's parser is built: the others
    would cost a small document's run more than checking it (the non-core ones import the comparison, conversion
    and columnar modules for their choices and defaults); any other command word, ``--help`` or no command gets
    them all."""
    parser: argparse.ArgumentParser = _Parser(prog="evalschema", description="Validate, summarize and migrate evalschema documents.")
    parser.add_argument("--version", action=_Version, nargs=0, help="print the package and specification versions, then exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    core = {"validate": _add_validate, "summarize": _add_summarize, "migrate": _add_migrate}
    if command in core:
        core[command](commands)
        return parser
    for add in core.values():
        add(commands)
    from . import comparecmd, diffcmd, initcmd, interopcmd, schemacmd

    diffcmd.add_parser(commands)
    schemacmd.add_parser(commands)
    comparecmd.add_parser(commands)
    interopcmd.add_parsers(commands)
    initcmd.add_parser(commands)
    return parser


def _add_validate(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser("validate", help="validate documents (files, folders, globs, - for stdin)")
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N", help=JOBS_HELP)
    check.add_argument("--kind", choices=KINDS, help="the document kind (default: detected per document)")
    check.add_argument("--suite", type=Path, metavar="SUITE", help="the suite the result sets ran: enables the cross-document rules")
    check.add_argument("--strict", action="store_true", help="report warnings as errors")
    check.add_argument("--allow-unknown", action="store_true", help="unknown fields in a newer minor version are warnings")
    check.add_argument("--format", choices=constants.OUTPUT_FORMATS["validate"], default=constants.OUTPUT_FORMATS["validate"][0])
    loudness = check.add_mutually_exclusive_group()
    loudness.add_argument("-v", "--verbose", action="count", default=0, help="text output: also a line per valid document")
    loudness.add_argument("-q", "--quiet", action="store_true", help="text output: errors only (no warnings, no summary line)")
    check.add_argument("--input-format", choices=FORMS, help="how to parse inputs (default: by file extension; stdin: JSON or JSON Lines)")
    check.add_argument(
        "--spec-version", metavar="VERSION", help="validate against a published release (e.g. 1.0.0) instead of the current schemas"
    )
    check.add_argument(
        "--only-declared",
        action="store_true",
        help="skip files that do not declare themselves evalschema documents, by name (*.resultset.json, *.pack.yaml, …) or by $schema",
    )
    check.add_argument(
        "--engine", choices=("fast", "reference"), default="fast", help="JSON Schema engine (same findings; reference is slower)"
    )
    check.add_argument(
        "--stream",
        choices=tuple(STREAM_CHOICES),
        default="auto",
        help=f"read result sets in pieces, memory bounded by a batch of rows (auto: JSON files of {STREAM_THRESHOLD >> 20} MiB or more; the report is the same)",
    )
    check.set_defaults(handler=cmd_validate)


def _add_summarize(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    summary = commands.add_parser("summarize", help="the reference summary of result sets")
    summary.add_argument("paths", nargs="+", metavar="RESULTSET")
    summary.add_argument("--format", choices=constants.OUTPUT_FORMATS["summarize"], default=constants.OUTPUT_FORMATS["summarize"][0])
    summary.add_argument("--html", type=Path, metavar="REPORT.html", help="also write a self-contained HTML report with charts")
    summary.add_argument("--force", action="store_true", help="summarize invalid result sets too, under a warning (exit status still 1)")
    summary.add_argument("--input-format", choices=FORMS)
    summary.add_argument(
        "--stream",
        choices=tuple(STREAM_CHOICES),
        default="auto",
        help=f"read result sets in pieces (auto: JSON files of {STREAM_THRESHOLD >> 20} MiB or more)",
    )
    summary.add_argument("-j", "--jobs", type=_jobs, default=1, metavar="N", help=JOBS_HELP)
    summary.set_defaults(handler=_summarize)


def _summarize(args: argparse.Namespace) -> int:
    from .summarizecmd import cmd_summarize

    return cmd_summarize(args)


def _add_migrate(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    migrate = commands.add_parser("migrate", help="migrate packs off fail_on_violation (validators always enforce)")
    migrate.add_argument("paths", nargs="+", type=Path, metavar="PACK")
    migrate.add_argument("--check", action="store_true", help="print the diff and exit 1 if a migration is needed; write nothing")
    migrate.set_defaults(handler=cmd_migrate)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = _parser(_command(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_UNREADABLE
    if sys.stderr is not None and sys.stderr.isatty() and os.environ.get("TERM") != "dumb" and not getattr(args, "quiet", False):
        from ..io import progress  # a terminal watches: long reads show how far they are

        progress.enable(sys.stderr)
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
