"""``spec/report.schema.json`` describes the JSON report of both CLIs: ``evalschema validate --format json`` and the
built ``evalschema-js validate --format json`` are run over a spread of inputs (valid and invalid documents of every
kind, warnings, unreadable and unparseable files, YAML, JSON Lines with a broken line, standard input, ``--strict``,
the finding cap) and every report must validate against it; every finding code is a rule id of the ledger and the
totals add up; and the two CLIs' reports are equal, member for member (with ``--spec-version`` too)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "spec" / "report.schema.json").read_text(encoding="utf-8"))
LEDGER = {rule["id"] for rule in json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]}
CAP = json.loads((ROOT / "spec" / "constants.json").read_text(encoding="utf-8"))["constants"]["MAX_FINDINGS"]["value"]


def _inputs(folder: Path) -> list[Path]:
    """The files of the spread (stdin is run on its own)."""
    for example in sorted((ROOT / "spec" / "examples").iterdir()):
        shutil.copy(example, folder / example.name)
    multi = json.loads((ROOT / "spec" / "examples" / "resultset-multi-attempt.json").read_text(encoding="utf-8"))
    invalid = json.loads(json.dumps(multi))
    invalid["results"][0]["attempt"] = "x"
    invalid["results"][1]["passed"] = 3
    invalid["results"].append(dict(invalid["results"][1]))  # a duplicate attempt
    (folder / "invalid-resultset.json").write_text(json.dumps(invalid, indent=2), encoding="utf-8")
    row = multi["results"][0]
    capped = {**multi, "results": [{**row, "passed": "no", "attempt": i + 1} for i in range(CAP + 50)]}
    (folder / "capped-resultset.json").write_text(json.dumps(capped), encoding="utf-8")
    (folder / "broken.json").write_text('{"id": ', encoding="utf-8")
    (folder / "empty.json").write_text("", encoding="utf-8")
    (folder / "not-utf8.json").write_bytes(b'{"id": "\xff"}')
    (folder / "array.json").write_text("[1, 2]", encoding="utf-8")
    (folder / "suite.yaml").write_text(
        (ROOT / "spec" / "examples" / "suite-qa-basic.json").read_text(encoding="utf-8"), encoding="utf-8"
    )  # JSON is YAML
    (folder / "broken.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    case = {"id": "c1", "input": "hi", "graders": [{"type": "contains", "params": {"substring": "h"}}]}
    lines = [json.dumps(case), "{broken", json.dumps({**case, "id": ""}), json.dumps({"unknown": True})]
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [*sorted(folder.iterdir()), folder / "missing.json"]


def _check(report: Any, label: str) -> None:
    errors = sorted(Draft202012Validator(SCHEMA).iter_errors(report), key=lambda e: list(e.absolute_path))
    assert errors == [], f"{label}: {errors[0].message} at {list(errors[0].absolute_path)}"
    codes = {f["code"] for entry in report["files"] for f in entry["errors"] + entry["warnings"]}
    assert codes <= LEDGER, f"{label}: codes outside the ledger: {codes - LEDGER}"
    summary = report["summary"]
    assert summary["files"] == len(report["files"]) == summary["valid"] + summary["invalid"] + summary["unreadable"], label
    assert summary["valid"] == sum(entry["valid"] for entry in report["files"]), label


def _clis(built_js: Path) -> dict[str, list[str]]:
    return {"python": [sys.executable, "-m", "evalschema"], "typescript": ["node", str(built_js)]}


OPTIONS = [[], ["--strict"], ["--allow-unknown", "--kind", "testcase"], ["--spec-version", "1.0.0"], ["--spec-version", "1.1.0"]]


@pytest.mark.parametrize("options", OPTIONS)
def test_every_report_of_both_clis_validates_against_the_report_schema(built_js: Path, tmp_path: Path, options: list[str]) -> None:
    paths = [str(p) for p in _inputs(tmp_path)]
    seen: dict[str, set[Any]] = {}
    reports: dict[str, Any] = {}
    for name, command in _clis(built_js).items():
        run = subprocess.run([*command, "validate", "--format", "json", *options, *paths], capture_output=True, cwd=tmp_path, check=False)
        assert run.returncode in (1, 2), (name, run.returncode, run.stderr[-2000:])
        report = reports[name] = json.loads(run.stdout)
        _check(report, f"{name} {options}")
        seen[name] = {key for entry in report["files"] for key in entry} | {
            "finding:" + key for entry in report["files"] for f in entry["errors"] for key in f
        }
    # one report, whichever CLI wrote it: the same entries with the same members, in the same order
    python, typescript = reports["python"], reports["typescript"]
    assert python["summary"] == typescript["summary"], options
    for ours, theirs in zip(python["files"], typescript["files"], strict=True):
        assert ours == theirs, (options, ours["path"], ours.get("line"))
    # the spread reaches every optional member of an entry and of a finding
    for name, keys in seen.items():
        if options != ["--allow-unknown", "--kind", "testcase"]:  # as test cases, the rows are not findings
            assert {"line", "omitted", "finding:line", "finding:column"} <= keys, name


def test_standard_input_reports_validate_too(built_js: Path) -> None:
    document = (ROOT / "spec" / "examples" / "suite-qa-basic.json").read_bytes()
    for name, command in _clis(built_js).items():
        for data in (document, b'{"x": ', b'{"id": "a"}\n{"id": "b"}\n'):
            run = subprocess.run([*command, "validate", "--format", "json", "-"], input=data, capture_output=True, check=False)
            _check(json.loads(run.stdout), f"{name} stdin {data[:10]!r}")


def test_the_schema_refuses_what_the_report_never_holds() -> None:
    finding = {"code": "TYPE_MISMATCH", "severity": "error", "pointer": "/a", "message": "m", "line": 1, "column": 2}
    entry = {"path": "a.json", "kind": "suite", "valid": False, "errors": [finding], "warnings": []}
    good = {"files": [entry], "summary": {"files": 1, "valid": 0, "invalid": 1, "unreadable": 0}}
    validator = Draft202012Validator(SCHEMA)
    assert validator.is_valid(good)
    for bad in (
        {**good, "extra": 1},
        {**good, "files": [{**entry, "kind": "other"}]},
        {**good, "files": [{**entry, "unreadable": True}]},  # the file-scope finding says so; neither CLI writes it
        {**good, "files": [{**entry, "warnings": [finding]}]},  # an error among the warnings
        {**good, "files": [{**entry, "errors": [{**finding, "line": 0}]}]},
        {**good, "files": [{**entry, "errors": [{**finding, "hint": "x"}]}]},
        {**good, "summary": {"files": 1}},
    ):
        assert not validator.is_valid(bad), bad


def test_every_document_of_a_json_lines_file_is_reported_at_its_line(built_js: Path, tmp_path: Path) -> None:
    """A JSON Lines file's entries carry their ``line``, a suite's too (it was reported as a whole file, issue 41
    R9): a test case, a suite, and a suite whose ``test_cases_file`` is followed (its lines come after it, at theirs)."""
    case = {"id": "c1", "input": "hi", "graders": [{"id": "g", "type": "contains", "params": {"substring": "h"}}]}
    suite = json.loads((ROOT / "spec" / "examples" / "suite-qa-basic.json").read_text(encoding="utf-8"))
    kept = {key: value for key, value in suite.items() if key != "test_cases"}
    (tmp_path / "kept.jsonl").write_text(json.dumps(case) + "\n" + json.dumps({**case, "id": "c2"}) + "\n", encoding="utf-8")
    lines = [case, suite, {**kept, "test_cases_file": "kept.jsonl"}]
    (tmp_path / "mixed.jsonl").write_text("".join(json.dumps(d) + "\n" for d in lines), encoding="utf-8")
    for name, command in _clis(built_js).items():
        run = subprocess.run([*command, "validate", "--format", "json", "mixed.jsonl"], capture_output=True, cwd=tmp_path, check=False)
        assert run.returncode == 0, (name, run.stdout[-2000:], run.stderr[-2000:])
        report = json.loads(run.stdout)
        _check(report, name)
        placed = [(entry["path"], entry.get("line"), entry["kind"]) for entry in report["files"]]
        assert placed == [
            ("mixed.jsonl", 1, "testcase"),
            ("mixed.jsonl", 2, "suite"),
            ("mixed.jsonl", 3, "suite"),
            ("kept.jsonl", 1, "testcase"),
            ("kept.jsonl", 2, "testcase"),
        ], name
