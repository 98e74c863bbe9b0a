"""The summary as a stage of the pipeline: a result set's claimed ``summary`` against the reference summary of its
rows (SUMMARY_MISMATCH)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core import messages
from ..core.findings import Finding, pointer
from ..rules.registry import Batch
from .states import Summary, SummaryBuilder, summarize

SUMMARY_TOLERANCE = constants.SUMMARY_TOLERANCE
_NO_RESULTS: dict[str, Any] = constants.NO_RESULTS


class SourceFailed(Exception):
    """The input failed, or changed, under a second read: the report is this finding alone."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.message)
        self.finding = finding


class ReferenceSummary:
    """The reference summary of the rows, as a stage (``summarize_file``, the summary stage, a second read of a
    stream); ``each_row``, if given, sees every row once."""

    def __init__(self, *, compact: bool = True, each_row: Callable[[Any], None] | None = None) -> None:
        self.builder = SummaryBuilder(compact=compact)
        self.each_row = each_row

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        self.builder.provenance = members.get("graders")  # the reducers of the per-test-case view (SPEC 4.7)
        return ()

    def rows(self, batch: Batch) -> Iterable[Finding]:
        add, each_row = self.builder.add, self.each_row
        for item in batch.items:
            if isinstance(item, dict):
                add(item)
            if each_row is not None:
                each_row(item)
        return ()

    def finish(self) -> Iterable[Finding]:
        return ()

    def build(self) -> Summary:
        return self.builder.build()


class SummaryStage:
    """The claimed summary against the reference summary of the rows, built only when there is a claim to check.

    A document in hand (``streamed`` false) is summarized whole at the end. Streamed rows are summarized while
    they are read when ``while_reading()`` says so (asked as the rows start: a claim came before them, or may
    follow them, or the input cannot be read twice); otherwise, should a claim turn up after the rows all the
    same, ``again()`` reads the rows a second time for it. ``built``: the reference summary another stage of the
    same run builds anyway (``summarize``'s), used instead of building a second one.
    """

    def __init__(
        self,
        *,
        streamed: bool = False,
        while_reading: Callable[[], bool] | None = None,
        again: Callable[[], Summary | Finding] | None = None,
    ) -> None:
        self.streamed, self.while_reading, self.again = streamed, while_reading, again
        self.members: dict[str, Any] = {}
        self.reference: ReferenceSummary | None = None
        self.built: ReferenceSummary | None = None

    def start_rows(self) -> None:
        """Called as the rows start, before the first batch (if any)."""
        if self.built is None and self.streamed and self.while_reading is not None and self.while_reading():
            self.reference = ReferenceSummary()

    def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
        self.members = members
        return ()

    def rows(self, batch: Batch) -> Iterable[Finding]:
        return () if self.reference is None else self.reference.rows(batch)

    def finish(self) -> Iterable[Finding]:
        claimed = self.members.get("summary")
        if not isinstance(claimed, dict):  # the reference summary costs a pass over the rows: only when compared
            return ()
        provenance = self.members.get("graders")  # the reducers of the per-test-case view (SPEC 4.7)
        if self.built is not None:
            return summary_mismatches(claimed, self.built.build().for_graders(provenance))
        if not self.streamed:
            return summary_mismatches(claimed, summarize(self.members))
        if self.reference is not None:
            reference: Summary | Finding = self.reference.build()
        else:
            assert self.again is not None, "a streamed summary is built while reading or read again"
            reference = self.again()
        if isinstance(reference, Finding):
            raise SourceFailed(reference)
        return summary_mismatches(claimed, reference.for_graders(provenance))


def _differs(claimed: Any, computed: Any) -> bool:
    """Whether a claimed summary value differs from the computed one, compared as JSON values (SPEC §4.5), the same
    in every language: a number (never a boolean) matches a number within SUMMARY_TOLERANCE, null only null, true and
    false only themselves; anything else differs."""
    numeric = (int, float)
    if isinstance(claimed, numeric) and isinstance(computed, numeric) and not isinstance(claimed, bool) and not isinstance(computed, bool):
        return not math.isclose(claimed, computed, rel_tol=0, abs_tol=SUMMARY_TOLERANCE)
    if isinstance(claimed, bool) or claimed is None or isinstance(computed, bool) or computed is None:
        return claimed is not computed
    return True


def summary_mismatches(claimed: Any, reference_summary: Summary) -> Iterator[Finding]:
    """Compare a producer's ``summary`` with the reference summary of its rows, field by field."""
    if not isinstance(claimed, dict):
        return
    reference = reference_summary.to_dict()
    for field, value in claimed.items():
        if field == "by_grader" and isinstance(value, dict):
            for grader_id, totals in value.items():
                # a grader with no results has zero counts and no average
                expected = reference["by_grader"].get(grader_id, _NO_RESULTS)
                if not isinstance(totals, dict):
                    continue
                for name, number in totals.items():
                    if name == "per_test_case" and isinstance(number, dict):
                        # the per-test-case view (SPEC 4.7): its numbers, one by one, where the reference has them
                        view = expected.get(name) or {}
                        for key, claimed_value in number.items():
                            if key in view and key != "reducer" and _differs(claimed_value, view[key]):
                                yield Finding(
                                    pointer("summary", "by_grader", grader_id, name, key),
                                    codes.SUMMARY_MISMATCH,
                                    "warning",
                                    messages.render(codes.SUMMARY_MISMATCH, value=claimed_value, expected=view[key]),
                                )
                    elif name in expected and _differs(number, expected[name]):
                        want = expected[name]
                        yield Finding(
                            pointer("summary", "by_grader", grader_id, name),
                            codes.SUMMARY_MISMATCH,
                            "warning",
                            messages.render(codes.SUMMARY_MISMATCH, value=number, expected=want),
                        )
        elif field == "attempts" and isinstance(value, dict):
            expected_attempts = reference.get("attempts") or {}
            for name, number in value.items():
                if name in expected_attempts and _differs(number, expected_attempts[name]):
                    yield Finding(
                        pointer("summary", "attempts", name),
                        codes.SUMMARY_MISMATCH,
                        "warning",
                        messages.render(codes.SUMMARY_MISMATCH, value=number, expected=expected_attempts[name]),
                    )
        elif field in reference and field != "by_grader" and _differs(value, reference[field]):
            yield Finding(
                pointer("summary", field),
                codes.SUMMARY_MISMATCH,
                "warning",
                messages.render(codes.SUMMARY_MISMATCH, value=value, expected=reference[field]),
            )
