"""Messages that say what to fix (issue 43, item 4), the same words in both SDKs: a date or date-time names the
part that is wrong, an out-of-range number names its scale, an undefined id is offered the closest defined ones
and the first MAX_LISTED of them. Codes and pointers are what they were; only the words say more."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from evalschema import validate
from evalschema.core.rfc3339 import is_date, is_date_time, problem

ROOT = Path(__file__).resolve().parents[1]
CONSTANTS = {k: v["value"] for k, v in json.loads((ROOT / "spec" / "constants.json").read_text())["constants"].items()}
REASONS = CONSTANTS["FORMAT_PROBLEMS"]
JS_CLI = ROOT / "js" / "dist" / "cli.js"
STARTED = "2026-11-30T09:00:00Z"


def resultset(**row: Any) -> dict[str, Any]:
    base = {
        "test_case_id": "t1",
        "grader_results": [{"grader_id": "g", "type": "exact_match", "score": 1.0, "passed": True}],
        "passed": True,
    }
    return {"version": "1.2.0", "suite_id": "s", "run_id": "r", "started_at": STARTED, "results": [{**base, **row}]}


def errors(document: Any, **options: Any) -> list[tuple[str, str, str]]:
    found = []
    for engine in ("fast", "reference"):
        report = validate(document, engine=engine, **options)
        found.append(sorted((f.code, f.pointer, f.message) for f in report.findings))
    assert found[0] == found[1], "the two engines must say the same"
    return found[0]


def js_findings(tmp_path: Path, document: Any, *extra: str) -> list[tuple[str, str, str]]:
    if shutil.which("node") is None or not JS_CLI.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    proc = subprocess.run(
        ["node", str(JS_CLI), "validate", "--format", "json", *extra, str(path)], capture_output=True, text=True, timeout=120
    )
    entry = json.loads(proc.stdout)["files"][0]
    return sorted((e["code"], e["pointer"], e["message"]) for e in entry["errors"] + entry["warnings"])


DATE_TIMES = [
    ("2026-12-07T08:00:00", "offset_missing"),
    ("2026-12-07", "time_missing"),
    ("2026-12-07 08:00:00Z", "separator"),
    ("2026-13-07T08:00:00Z", "month"),
    ("2026-02-29T08:00:00Z", "day"),
    ("2026-12-00T08:00:00Z", "day"),
    ("2026-12-07T24:00:00Z", "hour"),
    ("2026-12-07T08:60:00Z", "minute"),
    ("2026-12-07T08:00:61Z", "second"),
    ("2026-12-07T08:00:60Z", "leap_second"),
    ("2026-12-07T08:00:00+0100", "offset_shape"),
    ("2026-12-07T08:00:00+24:00", "offset_range"),
    ("2026-12-07T8:00:00Z", "time_shape"),
    ("07/12/2026 08:00", "date_shape"),
    ("2026-12-07T08:00:00Z\n", "offset_shape"),
]
DATES = [
    ("2026-13-01", "month"),
    ("2026-04-31", "day"),
    ("2026-12-07T08:00:00Z", "date_has_time"),
    ("7 Dec 2026", "date_shape"),
    ("2026-1-07", "date_shape"),
]


@pytest.mark.parametrize(("value", "reason"), DATE_TIMES)
def test_a_date_time_says_which_part_is_wrong(value: str, reason: str) -> None:
    assert not is_date_time(value) and problem("date-time", value) == reason
    message = f"{json.dumps(value)} is not a valid date-time: {REASONS[reason]}"
    assert errors(resultset() | {"started_at": value}) == [("INVALID_FORMAT", "/started_at", message)]


@pytest.mark.parametrize(("value", "reason"), DATES)
def test_a_date_says_which_part_is_wrong(value: str, reason: str) -> None:
    assert not is_date(value) and problem("date", value) == reason


@pytest.mark.parametrize("value", ["2026-12-07T08:00:00Z", "2016-12-31T23:59:60Z", "2024-02-29T00:00:00.5+01:00"])
def test_a_valid_date_time_has_no_problem(value: str) -> None:
    assert problem("date-time", value) is None


def test_an_out_of_range_score_names_the_scale() -> None:
    document = resultset(grader_results=[{"grader_id": "g", "type": "exact_match", "score": 95, "passed": True}])
    assert errors(document) == [
        ("OUT_OF_RANGE", "/results/0/grader_results/0/score", "95 is out of range (maximum 1): the scale is 0 to 1")
    ]


SUITE = {
    "version": "1.2.0",
    "id": "s",
    "graders": [{"id": gid, "type": "exact_match"} for gid in ("exact", "contains-ok", "length")],
    "test_cases": [{"id": "t1", "input": "hi", "graders": ["exakt"]}],
}


def test_an_undefined_grader_id_suggests_and_lists_the_defined_ones() -> None:
    message = 'grader "exakt" is not defined in the suite\'s graders; did you mean "exact"? (defined: "contains-ok", "exact", "length")'
    assert errors(SUITE) == [("DANGLING_REFERENCE", "/test_cases/0/graders/0", message)]


def test_an_undefined_test_case_lists_at_most_ten() -> None:
    suite = {**SUITE, "test_cases": [{"id": f"case-{i:02d}", "input": "hi", "graders": ["exact"]} for i in range(12)]}
    rs = resultset(test_case_id="case-1", grader_results=[{"grader_id": "exact", "type": "exact_match", "score": 1.0, "passed": True}])
    rs["suite_id"], rs["metadata"] = "s", {"evalschema.partial": True}
    listed = ", ".join(f'"case-{i:02d}"' for i in range(10))
    message = (
        f'test case "case-1" is not in the suite; did you mean "case-11" or "case-10" or "case-01"? (its test cases: {listed} and 2 more)'
    )
    assert errors(rs, suite=suite) == [("UNKNOWN_TEST_CASE", "/results/0/test_case_id", message)]


def test_an_unknown_grader_of_a_test_case_suggests_its_graders() -> None:
    suite = {**SUITE, "test_cases": [{"id": "t1", "input": "hi", "graders": ["exact", "length"]}]}
    rs = resultset(grader_results=[{"grader_id": "exacct", "type": "exact_match", "score": 1.0, "passed": True}])
    found = [f for f in errors(rs, suite=suite) if f[0] == "UNKNOWN_GRADER"]
    message = 'grader "exacct" is not a grader of test case "t1"; did you mean "exact"? (its graders: "exact", "length")'
    assert found == [("UNKNOWN_GRADER", "/results/0/grader_results/0/grader_id", message)]


def test_typescript_says_the_same_words(tmp_path: Path) -> None:
    documents: list[tuple[Any, tuple[str, ...]]] = [(resultset() | {"started_at": v}, ()) for v, _ in DATE_TIMES]
    documents.append((resultset(grader_results=[{"grader_id": "g", "type": "exact_match", "score": -3, "passed": False}]), ()))
    documents.append((SUITE, ()))
    suite_path = tmp_path / "suite.json"
    suite_path.write_text(
        json.dumps({**SUITE, "test_cases": [{"id": f"case-{i:02d}", "input": "hi", "graders": ["exact"]} for i in range(12)]})
    )
    rs = resultset(test_case_id="case-1", grader_results=[{"grader_id": "exact", "type": "exact_match", "score": 1.0, "passed": True}])
    rs["metadata"] = {"evalschema.partial": True}
    documents.append((rs, ("--suite", str(suite_path))))
    for document, extra in documents:
        suite = json.loads(suite_path.read_text()) if extra else None
        python = sorted((f.code, f.pointer, f.message) for f in validate(document, suite=suite).findings)
        assert js_findings(tmp_path, document, *extra) == python


@pytest.mark.parametrize(
    ("format_name", "seed_value", "check"), [("date-time", "2016-12-31T23:59:60.25-00:30", is_date_time), ("date", "2024-02-29", is_date)]
)
def test_every_invalid_value_gets_a_reason(format_name: str, seed_value: str, check: Any) -> None:
    """Every failure says which part is wrong: near misses of a valid value (a character replaced, dropped or
    added, 20,000 of them) are invalid exactly when a reason is found."""
    import random

    rng = random.Random(43)
    alphabet = "0123456789:-+.TtZz \n/"
    invalid = 0
    for _ in range(20_000):
        value = seed_value
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(value) + 1)
            how = rng.randrange(3)
            if how == 0 and i < len(value):
                value = value[:i] + rng.choice(alphabet) + value[i + 1 :]
            elif how == 1:
                value = value[:i] + value[i + 1 :]
            else:
                value = value[:i] + rng.choice(alphabet) + value[i:]
        reason = problem(format_name, value)
        assert (reason is None) == check(value), value
        assert reason is None or reason in REASONS
        invalid += reason is not None
    assert invalid > 10_000


@pytest.mark.parametrize("params", [None, {"handler": "graders:exact"}])
def test_a_grader_type_typo_gets_a_did_you_mean(params: dict[str, Any] | None, tmp_path: Path) -> None:
    """``exact-match`` for ``exact_match``: today's CUSTOM_GRADER_HANDLER error (no handler) stays as it was, and a
    GRADER_TYPE_NEAR_MISS warning offers the well-known type, with a handler too (then nothing else is said)."""
    grader: dict[str, Any] = {"id": "exact", "type": "exact-match"} | ({"params": params} if params else {})
    found = [(f.code, f.pointer, f.severity, f.message) for f in validate(grader, "grader").findings]
    near = (
        "GRADER_TYPE_NEAR_MISS",
        "/type",
        "warning",
        'type "exact-match" is a custom grader type (run by params.handler), not a well-known one; did you mean "exact_match"?',
    )
    assert [f for f in found if f[0] == "GRADER_TYPE_NEAR_MISS"] == [near]
    assert [f[:2] for f in found if f[0] != "GRADER_TYPE_NEAR_MISS"] == ([] if params else [("CUSTOM_GRADER_HANDLER", "/params")])
    assert [f for f in js_findings(tmp_path, grader) if f[0] == "GRADER_TYPE_NEAR_MISS"] == [(near[0], near[1], near[3])]


@pytest.mark.parametrize("kind", ["tone_checker", "custom", "exact_match", "model graded"])
def test_a_type_unlike_any_near_miss_is_not_warned(kind: str) -> None:
    grader = {"id": "g", "type": kind, "params": {"handler": "graders:x"}}
    assert [f.code for f in validate(grader, "grader").findings if f.code == "GRADER_TYPE_NEAR_MISS"] == []
