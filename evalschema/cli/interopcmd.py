"""``evalschema import`` and ``evalschema export``: the command-line face of :mod:`evalschema.interop`.

    evalschema import --from FORMAT INPUT... -o OUT [--suite-out SUITE] [--format text|json] [--strict-loss]
    evalschema export --to FORMAT INPUT -o OUT [--format text|json] [--strict-loss]
    evalschema export --to parquet|arrow RESULTSET... -o FOLDER     (evalschema.columnarcmd: lossless)
    evalschema import --from parquet|arrow FOLDER -o OUT

The loss report goes to standard output (text, or JSON with ``--format json``). Exit statuses: 0 converted;
1 converted, but ``--strict-loss`` was given and something was dropped (the output is written all the same), or
export's input is not a valid result set (its findings are printed; nothing is written unless ``--force``);
2 usage error, a missing optional dependency, or an input that cannot be converted (a message with an error
code and a location on standard error; with ``--format json`` the same as a JSON object on standard output;
nothing is written), or an output the output gate refuses (``evalschema.io.gate``: a device, a FIFO, a folder,
a symbolic link, one of the inputs, one path for two outputs, a folder that does not exist; nothing is written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..io.gate import shown
from .common import EXIT_INVALID  # export: the input is not a valid result set (its findings are printed)

EXIT_OK, EXIT_LOSS, EXIT_UNCONVERTIBLE = 0, 1, 2


def add_parsers(subparsers: Any) -> None:
    from ..interop import ALIASES, EXPORTERS, IMPORTERS
    from .columnarcmd import FORMATS as COLUMNAR

    imp: argparse.ArgumentParser = subparsers.add_parser(
        "import",
        help="convert another tool's results (Inspect AI, promptfoo, lm-eval, OpenAI Evals, DeepEval) to a suite and result set, "
        "or read result sets back from a folder of Parquet or Arrow tables",
    )
    imp.add_argument(
        "--from",
        dest="source_format",
        required=True,
        choices=(*IMPORTERS, *ALIASES, *COLUMNAR),
        help="the input format (also: " + ", ".join(f"{alias} for {name}" for alias, name in ALIASES.items()) + ")",
    )
    imp.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    imp.add_argument("-o", "--out", type=Path, required=True, metavar="OUT", help="the result set to write")
    imp.add_argument("--suite-out", type=Path, metavar="SUITE", help="the suite to write (default: beside OUT, NAME.suite.json)")
    imp.add_argument("--format", choices=("text", "json"), default="text", help="how to print the loss report")
    imp.add_argument("--strict-loss", action="store_true", help="exit 1 when anything was dropped")
    imp.set_defaults(handler=run_import)

    exp: argparse.ArgumentParser = subparsers.add_parser(
        "export",
        help="convert a result set to Every Eval Ever, OpenTelemetry (OTLP/JSON) or CSV, or result sets to a folder of "
        "Parquet or Arrow tables (runs, results, grader_results)",
    )
    exp.add_argument("--to", dest="target_format", required=True, choices=(*EXPORTERS, *COLUMNAR), help="the output format")
    exp.add_argument("inputs", nargs="+", metavar="RESULTSET", help="one result set (parquet, arrow: result sets, folders, globs)")
    exp.add_argument("-o", "--out", type=Path, required=True, metavar="OUT")
    exp.add_argument("--format", choices=("text", "json"), default="text", help="how to print the loss report")
    exp.add_argument("--strict-loss", action="store_true", help="exit 1 when anything was dropped")
    exp.add_argument(
        "--force", action="store_true", help="export a result set that is not valid all the same (its findings are printed; exit 1)"
    )
    exp.set_defaults(handler=run_export)


def _failed(args: argparse.Namespace, error: Any) -> int:
    if args.format == "json":
        sys.stdout.write(json.dumps({"ok": False, "error": error.to_dict()}, ensure_ascii=False) + "\n")
    print(f"evalschema: {error}", file=sys.stderr)
    return EXIT_UNCONVERTIBLE


def _usage(message: str) -> int:
    print(f"evalschema: {message}", file=sys.stderr)
    return EXIT_UNCONVERTIBLE


def _report(args: argparse.Namespace, loss: Any, extra: dict[str, Any]) -> int:
    if args.format == "json":
        sys.stdout.write(json.dumps({"ok": True, **extra, "loss": loss.to_dict()}, ensure_ascii=False) + "\n")
    else:
        # the paths are the user's, quoted: escaped as every quoted string is (text gate)
        sys.stdout.write("".join(f"{k}: {shown(str(v))}\n" for k, v in extra.items() if not isinstance(v, dict)) + loss.text())
    return EXIT_LOSS if args.strict_loss and loss.has_dropped else EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from ..interop import ConversionError, LossReport, import_results
    from . import columnarcmd

    if args.source_format in columnarcmd.FORMATS:
        if len(args.inputs) != 1 or args.suite_out is not None:
            return _usage(f"import --from {args.source_format} reads one folder (and writes no suite)")
        try:
            count = columnarcmd.import_folder(args.inputs[0], args.source_format, args.out)
        except columnarcmd.Unreadable as exc:
            return _failed(args, ConversionError(exc.code, str(exc), str(args.inputs[0])))
        return _report(args, LossReport("import", args.source_format), {"resultset": str(args.out), "records": count})
    try:
        outcome = import_results(args.source_format, args.inputs, args.out, args.suite_out)
    except ConversionError as error:
        return _failed(args, error)
    return _report(
        args,
        outcome.loss,
        {
            "resultset": str(outcome.resultset_path),
            "suite": str(outcome.suite_path),
            **({"test_cases_file": str(outcome.cases_path)} if outcome.cases_path is not None else {}),
            "summary": outcome.summary,
        },
    )


def run_export(args: argparse.Namespace) -> int:
    from ..interop import ConversionError, InvalidInput, LossReport, export_results
    from . import columnarcmd

    if args.target_format in columnarcmd.FORMATS:
        from ..columnar import Invalid

        refused: list[Invalid] = []
        try:
            count = columnarcmd.export_paths(args.inputs, args.out, args.target_format, force=args.force, refused=refused)
        except columnarcmd.Unexportable as exc:
            return _failed(args, ConversionError("EXPORT_INPUT_INVALID", exc.message, exc.path, line=exc.line))
        except Invalid as invalid:  # validated before use: nothing was written
            _invalid(args, InvalidInput(invalid.path, invalid.report), exported=False)
            return EXIT_INVALID
        for forced in refused:  # --force: exported all the same, under a banner; the status stays that of an invalid input
            _invalid(args, InvalidInput(forced.path, forced.report), exported=True)
        status = _report(args, LossReport("export", args.target_format), {"output": str(args.out), "records": count})
        return EXIT_INVALID if refused else status
    if len(args.inputs) != 1:
        return _usage(f"export --to {args.target_format} converts one result set")
    try:
        outcome = export_results(args.target_format, Path(args.inputs[0]), args.out, force=args.force)
    except InvalidInput as invalid:
        _invalid(args, invalid, exported=False)
        return EXIT_INVALID
    except ConversionError as error:
        return _failed(args, error)
    if outcome.refused is not None:
        _invalid(args, InvalidInput(str(args.inputs[0]), outcome.refused), exported=True)
    status = _report(args, outcome.loss, {"output": str(outcome.path), "records": outcome.records})
    return EXIT_INVALID if outcome.refused is not None else status


def _invalid(args: argparse.Namespace, invalid: Any, *, exported: bool) -> None:
    """The findings of a result set that is not valid, as ``validate`` reports them (on standard error; with
    ``--format json`` and nothing exported, as the error object's ``findings`` on standard output), and what was
    made of it."""
    from ..report.json_report import entry
    from ..report.text import render_text

    found = entry(invalid.source, None, invalid.report)
    if args.format == "json" and not exported:
        error = {**invalid.to_dict(), "findings": found.to_dict()}
        sys.stdout.write(json.dumps({"ok": False, "error": error}, ensure_ascii=False) + "\n")
    sys.stderr.write(render_text([found], {}, sys.stderr, verbosity=-1))
    verdict = "exported anyway (--force)" if exported else "nothing was written (use --force to export it anyway)"
    sys.stderr.write(f"evalschema: {shown(invalid.source)}: not a valid result set: {verdict}\n")
