"""A suite's ``test_cases_file``: followed relative to the suite file, its test cases checked as inline ones are.

Each line of the JSON Lines file is a ``testcase`` document, reported as an entry of its own (the file and the
line), with every rule an inline test case gets: the schema, ``INVALID_REGEX``, and across the file and the suite
``DUPLICATE_ID`` (a later repeat of an id) and ``DANGLING_REFERENCE`` (a grader id the suite does not define). A
file that cannot be read is ``TEST_CASES_FILE_UNREADABLE`` at the suite's ``/test_cases_file``.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from evalschema_models import constants
from evalschema_models import rules as codes

from .core import messages
from .core.display import visible
from .core.findings import Finding, Report
from .core.messages import show
from .io.loader import load_path
from .pipeline import placed, validate
from .rules.annotated import ARRAY_ITEM, AnnotatedRows, Rule, rules_of
from .rules.crossdoc import CaseIndex, IndexedSuite

_CASE_POINTER = re.compile(r"/test_cases/(\d+)(?:/[^\s)]*)?")
# the suite rules that look across test cases: the file's cases get them as the suite's inline cases do
_ACROSS = frozenset(constants.CROSS_CASE_CODES)
_ARRAY = "test_cases"  # the suite's member the file's cases stand in for
_PREFIX = f"/{_ARRAY}/"


class CasesFile:
    """What following a suite's ``test_cases_file`` gave: the file, its readable test cases (whole, or only as the
    cross-document rules need them: ``index``), a finding for the suite if the file cannot be read, and one report
    per line (``lines``). Memory holds no line's text or document: a line's number, and its report when it has
    findings."""

    def __init__(self, path: Path | None = None, problem: Finding | None = None) -> None:
        self.path, self.problem = path, problem
        self.cases: list[dict[str, Any]] = []
        self.index: CaseIndex | None = None
        self._numbers = array("q")  # each line's number (-1: none), in order
        self._reports: dict[int, tuple[Report, bool]] = {}  # by position in _numbers: a report with findings
        self._plain: Report | None = None  # the report of a line without findings

    def add(self, line: int | None, report: Report, readable: bool) -> None:
        if readable and not report.findings:
            if self._plain is None:
                self._plain = report
            if report == self._plain:
                self._numbers.append(-1 if line is None else line)
                return
        self._reports[len(self._numbers)] = (report, readable)
        self._numbers.append(-1 if line is None else line)

    @property
    def lines(self) -> Iterator[tuple[int | None, Report, bool]]:
        """(line, report, readable) for each line, in order."""
        for position, number in enumerate(self._numbers):
            report, readable = self._reports.get(position) or (self._plain, True)
            assert report is not None
            yield (None if number < 0 else number), report, readable


def cases_path(suite: Path, name: str) -> Path | str:
    """The suite's ``test_cases_file``, relative to the suite's folder; or why it cannot be used: it must stay
    inside that folder (no absolute path, no ``..`` out of it, no link leading out), so that a suite from
    elsewhere cannot make us read (and quote) any file on the machine."""
    relative = Path(name)
    # a backslash separates too: a suite written on Windows must not reach out of its folder on Windows
    if relative.is_absolute() or name.startswith(("/", "\\")) or ".." in re.split(r"[\\/]", name) or "\x00" in name:
        return "must be a path inside the suite's folder"
    folder = suite.parent.resolve()
    target = (suite.parent / relative).resolve()
    if folder != target and folder not in target.parents:
        return "leads out of the suite's folder"
    return suite.parent / relative


def follow(
    suite: Any,
    suite_path: Path,
    *,
    strict: bool = False,
    allow_unknown: bool = False,
    engine: Any = "fast",
    spec_version: str | None = None,
    keep: Literal["cases", "index"] | None = "cases",
) -> CasesFile:
    """Read and check the test cases of ``suite`` (read from ``suite_path``) that live in its ``test_cases_file``, a
    line at a time. ``keep``: each readable case whole (``cases``); only what the cross-document rules need of them
    (``index``: memory does not grow with the cases' contents); or none (the lines' reports are all that is
    wanted)."""
    options: dict[str, Any] = {"strict": strict, "allow_unknown": allow_unknown, "engine": engine, "spec_version": spec_version}
    name = suite.get("test_cases_file") if isinstance(suite, dict) else None
    if not isinstance(name, str) or not name:
        return CasesFile()
    where = cases_path(suite_path, name)
    if isinstance(where, str):
        return CasesFile(
            problem=Finding(
                "/test_cases_file",
                codes.TEST_CASES_FILE_UNREADABLE,
                "error",
                messages.render(codes.TEST_CASES_FILE_UNREADABLE, name=name, detail=where),
            )
        )
    out = CasesFile(where)
    if keep == "index":
        out.index = CaseIndex({k: v for k, v in suite.items() if k != _ARRAY})
    across = _Across(suite)
    for number, loaded in enumerate(load_path(where, "jsonl")):
        if number == 0 and loaded.line is None and loaded.problem is not None:  # the file itself cannot be read
            problem = loaded.problem
            out.problem = Finding(
                "/test_cases_file",
                codes.TEST_CASES_FILE_UNREADABLE,
                "error",
                messages.render(codes.TEST_CASES_FILE_UNREADABLE, "unreadable", name=name, detail=f"{problem.code}: {problem.message}"),
            )
            return out
        if loaded.problem is not None:
            out.add(loaded.line, Report.build("testcase", [loaded.problem], strict=False), False)
            continue
        findings = list(validate(loaded.document, "testcase", **options).findings)
        case = loaded.document
        if not isinstance(case, dict):
            out.add(loaded.line, Report.build("testcase", findings, strict=False), True)
            continue
        # across the file: the suite's rules over its graders and the cases so far, mapped back to the cases' lines
        report = Report.build("testcase", [*findings, *across.check(case, loaded.line)], strict=strict)
        out.add(loaded.line, placed(report, loaded.positions()) if report.findings else report, True)
        if out.index is not None:
            out.index.add(case)
        elif keep == "cases":
            out.cases.append(case)
    return out


class _Across:
    """The suite's rules that look across test cases (``CROSS_CASE_CODES``) over the cases of its file, one case at a
    time, as they are read: the rules judged row by row (a case id unique across the cases: the first of each kept,
    compact) and those from a case to the suite's own members (a case's graders defined by the suite's). Their
    findings point inside the case; the earlier case a repeat names becomes its line."""

    def __init__(self, suite: dict[str, Any]) -> None:
        by_row: list[Rule] = []
        self.to_suite: list[Rule] = []
        for rule in rules_of("suite"):
            lands = rule.scope[:1] == (_ARRAY,) or (rule.scope == () and _ARRAY in (rule.items[:1] + rule.source[:1]))
            if rule.rule not in _ACROSS or not lands:
                continue  # findings elsewhere than in a test case: the suite's own report has them
            if (
                rule.keyword == "x-references"
                and rule.scope == ()
                and rule.source[:2] == (_ARRAY, ARRAY_ITEM)
                and rule.target[:1] != (_ARRAY,)
            ):
                self.to_suite.append(rule)
            else:
                by_row.append(rule)  # (refused here if it cannot be judged one case at a time)
        self.rows = AnnotatedRows("suite", _ARRAY, compact=True, rules=by_row)
        self.alone = {k: v for k, v in suite.items() if k != _ARRAY}  # the suite with one case: the one at hand
        self.lines = array("q")  # the line of each case read so far

    def check(self, case: dict[str, Any], line: int | None) -> list[Finding]:
        index = len(self.lines)
        self.lines.append(-1 if line is None else line)
        found = [self._first_at_line(f) for f in self.rows.rows([case], index)]
        if self.to_suite:
            self.alone[_ARRAY] = [case]
            found += [f for rule in self.to_suite for f in rule.findings(self.alone, ())]
        # the finding at its pointer inside the case
        return [replace(f, pointer="/" + f.pointer[len(_PREFIX) :].partition("/")[2]) for f in found if f.pointer.startswith(_PREFIX)]

    def _first_at_line(self, finding: Finding) -> Finding:
        """A repeat's message names the earlier case it repeats by pointer, last (the value it quotes comes before,
        and is the user's: never rewritten): named by its line instead."""
        pointers = list(_CASE_POINTER.finditer(finding.message))
        last = pointers[-1] if pointers else None
        if last is None or int(last.group(1)) >= len(self.lines):
            return finding
        message = finding.message[: last.start()] + f"line {self.lines[int(last.group(1))]}" + finding.message[last.end() :]
        return replace(finding, message=message)


class SuiteError(ValueError):
    """A suite given to the API (``validate(…, suite=…)``) whose test cases cannot all be had: its file cannot be
    read, or a mapping names a ``test_cases_file`` but no ``base`` folder says where that file is."""


def suite_in_hand(suite: Any, base: str | os.PathLike[str] | None = None) -> Any:
    """The suite as the cross-document rules need it: a path is read (through the input gate), and a suite whose
    test cases live in its ``test_cases_file`` gets them read from that file, relative to the suite's own folder
    (a path) or to ``base`` (a mapping). The CLI's ``--suite`` does the same; without it every row of a result set
    would be "unknown test case". Anything else is returned as it is."""
    path: Path | None = None
    if isinstance(suite, (str, os.PathLike)):
        path = Path(suite)
        loaded = list(load_path(path))
        if len(loaded) != 1 or loaded[0].problem is not None or not isinstance(loaded[0].document, dict):
            problem = loaded[0].problem if loaded and loaded[0].problem is not None else None
            detail = f"{problem.code}: {problem.message}" if problem is not None else "not one JSON object"
            raise SuiteError(f"suite {visible(str(path))}: {detail}")
        suite = loaded[0].document
    if not isinstance(suite, dict) or "test_cases" in suite or not isinstance(suite.get("test_cases_file"), str):
        return suite
    if isinstance(suite, IndexedSuite):  # its test cases followed already, and indexed
        return suite
    if path is None:
        if base is None:
            raise SuiteError(
                f"the suite keeps its test cases in test_cases_file {show(suite['test_cases_file'])}: give the folder "
                "that file is relative to (validate(…, suite=SUITE, base=FOLDER)), or the suite's path (suite=PATH)"
            )
        path = Path(base) / "suite.json"  # ``follow`` reads the file relative to the folder the suite is in
    cases = follow(suite, path)
    if cases.problem is not None:
        raise SuiteError(f"{cases.problem.code}: {cases.problem.message}")
    for line, report, readable in cases.lines:
        if not readable:
            problem = report.errors[0]
            raise SuiteError(
                f"{codes.TEST_CASES_FILE_UNREADABLE}: line {line} of the test cases file {show(suite['test_cases_file'])}: "
                f"{problem.code}: {problem.message}"
            )
    return {**suite, "test_cases": cases.cases}
