"""The code rules of the ledger, registered as units (``registry``): the stages that check them, and where the
rules that are no stage are implemented.

The per-document passes (``document``) are hand-written functions, wrapped as stages. The uniqueness and reference
rules (DUPLICATE_ID, DANGLING_REFERENCE, DUPLICATE_EVAL_ID, DUPLICATE_VALIDATOR_ID, DUPLICATE_ATTEMPT,
CONSTRAINT_GRADER_UNKNOWN) are no code of ours: the schemas declare them (``x-unique``, ``x-references``), codegen
writes them into a table, and one generic stage (``annotated``) checks them, bound here per kind from that table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core.findings import Finding, escape_token
from .annotated import AnnotatedRows, rules_of
from .crossdoc import SuiteIndex
from .document import ResultRows, grader_rules, pack_rules, resultset_document_rules, suite_rules, testcase_rules
from .registry import Batch, Context, Stage, bind, elsewhere


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


# stages, in the order they run; one statement binds one rule, for one kind, to the pass that checks it
grader, testcase, suite, pack = (_document(grader_rules), _document(testcase_rules), _document(suite_rules), _document(pack_rules))
bind(codes.INVALID_REGEX, "grader", grader)
bind(codes.UNKNOWN_GRADER_PARAM, "grader", grader)
bind(codes.INVALID_REGEX, "testcase", testcase)
bind(codes.UNKNOWN_GRADER_PARAM, "testcase", testcase)
bind(codes.INVALID_REGEX, "suite", suite)
bind(codes.UNKNOWN_GRADER_PARAM, "suite", suite)
bind(codes.PROMPT_ID_MISMATCH, "pack", pack)
bind(codes.MIGRATION_PLACEHOLDER, "pack", pack)
bind(codes.INVALID_REGEX, "pack", pack)
bind(codes.SELF_PARENT, "resultset", _document(resultset_document_rules))
bind(codes.ERROR_WITH_INVALIDATING_VIOLATION, "resultset", _rows)
bind(codes.UNKNOWN_TEST_CASE, "resultset", _against_suite)
bind(codes.GRADER_TYPE_MISMATCH, "resultset", _against_suite)
bind(codes.UNKNOWN_GRADER, "resultset", _against_suite)
bind(codes.GRADER_RESULT_MISSING, "resultset", _against_suite)
bind(codes.SUITE_ID_MISMATCH, "resultset", _against_suite)
bind(codes.TEST_CASE_NOT_RUN, "resultset", _against_suite)
# generated: each kind's rules from the schemas' x-unique / x-references, in the table's order
for kind in constants.KINDS:
    for rule_id in dict.fromkeys(rule.rule for rule in rules_of(kind)):
        bind(rule_id, kind, _annotated)

# no stage: the reader finds these while reading (a document that has them is never checked further)
for code in constants.UNREADABLE_CODES:
    elsewhere(code, "reader", "evalschema.io.loader.load_path")
# the identification of a document, before any stage (and, when it decides, instead of them)
elsewhere(codes.UNKNOWN_KIND, "identity", "evalschema.schemas.identify.identify")
elsewhere(codes.UNKNOWN_SCHEMA, "identity", "evalschema.schemas.identify.identify")
elsewhere(codes.VERSION_UNSUPPORTED, "identity", "evalschema.pipeline.identified")
# the schema stage: the engine reports the deprecated locations a document uses
elsewhere(codes.DEPRECATED_FIELD, "engine", "evalschema.engine.deprecations.warnings_for")
elsewhere(codes.VALIDATOR_FAIL_OPEN, "engine", "evalschema.engine.deprecations.warnings_for")
# the summary stage (the summary layer, above this one)
elsewhere(codes.SUMMARY_MISMATCH, "summary", "evalschema.summary.stage.SummaryStage")
# the CLI reads a suite's test cases file
elsewhere(codes.TEST_CASES_FILE_UNREADABLE, "cli", "evalschema.casesfile.follow")
# a feature: comparing result sets
elsewhere(codes.COMPARE_SUITE_MISMATCH, "comparison", "evalschema.compare.document")
elsewhere(codes.COMPARE_SUITE_DIGEST_MISMATCH, "comparison", "evalschema.compare.document")
elsewhere(codes.COMPARE_GRADER_CHANGED, "comparison", "evalschema.compare.document")
elsewhere(codes.COMPARE_TEST_CASES_DIFFER, "comparison", "evalschema.compare.document")
