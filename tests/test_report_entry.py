"""Findings reach every renderer as ``Finding`` objects (issue 38 item 8): the CLI's entries are ``ReportEntry``
values, and only the JSON renderer turns them into the JSON report's dictionaries — the same bytes as before."""

from __future__ import annotations

import json

from evalschema.core.findings import Finding, Report
from evalschema.report.entry import ReportEntry, entry
from evalschema.report.github import github_entry
from evalschema.report.json_report import json_entry
from evalschema.report.text import painter, text_entry

FINDINGS = [
    Finding("/results/1/passed", "CONSTRAINT_INVALIDATES_PASS", "error", "passed with an invalidating violation", 41, 7),
    Finding("", "UNKNOWN_FIELD", "error", "unknown field \x1b[31m"),
    Finding("/summary", "SUMMARY_MISMATCH", "warning", "the summary says 3, the rows 2", 2, None),
]


def _entry(line: int | None = None) -> ReportEntry:
    return entry("runs/a.json", line, Report.build("resultset", FINDINGS, strict=False))


def test_an_entry_holds_findings_and_writes_the_json_report_shape() -> None:
    made = _entry(3)
    assert all(isinstance(f, Finding) for f in made.errors + made.warnings)
    assert made.to_dict() == {
        "path": "runs/a.json",
        "line": 3,
        "kind": "resultset",
        "valid": False,
        "errors": [
            {
                "code": "CONSTRAINT_INVALIDATES_PASS",
                "severity": "error",
                "pointer": "/results/1/passed",
                "message": "passed with an invalidating violation",
                "line": 41,
                "column": 7,
            },
            {"code": "UNKNOWN_FIELD", "severity": "error", "pointer": "", "message": "unknown field \x1b[31m"},
        ],
        "warnings": [
            {
                "code": "SUMMARY_MISMATCH",
                "severity": "warning",
                "pointer": "/summary",
                "message": "the summary says 3, the rows 2",
                "line": 2,
            }
        ],
    }
    # the members in the order the JSON report writes them (its bytes depend on it); no line: no member
    assert list(made.to_dict()) == ["path", "line", "kind", "valid", "errors", "warnings"]
    assert list(_entry().to_dict()) == ["path", "kind", "valid", "errors", "warnings"]


def test_every_renderer_reads_the_same_entry() -> None:
    made = _entry()
    assert json.loads(json_entry(made)) == made.to_dict()
    text = text_entry(made, painter(False))
    # reading order: placed findings by line and column, then the rest; the terminal sees no escape sequence
    assert [line.split()[2] for line in text.splitlines()[1:]] == ["SUMMARY_MISMATCH", "CONSTRAINT_INVALIDATES_PASS", "UNKNOWN_FIELD"]
    assert "\x1b" not in text
    assert github_entry(made).splitlines() == [
        "::error file=runs/a.json,line=41,col=7,title=CONSTRAINT_INVALIDATES_PASS::/results/1/passed: passed with an invalidating violation",
        "::error file=runs/a.json,title=UNKNOWN_FIELD::(root): unknown field \\x1b[31m",
        "::warning file=runs/a.json,line=2,col=1,title=SUMMARY_MISMATCH::/summary: the summary says 3, the rows 2",
    ]


def test_findings_over_the_cap_are_counted_not_listed() -> None:
    from evalschema.core.limits import MAX_FINDINGS

    many = [Finding(f"/results/{i}", "NULL_SCORE_PASSED", "error", "m") for i in range(MAX_FINDINGS + 5)]
    made = entry("a.json", None, Report.build("resultset", many, strict=False))
    assert len(made.errors) == MAX_FINDINGS and made.omitted == 5 and made.to_dict()["omitted"] == 5
    assert "… 5 more finding(s) not shown" in text_entry(made, painter(False))
    assert github_entry(made).endswith("::notice file=a.json::5 more finding(s) not shown\n")
