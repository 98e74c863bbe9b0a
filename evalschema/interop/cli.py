"""``evalschema import`` and ``evalschema export``: the command-line face of :mod:`evalschema.interop`.

    evalschema import --from FORMAT INPUT... -o OUT [--suite-out SUITE] [--format text|json] [--strict-loss]
    evalschema export --to FORMAT INPUT -o OUT [--format text|json] [--strict-loss]

The loss report goes to standard output (text, or JSON with ``--format json``). Exit statuses: 0 converted;
1 converted, but ``--strict-loss`` was given and something was dropped (the output is written all the same);
2 usage error, a missing optional dependency, or an input that cannot be converted (a message with an error
code and a location on standard error; with ``--format json`` the same as a JSON object on standard output;
nothing is written).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_LOSS, EXIT_UNCONVERTIBLE = 0, 1, 2


def add_parsers(subparsers: Any) -> None:
    from . import EXPORTERS, IMPORTERS

    imp: argparse.ArgumentParser = subparsers.add_parser(
        "import", help="convert another tool's results (Inspect AI, promptfoo, lm-eval, OpenAI Evals, DeepEval) to a suite and result set"
    )
    imp.add_argument("--from", dest="source_format", required=True, choices=tuple(IMPORTERS), help="the input format")
    imp.add_argument("inputs", nargs="+", type=Path, metavar="INPUT")
    imp.add_argument("-o", "--out", type=Path, required=True, metavar="OUT", help="the result set to write")
    imp.add_argument("--suite-out", type=Path, metavar="SUITE", help="the suite to write (default: beside OUT, NAME.suite.json)")
    imp.add_argument("--format", choices=("text", "json"), default="text", help="how to print the loss report")
    imp.add_argument("--strict-loss", action="store_true", help="exit 1 when anything was dropped")
    imp.set_defaults(handler=run_import)

    exp: argparse.ArgumentParser = subparsers.add_parser(
        "export", help="convert a result set to Every Eval Ever, OpenTelemetry (OTLP/JSON) or CSV"
    )
    exp.add_argument("--to", dest="target_format", required=True, choices=tuple(EXPORTERS), help="the output format")
    exp.add_argument("input", type=Path, metavar="RESULTSET")
    exp.add_argument("-o", "--out", type=Path, required=True, metavar="OUT")
    exp.add_argument("--format", choices=("text", "json"), default="text", help="how to print the loss report")
    exp.add_argument("--strict-loss", action="store_true", help="exit 1 when anything was dropped")
    exp.set_defaults(handler=run_export)


def _failed(args: argparse.Namespace, error: Any) -> int:
    if args.format == "json":
        sys.stdout.write(json.dumps({"ok": False, "error": error.to_dict()}, ensure_ascii=False) + "\n")
    print(f"evalschema: {error}", file=sys.stderr)
    return EXIT_UNCONVERTIBLE


def _report(args: argparse.Namespace, loss: Any, extra: dict[str, Any]) -> int:
    if args.format == "json":
        sys.stdout.write(json.dumps({"ok": True, **extra, "loss": loss.to_dict()}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write("".join(f"{k}: {v}\n" for k, v in extra.items() if not isinstance(v, dict)) + loss.text())
    return EXIT_LOSS if args.strict_loss and loss.has_dropped else EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    from . import ConversionError, import_results

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
            "summary": outcome.summary,
        },
    )


def run_export(args: argparse.Namespace) -> int:
    from . import ConversionError, export_results

    try:
        outcome = export_results(args.target_format, args.input, args.out)
    except ConversionError as error:
        return _failed(args, error)
    return _report(args, outcome.loss, {"output": str(outcome.path), "records": outcome.records})
