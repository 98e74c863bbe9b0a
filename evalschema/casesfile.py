"""A suite's ``test_cases_file``: followed relative to the suite file, its test cases checked as inline ones are.

Each line of the JSON Lines file is a ``testcase`` document, reported as an entry of its own (the file and the
line), with every rule an inline test case gets: the schema, ``INVALID_REGEX``, and across the file and the suite
``DUPLICATE_ID`` (a later repeat of an id) and ``DANGLING_REFERENCE`` (a grader id the suite does not define). A
file that cannot be read is ``TEST_CASES_FILE_UNREADABLE`` at the suite's ``/test_cases_file``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalschema_models import constants
from evalschema_models import rules as codes

from .core import messages
from .core.display import visible
from .core.findings import Finding, Report
from .core.messages import show
from .io.loader import load_path
from .pipeline import placed, validate
from .rules.annotated import annotated_rules

_CASE_POINTER = re.compile(r"/test_cases/(\d+)(?:/[^\s)]*)?")
# the suite rules that look across test cases: the file's cases get them as the suite's inline cases do
_ACROSS = frozenset(constants.CROSS_CASE_CODES)


@dataclass
class CasesFile:
    """What following a suite's ``test_cases_file`` gave: the file, its readable test cases, a finding for the
    suite if the file cannot be read, and one report per line."""

    path: Path | None = None
    cases: list[dict[str, Any]] = field(default_factory=list)
    problem: Finding | None = None
    lines: list[tuple[int | None, Report, bool]] = field(default_factory=list)  # (line, report, readable)


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
) -> CasesFile:
    """Read and check the test cases of ``suite`` (read from ``suite_path``) that live in its ``test_cases_file``."""
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
    loaded_lines = list(load_path(where, "jsonl"))
    if len(loaded_lines) == 1 and loaded_lines[0].line is None and loaded_lines[0].problem is not None:
        problem = loaded_lines[0].problem
        out.problem = Finding(
            "/test_cases_file",
            codes.TEST_CASES_FILE_UNREADABLE,
            "error",
            messages.render(codes.TEST_CASES_FILE_UNREADABLE, "unreadable", name=name, detail=f"{problem.code}: {problem.message}"),
        )
        return out
    documents: list[tuple[int | None, Any]] = []
    for loaded in loaded_lines:
        if loaded.problem is not None:
            out.lines.append((loaded.line, Report.build("testcase", [loaded.problem], strict=False), False))
            continue
        findings = list(validate(loaded.document, "testcase", **options).findings)
        documents.append((loaded.line, loaded))
        out.lines.append((loaded.line, Report.build("testcase", findings, strict=False), True))
        if isinstance(loaded.document, dict):
            out.cases.append(loaded.document)
    # across the file: the suite's rules over its graders and these cases, mapped back to each case's line
    readable = [(line, loaded) for line, loaded in documents if isinstance(loaded.document, dict)]
    combined = {"graders": suite.get("graders", []), "test_cases": [loaded.document for _, loaded in readable]}
    across: dict[int, list[Finding]] = {}
    for finding in annotated_rules("suite", combined):
        if finding.code not in _ACROSS or not finding.pointer.startswith("/test_cases/"):
            continue
        index_text, _, rest = finding.pointer[len("/test_cases/") :].partition("/")
        # "first at /test_cases/0/id" names a line of the file instead
        message = _CASE_POINTER.sub(lambda m: f"line {readable[int(m.group(1))][0]}", finding.message)
        across.setdefault(int(index_text), []).append(Finding("/" + rest, finding.code, finding.severity, message))
    by_line = {line: number for number, (line, _) in enumerate(readable)}
    for slot, (line, report, ok) in enumerate(out.lines):
        if not ok or line not in by_line:
            continue
        loaded = readable[by_line[line]][1]
        extra = across.get(by_line[line], [])
        merged = Report.build("testcase", [*report.findings, *extra], strict=strict)
        out.lines[slot] = (line, placed(merged, loaded.positions()) if merged.findings else merged, True)
    return out


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
