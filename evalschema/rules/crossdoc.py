"""Rules that need two documents: a result set checked against the suite it claims to be a run of."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from evalschema_models import rules as codes
from evalschema_models.constants import MISSING_SHOWN, PARTIAL_KEY

from ..core import messages
from ..core.findings import Finding, pointer
from .document import indexed_objects


def _case_graders(case: dict[str, Any], shared: dict[str, str | None]) -> dict[str, str | None]:
    """A test case's graders as id → type (None when a reference names no suite grader)."""
    graders: dict[str, str | None] = {}
    refs = case.get("graders")
    if isinstance(refs, list):
        for ref in refs:
            if isinstance(ref, str):
                if ref in shared:  # a dangling reference is the suite's own DANGLING_REFERENCE, not a missing result
                    graders[ref] = shared[ref]
            elif isinstance(ref, dict) and isinstance(ref.get("id"), str):
                kind = ref.get("type")
                graders[ref["id"]] = kind if isinstance(kind, str) else None
    return graders


def is_partial(resultset: dict[str, Any]) -> bool:
    metadata = resultset.get("metadata")
    return isinstance(metadata, dict) and metadata.get(PARTIAL_KEY) is True


class CaseIndex:
    """A suite's test cases as the cross-document rules read them, and nothing more: each case id (its first
    definition) with its graders (id → type). Cases with the same graders share one mapping, so a suite of many
    cases costs about its ids (a large ``test_cases_file`` is indexed line by line: ``casesfile.follow``)."""

    def __init__(self, suite: dict[str, Any]) -> None:
        self.suite_id = suite.get("id")
        self.shared: dict[str, str | None] = {}
        for _, grader in indexed_objects(suite.get("graders")):
            if isinstance(grader.get("id"), str):
                kind = grader.get("type")
                self.shared.setdefault(grader["id"], kind if isinstance(kind, str) else None)
        self.cases: dict[str, dict[str, str | None]] = {}
        self._mappings: dict[tuple[tuple[str, str | None], ...], dict[str, str | None]] = {}
        for _, case in indexed_objects(suite.get("test_cases")):
            self.add(case)

    def add(self, case: dict[str, Any]) -> None:
        """One more test case (after the suite's others)."""
        case_id = case.get("id")
        if isinstance(case_id, str) and case_id not in self.cases:
            graders = _case_graders(case, self.shared)
            # read only: one mapping for every case with the same graders
            self.cases[case_id] = self._mappings.setdefault(tuple(graders.items()), graders)


class IndexedSuite(dict[str, Any]):
    """A suite whose test cases are held as their :class:`CaseIndex` only (not in ``test_cases``): what the
    cross-document rules need of a suite whose cases are too many to hold whole."""

    def __init__(self, suite: dict[str, Any], index: CaseIndex) -> None:
        super().__init__(suite)
        self.index = index


class SuiteIndex:
    """A suite's test cases and their graders, indexed once, to check result rows against (in any batches), then
    the result set's own fields and the test cases no row was seen for (:meth:`finish`)."""

    def __init__(self, suite: dict[str, Any]) -> None:
        index = suite.index if isinstance(suite, IndexedSuite) else CaseIndex(suite)
        self.suite_id = index.suite_id
        self.cases = index.cases  # read only: an IndexedSuite's index serves every result set checked against it
        self.run: set[str] = set()
        self._case_ids: list[str] | None = None
        self._unknown: dict[str, str] = {}

    def _unknown_case(self, case_id: str) -> str:
        """UNKNOWN_TEST_CASE's message: the closest ids and the first few the suite defines (each unknown id's
        message made once: every row of a run against the wrong suite names one)."""
        if self._case_ids is None:
            self._case_ids = messages.ordered(self.cases)
        message = self._unknown.get(case_id)
        if message is None:
            if len(self._unknown) > 10_000:
                self._unknown.clear()
            message = self._unknown[case_id] = messages.render(codes.UNKNOWN_TEST_CASE, name=case_id, defined=self._case_ids)
        return message

    def check(self, results: list[Any], start: int = 0) -> Iterator[Finding]:
        """Rows ``results``, the first of which is row ``start`` of the result set."""
        for index, result in enumerate(results, start):
            if isinstance(result, dict):
                yield from self._row(index, result)

    def _row(self, index: int, result: dict[str, Any]) -> Iterator[Finding]:
        case_id = result.get("test_case_id")
        if not isinstance(case_id, str):
            return
        if case_id in self.cases:
            self.run.add(case_id)
        else:
            yield Finding(
                pointer("results", index, "test_case_id"),
                codes.UNKNOWN_TEST_CASE,
                "error",
                self._unknown_case(case_id),
            )
            return
        expected = self.cases[case_id]
        seen: set[str] = set()
        for g_index, grader_result in indexed_objects(result.get("grader_results")):
            grader_id = grader_result.get("grader_id")
            if not isinstance(grader_id, str):
                continue
            seen.add(grader_id)
            if grader_id not in expected:
                yield Finding(
                    pointer("results", index, "grader_results", g_index, "grader_id"),
                    codes.UNKNOWN_GRADER,
                    "error",
                    messages.render(codes.UNKNOWN_GRADER, name=grader_id, test_case=case_id, defined=messages.ordered(expected)),
                )
                continue
            want, got = expected[grader_id], grader_result.get("type")
            if want is not None and isinstance(got, str) and got != want:
                yield Finding(
                    pointer("results", index, "grader_results", g_index, "type"),
                    codes.GRADER_TYPE_MISMATCH,
                    "error",
                    messages.render(codes.GRADER_TYPE_MISMATCH, name=grader_id, expected=want, value=got),
                )
        missing = [g for g in expected if g not in seen]
        if missing and "error" not in result and isinstance(result.get("grader_results"), list):
            yield Finding(
                pointer("results", index, "grader_results"),
                codes.GRADER_RESULT_MISSING,
                "error",
                messages.render(codes.GRADER_RESULT_MISSING, names=missing),
            )

    def finish(self, resultset: dict[str, Any]) -> Iterator[Finding]:
        """The result set's own fields against the suite (``resultset`` may lack its rows), once every row was
        checked: the suite it names, and the suite's test cases that have no result."""
        claimed = resultset.get("suite_id")
        if isinstance(claimed, str) and isinstance(self.suite_id, str) and claimed != self.suite_id:
            yield Finding(
                pointer("suite_id"),
                codes.SUITE_ID_MISMATCH,
                "error",
                messages.render(codes.SUITE_ID_MISMATCH, value=claimed, expected=self.suite_id),
            )
            return  # a run of another suite: which of this suite's cases it lacks means nothing
        if not isinstance(resultset.get("results"), list) or is_partial(resultset):
            return
        missing = [case for case in self.cases if case not in self.run]
        if missing:
            more = len(missing) - MISSING_SHOWN
            variant = "more" if more > 0 else "default"
            message = messages.render(codes.TEST_CASE_NOT_RUN, variant, count=len(missing), names=missing[:MISSING_SHOWN], more=more)
            yield Finding(pointer("results"), codes.TEST_CASE_NOT_RUN, "error", message)
