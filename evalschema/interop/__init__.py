"""Import other tools' eval results into evalschema, and export result sets to other tools — with a loss report.

>>> from evalschema.interop import import_results, export_results
>>> outcome = import_results("promptfoo", [Path("results.json")], Path("run.resultset.json"))
>>> print(outcome.loss.text())

Each converter is its own module: importers ``inspect_ai``, ``promptfoo``, ``lm_eval``, ``openai_evals``,
``deepeval``; exporters ``eee`` (Every Eval Ever), ``otel`` (OpenTelemetry GenAI evaluation events, OTLP/JSON)
and ``csv``. The mappings, the metadata key prefixes and the error codes are SPEC.md, Appendix A.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.findings import Report
from ..io.gate import Outputs
from .base import Sink
from .common import ERROR_CODES, ConversionError, LossReport

IMPORTERS: dict[str, str] = {
    "inspect_ai": "inspect_ai",
    "inspect": "inspect_ai",  # an alias: the name people type (issue 40)
    "promptfoo": "promptfoo",
    "lm_eval": "lm_eval",
    "openai_evals": "openai_evals",
    "deepeval": "deepeval",
}
EXPORTERS: dict[str, str] = {"eee": "eee", "otel": "otel", "csv": "csv_export"}
# The names people type for an importer (the tools' own spellings) → its canonical name: the one alias table, read by
# import_results and the command's --from choices
ALIASES: dict[str, str] = {
    "lm-eval": "lm_eval",
    "openai-evals": "openai_evals",
}

__all__ = [
    "ALIASES",
    "ERROR_CODES",
    "EXPORTERS",
    "IMPORTERS",
    "ConversionError",
    "ExportOutcome",
    "ImportOutcome",
    "InvalidInput",
    "LossReport",
    "cases_path_for",
    "export_results",
    "import_results",
    "suite_path_for",
]


@dataclass
class ImportOutcome:
    resultset_path: Path
    suite_path: Path
    loss: LossReport
    summary: dict[str, Any]
    cases_path: Path | None = None  # the suite's test_cases_file, when the test cases were too many to hold inline


@dataclass
class ExportOutcome:
    path: Path
    loss: LossReport
    records: int
    refused: Report | None = None  # the report of an input that is not valid, exported with ``force``


def suite_path_for(out: Path) -> Path:
    """The default suite path beside a result set: ``run.resultset.json`` → ``run.suite.json``."""
    name = out.name
    for ending in (".resultset.json", ".json"):
        if name.endswith(ending):
            return out.with_name(name[: -len(ending)] + ".suite.json")
    return out.with_name(name + ".suite.json")


def cases_path_for(suite: Path) -> Path:
    """Where a large import's test cases go, beside its suite: ``run.suite.json`` → ``run.cases.jsonl``."""
    name = suite.name
    for ending in (".suite.json", ".json"):
        if name.endswith(ending):
            return suite.with_name(name[: -len(ending)] + ".cases.jsonl")
    return suite.with_name(name + ".cases.jsonl")


def import_results(format: str, inputs: list[Path], out: Path, suite_out: Path | None = None) -> ImportOutcome:
    """Convert ``inputs`` (one tool's output files) to a result set at ``out`` and its suite at ``suite_out`` (a
    large import's test cases in a ``test_cases_file`` beside it, :func:`cases_path_for`).

    Both files appear atomically, or neither does (the output gate, :class:`evalschema.io.gate.Outputs`, which
    also refuses, as :class:`evalschema.io.gate.Refused`, an output that is an input, a device, a FIFO or a folder,
    or one path for both outputs). Raises :class:`ConversionError` (a code from ``ERROR_CODES``) for an input that
    cannot be converted, and ``MissingExtra`` when the format needs an optional dependency that is not installed.
    """
    format = ALIASES.get(format, format)
    if format not in IMPORTERS:
        raise ValueError(f"unknown import format {format!r} (one of {', '.join((*IMPORTERS, *ALIASES))})")
    module = importlib.import_module(f".{IMPORTERS[format]}", __name__)
    loss = LossReport("import", format)
    suite_out = suite_out or suite_path_for(out)
    inputs = [Path(p) for p in inputs]
    names = ", ".join(p.name for p in inputs)
    cases_out = cases_path_for(suite_out)
    with Outputs([out, suite_out, cases_out], inputs=inputs) as outputs:
        sink = Sink(outputs.stream(out), format, loss)
        try:
            module.read(inputs, sink, loss)
        except ConversionError as error:
            error.source = error.source or names  # the sink knows the test case, not the file
            raise
        except RecursionError:  # a source nested deeper than Python's parsers go (an Inspect header, a sample)
            raise ConversionError("IMPORT_UNREADABLE", "nested too deeply to read", names) from None
        summary = sink.finish(names)
        assert sink.headers is not None
        cases = (outputs.stream(cases_out), cases_out.name) if sink.suite.large else None
        sink.suite.write(outputs.stream(suite_out), dict(sink.headers.suite), cases)
        del sink  # its state per test case (ids, digests, the summary's): freed for the validation that reads it back
        _refuse_invalid(outputs.written(suite_out), "suite", suite_out, names)
        _refuse_invalid(outputs.written(out), "resultset", out, names)
    return ImportOutcome(out, suite_out, loss, summary, cases_out if cases is not None else None)


SHOWN_FINDINGS = 20  # findings quoted in an IMPORT_INVALID_OUTPUT error: enough to act on, a bounded message


def _refuse_invalid(written: Path, kind: str, target: Path, source: str) -> None:
    """Validate a converted document as ``validate`` would (the same pipeline, the result set read in pieces when
    large) before it is committed: an importer never writes an invalid document with exit 0. The findings point
    into the document it would have written (``target``), whose source values they name."""
    from ..pipeline import validate_file

    report = validate_file(written, kind, place_limit=SHOWN_FINDINGS)
    if report.valid:
        return
    first = report.errors[0]
    findings = [{"code": f.code, "pointer": f.pointer, "message": f.message} for f in report.errors[:SHOWN_FINDINGS]]
    raise ConversionError(
        "IMPORT_INVALID_OUTPUT",
        f"the converted {kind} ({target.name}) would not be valid ({len(report.errors)} error(s)), first: {first.code} at "
        f"{first.pointer or '/'}: {first.message}",
        source,
        first.pointer,
        findings=findings,
    )


def export_results(format: str, resultset: Path, out: Path, *, force: bool = False) -> ExportOutcome:
    """Convert the result set at ``resultset`` to ``format`` at ``out`` (written atomically).

    The input is read as ``validate`` reads it (the strict reader) and must be a valid result set: otherwise
    :class:`InvalidInput` (``EXPORT_INPUT_INVALID``, with the report), unless ``force`` — then it is converted all
    the same and the outcome's ``refused`` holds the report. One that cannot be read: ``EXPORT_INPUT_INVALID``.
    """
    if format not in EXPORTERS:
        raise ValueError(f"unknown export format {format!r} (one of {', '.join(EXPORTERS)})")
    with Outputs([out], inputs=[resultset]) as outputs:  # refused before the input is read
        return _export(format, Path(resultset), out, outputs, force)


def _export(format: str, resultset: Path, out: Path, outputs: Outputs, force: bool) -> ExportOutcome:
    from ..io.loader import load_path, not_an_object
    from ..pipeline import placed, validate

    # the strict reader (duplicate keys, NaN, nesting) through the input gate, as for every evalschema document
    loaded = next(iter(load_path(resultset, "json")))
    problem = loaded.problem if loaded.problem is not None else None if isinstance(loaded.document, dict) else not_an_object()
    if problem is not None:
        raise ConversionError("EXPORT_INPUT_INVALID", f"{problem.code}: {problem.message}", str(resultset), problem.pointer, problem.line)
    document = loaded.document
    report = validate(document, "resultset")
    refused = None
    if not report.valid:
        refused = placed(report, loaded.positions())
        if not force:
            raise InvalidInput(str(resultset), refused)
    del loaded
    module = importlib.import_module(f".{EXPORTERS[format]}", __name__)
    loss = LossReport("export", format)
    records: int = module.write(document, outputs.stream(out), loss, resultset.name)
    return ExportOutcome(out, loss, records, refused)


class InvalidInput(ConversionError):
    """A result set to export that is not valid (``EXPORT_INPUT_INVALID``), with its report: its numbers could be
    ones the specification makes impossible (the command prints its findings and exits 1)."""

    def __init__(self, source: str, report: Report) -> None:
        first = report.errors[0]
        super().__init__(
            "EXPORT_INPUT_INVALID", f"not a valid result set: {first.code}: {first.message}", source, first.pointer, first.line
        )
        self.report = report
