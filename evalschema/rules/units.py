"""The function of each unit the ledger names (``UNITS``: unit name -> stage factory, or where a unit that is no
stage runs), and the registry built from them and the ledger's table of the rules of each unit (``REGISTRY``).

The per-document passes (``document``) are hand-written functions, wrapped as stages. The uniqueness and reference
rules (the ledger's unit ``annotated``) are no code of ours: the schemas declare them (``x-unique``,
``x-references``), codegen writes them into a table, and one generic stage (``annotated``) checks them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..core.findings import Finding, escape_token
from .annotated import AnnotatedRows
from .crossdoc import SuiteIndex
from .document import ResultRows, grader_rules, pack_rules, resultset_document_rules, suite_rules, testcase_rules
from .registry import Batch, Context, Elsewhere, Stage, Unit, build


class DocumentPass:
    """A pass over a whole document's own members (a kind without rows: every member is its own)."""

    def __init__(self, check: Callable[[dict[str, Any]], Iterator[Finding]]) -> None:
        self.check = check

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        return self.check(members)

    def rows(self, batch: Batch) -> Iterable[Finding]:
        return ()

    def finish(self) -> Iterable[Finding]:
        return ()


def _document(check: Callable[[dict[str, Any]], Iterator[Finding]]) -> Callable[[Context], Stage | None]:
    def make(context: Context) -> Stage:
        return DocumentPass(check)

    make.__qualname__ = f"DocumentPass({check.__name__})"
    return make


class ResultRowsPass:
    """The hand-written row rule of a result set (no state across rows)."""

    def __init__(self, context: Context) -> None:
        self.rules = ResultRows(compact=context.compact)
        self.array = escape_token(context.rows or "results")

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        return ()

    def rows(self, batch: Batch) -> Iterable[Finding]:
        return self.rules.check(batch.items, batch.start)

    def finish(self) -> Iterable[Finding]:
        return ()


class SuitePass:
    """A result set against the suite it claims to be a run of (only when a suite is given): each row, then the
    result set's own fields and the suite's test cases no row was seen for."""

    def __init__(self, suite: dict[str, Any]) -> None:
        self.index = SuiteIndex(suite)
        self.members: dict[str, Any] = {}
        self.array = escape_token("results")  # the rows SuiteIndex checks: a result set's

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        self.members = members
        return ()

    def rows(self, batch: Batch) -> Iterable[Finding]:
        return self.index.check(batch.items, batch.start)

    def finish(self) -> Iterable[Finding]:
        return self.index.finish(self.members)


class AnnotatedPass:
    """The rules the schemas declare (``x-unique``, ``x-references``), one pass: a document's rows (if its kind has
    any) row by row with compact state across them, everything else with its own members."""

    def __init__(self, context: Context) -> None:
        self.checker = AnnotatedRows(context.kind, context.rows or "", compact=context.compact)

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        return self.checker.envelope(members)

    def rows(self, batch: Batch) -> Iterable[Finding]:
        return self.checker.rows(batch.items, batch.start)

    def finish(self) -> Iterable[Finding]:
        return self.checker.finish()


def _annotated(context: Context) -> Stage:
    return AnnotatedPass(context)


def _rows(context: Context) -> Stage:
    return ResultRowsPass(context)


def _against_suite(context: Context) -> Stage | None:
    return SuitePass(context.suite) if isinstance(context.suite, dict) else None


# the per-document pass of each kind (the ledger's unit "document_rules" is the one of the document's kind)
_DOCUMENT_RULES: dict[str, Callable[[dict[str, Any]], Iterator[Finding]]] = {
    "grader": grader_rules,
    "testcase": testcase_rules,
    "suite": suite_rules,
    "pack": pack_rules,
    "resultset": resultset_document_rules,
}


def _document_rules(context: Context) -> Stage | None:
    check = _DOCUMENT_RULES.get(context.kind)
    return DocumentPass(check) if check is not None else None


# One function per unit the ledger names (its rules' ``unit``); the stages run in this order.
UNITS: dict[str, Unit] = {
    "document_rules": _document_rules,
    "result_rows": _rows,
    "against_suite": _against_suite,
    # generated: the rules the schemas declare (x-unique / x-references), one generic stage from their table
    "annotated": _annotated,
    # no stage: the reader finds these while reading (a document that has them is never checked further)
    "reader": Elsewhere("reader", "evalschema.io.loader.load_path"),
    # the CLI reads a suite's test cases file
    "test_cases_file": Elsewhere("cli", "evalschema.casesfile.follow"),
    # the identification of a document, before any stage (and, when it decides, instead of them)
    "identify": Elsewhere("identity", "evalschema.pipeline.identified"),
    # the schema stage: the engine reports the deprecated locations a document uses
    "deprecations": Elsewhere("engine", "evalschema.engine.deprecations.warnings_for"),
    # the summary stage (the summary layer, above this one)
    "summary": Elsewhere("summary", "evalschema.summary.stage.SummaryStage"),
    # a feature: comparing result sets
    "compare": Elsewhere("comparison", "evalschema.compare.document"),
}

REGISTRY = build(UNITS)
"""Every code rule of the ledger bound to its unit: the registry ``evalschema.pipeline`` runs by default."""
