"""Cross-document rules that check (issue 14, items 1 and 2): a result set names the suite it is checked against
and has a result for each of its test cases (unless it declares itself partial), in memory, from a file read whole
or in pieces, in both SDKs; and a suite's ``test_cases_file`` is followed, its cases checked as inline ones."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalschema import validate, validate_file

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(sys.executable).with_name("evalschema")
JS_CLI = ROOT / "js" / "dist" / "cli.js"

SUITE = {
    "version": "1.1.0",
    "id": "support-bot",
    "graders": [{"id": "exact", "type": "exact_match"}],
    "test_cases": [{"id": t, "input": "hi", "graders": ["exact"]} for t in ("a", "b", "c")],
}


def resultset(suite_id: str = "support-bot", cases: tuple[str, ...] = ("b",), **extra: Any) -> dict[str, Any]:
    rows = [
        {"test_case_id": t, "grader_results": [{"grader_id": "exact", "type": "exact_match", "score": 1.0, "passed": True}], "passed": True}
        for t in cases
    ]
    return {"version": "1.1.0", "suite_id": suite_id, "run_id": "r1", "started_at": "2026-11-30T09:00:00Z", "results": rows, **extra}


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, cwd=cwd, timeout=120)


def pairs(report: Any) -> list[tuple[str, str]]:
    return [(f.code, f.pointer) for f in report.errors]


def js_pairs(path: Path, suite: Path) -> list[tuple[str, str]]:
    if shutil.which("node") is None or not JS_CLI.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    proc = subprocess.run(
        ["node", str(JS_CLI), "validate", "--format", "json", "--suite", str(suite), str(path)], capture_output=True, text=True, timeout=120
    )
    (entry,) = json.loads(proc.stdout)["files"]
    return [(e["code"], e["pointer"]) for e in entry["errors"]]


# --- item 1 -------------------------------------------------------------------------------------------------


CASES = [
    ("another suite", resultset("billing-bot", ("a", "b", "c")), [("SUITE_ID_MISMATCH", "/suite_id")]),
    ("one of three run", resultset(), [("TEST_CASE_NOT_RUN", "/results")]),
    ("declared partial", resultset(metadata={"evalschema.partial": True}), []),
    ("all run", resultset(cases=("c", "a", "b")), []),
]


@pytest.mark.parametrize("name, document, expected", CASES, ids=[c[0] for c in CASES])
def test_result_set_against_its_suite_in_memory_whole_streamed_and_in_typescript(
    name: str, document: dict[str, Any], expected: list[Any], tmp_path: Path
) -> None:
    assert pairs(validate(document, suite=SUITE)) == expected
    assert pairs(validate(document)) == []  # without the suite, nothing to compare
    path, suite_path = tmp_path / "results.json", tmp_path / "suite.json"
    path.write_text(json.dumps(document, indent=2))
    suite_path.write_text(json.dumps(SUITE))
    for stream_rows in (True, False):
        assert pairs(validate_file(path, suite=SUITE, stream_rows=stream_rows)) == expected
    assert js_pairs(path, suite_path) == expected


def test_missing_test_cases_are_named_and_counted() -> None:
    suite = {**SUITE, "test_cases": [{"id": f"t{i}", "input": "x", "graders": ["exact"]} for i in range(8)]}
    (finding,) = validate(resultset(cases=("t3",)), suite=suite).errors
    assert finding.message == (
        'no result for 7 test case(s) of the suite: "t0", "t1", "t2", "t4", "t5" and 2 more '
        '(a partial run says so with metadata["evalschema.partial"]: true)'
    )


# --- item 2 -------------------------------------------------------------------------------------------------


def write_suite(folder: Path, lines: list[str] | None) -> Path:
    suite = {k: v for k, v in SUITE.items() if k != "test_cases"} | {"test_cases_file": "cases.jsonl"}
    path = folder / "suite.json"
    path.write_text(json.dumps(suite, indent=2))
    if lines is not None:
        (folder / "cases.jsonl").write_text("".join(line + "\n" for line in lines))
    return path


def test_a_missing_test_cases_file_is_an_error_at_its_line(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, None)
    proc = run("validate", "--format", "json", str(suite))
    assert proc.returncode == 2  # an input that cannot be read (SPEC §3.4)
    (entry,) = json.loads(proc.stdout)["files"]
    assert [(e["code"], e["pointer"], e["line"]) for e in entry["errors"]] == [("TEST_CASES_FILE_UNREADABLE", "/test_cases_file", 10)]
    assert entry["errors"][0]["message"].startswith(
        'cannot read the test cases file "cases.jsonl" (relative to the suite file): FILE_UNREADABLE'
    )
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert run("validate", str(suite), cwd=other).returncode == 2  # relative to the suite, not the working folder


def test_cases_in_the_file_get_every_rule_inline_cases_get(tmp_path: Path) -> None:
    suite = write_suite(
        tmp_path,
        [
            '{"id": "a", "input": "hi", "graders": ["exact"]}',
            '{"id": "b", "input": "yo", "graders": ["nope"]}',
            '{"id": "a", "input": "again", "graders": ["exact"]}',
            '{"id": "c", "inptu": "x", "graders": ["exact"]}',
            '{"id": "d", "input": "x", "graders": [{"id": "re", "type": "regex", "params": {"pattern": "("}}]}',
            '{"id": "e", "input": ',
        ],
    )
    proc = run("validate", "--format", "json", str(suite))
    assert proc.returncode == 2  # line 6 cannot be parsed; the rest are still checked
    found = {
        (Path(e["path"]).name, e.get("line")): [(f["code"], f["pointer"], f.get("line")) for f in e["errors"]]
        for e in json.loads(proc.stdout)["files"]
    }
    assert found == {
        ("suite.json", None): [],
        ("cases.jsonl", 1): [],
        ("cases.jsonl", 2): [("DANGLING_REFERENCE", "/graders/0", 2)],
        ("cases.jsonl", 3): [("DUPLICATE_ID", "/id", 3)],
        ("cases.jsonl", 4): [("REQUIRED_FIELD", "/input", 4), ("UNKNOWN_FIELD", "/inptu", 4)],
        ("cases.jsonl", 5): [("INVALID_REGEX", "/graders/0/params/pattern", 5)],
        ("cases.jsonl", 6): [("INVALID_JSON", "", 6)],
    }
    duplicate = next(e for e in json.loads(proc.stdout)["files"] if e.get("line") == 3)["errors"][0]["message"]
    assert duplicate == 'duplicate test case id "a" (first at line 1)'


def test_results_against_a_suite_with_a_cases_file_report_the_suite_problems_not_confusing_ones(tmp_path: Path) -> None:
    suite = write_suite(tmp_path, ['{"id": "a", "input": "hi", "graders": ["exact"]}', '{"id": "b", "input": "yo", "graders": ["nope"]}'])
    results = tmp_path / "results.json"
    document = resultset(cases=("a", "b"))
    document["results"][1]["grader_results"] = []  # b's only grader is the dangling 'nope': no GRADER_RESULT_MISSING
    document["results"][1]["passed"] = False
    results.write_text(json.dumps(document))
    proc = run("validate", "--format", "json", "--suite", str(suite), str(results))
    files = {
        (Path(e["path"]).name, e.get("line")): [(f["code"], f["pointer"]) for f in e["errors"]] for e in json.loads(proc.stdout)["files"]
    }
    assert files == {("cases.jsonl", 2): [("DANGLING_REFERENCE", "/graders/0")], ("results.json", None): []}
    assert proc.returncode == 1


def test_typescript_follows_the_test_cases_file_the_same_way(tmp_path: Path) -> None:
    if shutil.which("node") is None or not JS_CLI.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    suite = write_suite(tmp_path, [
        '{"id": "a", "input": "hi", "graders": ["exact"]}',
        '{"id": "b", "input": "yo", "graders": ["nope"]}',
        '{"id": "a", "input": "again", "graders": ["exact"]}',
        '{"id": "c", "inptu": "x", "graders": ["exact"]}',
        '{"id": "e", "input": ',
    ])  # fmt: skip
    missing = tmp_path / "other" / "suite.json"
    missing.parent.mkdir()
    missing.write_text(suite.read_text())  # its cases.jsonl is not beside it

    def answer(command: list[str]) -> list[tuple[str, int | None, bool, list[tuple[str, str]]]]:
        proc = subprocess.run(
            [*command, "validate", "--format", "json", str(suite), str(missing)], capture_output=True, text=True, timeout=120
        )
        files = json.loads(proc.stdout)["files"]
        return sorted((f["path"], f.get("line"), f["valid"], sorted((e["code"], e["pointer"]) for e in f["errors"])) for f in files)

    python = answer([str(SCRIPT)])
    assert python == answer(["node", str(JS_CLI)])
    assert (str(missing), None, False, [("TEST_CASES_FILE_UNREADABLE", "/test_cases_file")]) in python


def test_values_that_look_like_pointers_are_quoted_as_they_are(tmp_path: Path) -> None:
    """Only the earlier case a repeat names is turned into its line: an id or a grader reference that looks like a
    pointer is the user's, quoted as written (one naming a case past the last crashed the whole run)."""
    suite = write_suite(
        tmp_path,
        [
            '{"id": "/test_cases/0", "input": "x", "graders": ["/test_cases/5"]}',
            '{"id": "/test_cases/0", "input": "y", "graders": ["exact"]}',
        ],
    )
    if shutil.which("node") is None or not JS_CLI.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    js = subprocess.run(["node", str(JS_CLI), "validate", "--format", "json", str(suite)], capture_output=True, text=True, timeout=120)
    for proc in (run("validate", "--format", "json", str(suite)), js):  # both SDKs
        assert proc.returncode == 1, proc.stderr
        found = {e.get("line"): [(f["code"], f["message"]) for f in e["errors"]] for e in json.loads(proc.stdout)["files"]}
        assert found == {
            None: [],
            1: [("DANGLING_REFERENCE", """grader "/test_cases/5" is not defined in the suite's graders (defined: "exact")""")],
            2: [("DUPLICATE_ID", 'duplicate test case id "/test_cases/0" (first at line 1)')],
        }, proc.args


def test_against_a_cases_file_only_ids_and_graders_are_kept(tmp_path: Path) -> None:
    """``--suite`` keeps of a test cases file what the cross-document rules read (each case's id and graders, cases
    with the same graders sharing one mapping), never a case whole; results are judged as against the same cases
    inline, also after the trip to a ``-j`` worker (pickled)."""
    import pickle

    from evalschema.casesfile import follow
    from evalschema.rules.crossdoc import CaseIndex, IndexedSuite

    cases = [
        {"id": "a", "input": "hi", "graders": ["exact"]},
        {"id": "b", "input": "yo", "graders": [{"id": "re", "type": "regex", "params": {"pattern": "y"}}]},
        {"id": "a", "input": "again", "graders": []},
        {"id": "c", "input": "x", "graders": ["exact"]},
    ]
    path = write_suite(tmp_path, [json.dumps(case) for case in cases])
    suite = json.loads(path.read_text())
    followed = follow(suite, path, keep="index")
    assert followed.cases == [] and followed.index is not None
    inline = {**suite, "test_cases": cases}
    assert (
        followed.index.cases
        == CaseIndex(inline).cases
        == {"a": {"exact": "exact_match"}, "b": {"re": "regex"}, "c": {"exact": "exact_match"}}
    )
    assert followed.index.cases["a"] is followed.index.cases["c"]  # one mapping for the same graders
    indexed = IndexedSuite(suite, followed.index)
    shipped = pickle.loads(pickle.dumps(indexed))
    documents = [
        resultset(cases=("a", "b", "c")),
        resultset(cases=("a", "zz")),
        resultset("billing-bot", ("a",)),
        {
            **resultset(cases=("b", "c")),
            "results": [
                {
                    "test_case_id": "b",
                    "grader_results": [{"grader_id": "re", "type": "contains", "score": 1.0, "passed": True}],
                    "passed": True,
                }
            ],
        },
    ]
    for document in documents:
        expected = [(f.code, f.pointer, f.message) for f in validate(document, suite=inline).errors]
        for given in (indexed, shipped):
            assert [(f.code, f.pointer, f.message) for f in validate(document, suite=given).errors] == expected
    assert {code for document in documents for code, *_ in pairs(validate(document, suite=inline))} >= {
        "UNKNOWN_TEST_CASE",
        "TEST_CASE_NOT_RUN",
        "SUITE_ID_MISMATCH",
        "GRADER_TYPE_MISMATCH",
    }
