"""The Python API's ``suite=`` follows a suite's ``test_cases_file`` as the CLI's ``--suite`` does (issue 43, item 6):
given as a path, relative to the suite's folder; given as a mapping, relative to ``base``, or refused saying so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import validate, validate_file, validate_json
from evalschema.casesfile import SuiteError

SUITE = {
    "version": "1.1.0",
    "id": "support-bot",
    "graders": [{"id": "exact", "type": "exact_match"}],
    "test_cases_file": "cases.jsonl",
}


def resultset(*cases: str) -> dict[str, Any]:
    rows = [
        {"test_case_id": t, "grader_results": [{"grader_id": "exact", "type": "exact_match", "score": 1.0, "passed": True}], "passed": True}
        for t in cases
    ]
    return {"version": "1.1.0", "suite_id": "support-bot", "run_id": "r1", "started_at": "2026-11-30T09:00:00Z", "results": rows}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "suite.json").write_text(json.dumps(SUITE))
    lines = [json.dumps({"id": t, "input": "hi", "graders": ["exact"]}) for t in ("a", "b")]
    (tmp_path / "cases.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def codes(report: Any) -> list[tuple[str, str]]:
    return sorted((f.code, f.pointer) for f in report.findings)


def test_a_suite_path_follows_its_test_cases_file(folder: Path) -> None:
    good, unknown = resultset("a", "b"), resultset("a", "zz")
    assert codes(validate(good, suite=folder / "suite.json")) == []
    assert codes(validate(good, suite=str(folder / "suite.json"))) == []
    assert codes(validate(unknown, suite=folder / "suite.json")) == [
        ("TEST_CASE_NOT_RUN", "/results"),
        ("UNKNOWN_TEST_CASE", "/results/1/test_case_id"),
    ]
    (folder / "rs.json").write_text(json.dumps(good))
    assert codes(validate_file(folder / "rs.json", suite=folder / "suite.json")) == []
    assert codes(validate_json(json.dumps(good), suite=folder / "suite.json")) == []


def test_a_suite_mapping_takes_its_base_folder(folder: Path) -> None:
    assert codes(validate(resultset("a", "b"), suite=SUITE, base=folder)) == []
    assert codes(validate(resultset("zz"), suite=SUITE, base=folder)) == [
        ("TEST_CASE_NOT_RUN", "/results"),
        ("UNKNOWN_TEST_CASE", "/results/0/test_case_id"),
    ]


def test_a_suite_mapping_without_a_base_says_what_to_give() -> None:
    with pytest.raises(SuiteError, match=r"test_cases_file \"cases\.jsonl\".*base=FOLDER"):
        validate(resultset("a"), suite=SUITE)


def test_a_suite_mapping_with_inline_cases_needs_no_base() -> None:
    inline = {k: v for k, v in SUITE.items() if k != "test_cases_file"}
    inline["test_cases"] = [{"id": "a", "input": "hi", "graders": ["exact"]}]
    assert codes(validate(resultset("a"), suite=inline)) == []


def test_an_unreadable_cases_file_is_said_not_reported_as_unknown_cases(folder: Path) -> None:
    (folder / "cases.jsonl").unlink()
    with pytest.raises(SuiteError, match="TEST_CASES_FILE_UNREADABLE"):
        validate(resultset("a"), suite=folder / "suite.json")
    (folder / "cases.jsonl").write_text('{"id": "a", "input": "hi"}\n{not json\n')
    with pytest.raises(SuiteError, match="line 2"):
        validate(resultset("a"), suite=folder / "suite.json")


def test_a_suite_path_that_is_not_a_suite_is_refused(folder: Path) -> None:
    (folder / "bad.json").write_text("[1, 2]")
    with pytest.raises(SuiteError, match="not one JSON object"):
        validate(resultset("a"), suite=folder / "bad.json")
    with pytest.raises(SuiteError, match=r"missing\.json: FILE_UNREADABLE"):
        validate(resultset("a"), suite=folder / "missing.json")
