"""The code rules of the ledger, registered as units (``registry``): the stages that check them, and where the
rules that are no stage are implemented.

The per-document passes (``document``) are today's hand-written functions, wrapped as stages; a pass that checks
several rules registers them as a family. Helper 'codegen' replaces the uniqueness and reference rules
(DUPLICATE_ID, DANGLING_REFERENCE, DUPLICATE_EVAL_ID, DUPLICATE_VALIDATOR_ID, CONSTRAINT_GRADER_UNKNOWN) with
families generated from schema annotations (``evalschema.annotated``), registered the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core.findings import Finding
from .crossdoc import SuiteIndex
from .document import ResultRows, grader_rules, pack_rules, resultset_document_rules, suite_rules, testcase_rules
from .registry import Batch, Context, Stage, elsewhere, family


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
    """The row rules of a result set; state across rows: the first row of each (test case, attempt)."""

    def __init__(self, context: Context) -> None:
        self.rules = ResultRows(compact=context.compact)

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

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        self.members = members
        return ()

    def rows(self, batch: Batch) -> Iterable[Finding]:
        return self.index.check(batch.items, batch.start)

    def finish(self) -> Iterable[Finding]:
        return self.index.finish(self.members)


def _rows(context: Context) -> Stage:
    return ResultRowsPass(context)


def _against_suite(context: Context) -> Stage | None:
    return SuitePass(context.suite) if isinstance(context.suite, dict) else None


ALL_KINDS = tuple(constants.KINDS)

# stages: registered in the order they run
family([codes.INVALID_REGEX, codes.UNKNOWN_GRADER_PARAM], ["grader"], _document(grader_rules))
family([codes.INVALID_REGEX, codes.UNKNOWN_GRADER_PARAM], ["testcase"], _document(testcase_rules))
family([codes.DUPLICATE_ID, codes.DANGLING_REFERENCE, codes.INVALID_REGEX, codes.UNKNOWN_GRADER_PARAM], ["suite"], _document(suite_rules))
family(
    [codes.DUPLICATE_EVAL_ID, codes.DUPLICATE_VALIDATOR_ID, codes.PROMPT_ID_MISMATCH, codes.MIGRATION_PLACEHOLDER, codes.INVALID_REGEX],
    ["pack"],
    _document(pack_rules),
)
family([codes.SELF_PARENT], ["resultset"], _document(resultset_document_rules))
family([codes.DUPLICATE_ATTEMPT, codes.CONSTRAINT_GRADER_UNKNOWN, codes.ERROR_WITH_INVALIDATING_VIOLATION], ["resultset"], _rows)
family(
    [
        codes.UNKNOWN_TEST_CASE,
        codes.GRADER_TYPE_MISMATCH,
        codes.UNKNOWN_GRADER,
        codes.GRADER_RESULT_MISSING,
        codes.SUITE_ID_MISMATCH,
        codes.TEST_CASE_NOT_RUN,
    ],
    ["resultset"],
    _against_suite,
)

# no stage: the reader finds these while reading (a document that has them is never checked further)
elsewhere(constants.UNREADABLE_CODES, ALL_KINDS, "reader", "evalschema.loader.load_path")
# the identification of a document, before any stage (and, when it decides, instead of them)
elsewhere([codes.UNKNOWN_KIND, codes.UNKNOWN_SCHEMA], ALL_KINDS, "identity", "evalschema.schemas.identify.identify")
elsewhere([codes.VERSION_UNSUPPORTED], ALL_KINDS, "identity", "evalschema.pipeline.identified")
# the schema stage: the engine reports the deprecated locations a document uses
elsewhere([codes.DEPRECATED_FIELD], ALL_KINDS, "engine", "evalschema.engine.deprecations.warnings_for")
elsewhere([codes.VALIDATOR_FAIL_OPEN], ["pack"], "engine", "evalschema.engine.deprecations.warnings_for")
# the summary stage (the summary layer, above this one)
elsewhere([codes.SUMMARY_MISMATCH], ["resultset"], "summary", "evalschema.summary.stage.SummaryStage")
# the CLI reads a suite's test cases file
elsewhere([codes.TEST_CASES_FILE_UNREADABLE], ["suite"], "cli", "evalschema.cli.casesfile.follow")
# a feature: comparing result sets
elsewhere(
    [codes.COMPARE_SUITE_MISMATCH, codes.COMPARE_SUITE_DIGEST_MISMATCH, codes.COMPARE_GRADER_CHANGED, codes.COMPARE_TEST_CASES_DIFFER],
    ["resultset"],
    "comparison",
    "evalschema.compare.document",
)
