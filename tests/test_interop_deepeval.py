"""DeepEval import keeps DeepEval's numbers: the run's `testPassed` / `testFailed` and each metric's `metricsScores`
(passes, fails, mean score), single-turn and conversational test cases alike; a conversation and a single-turn case
of one name and order stay two test cases.

Expected numbers are read from the test run's own fields, never typed here. `valid.json` is DeepEval 4.3.1's own
output; the conversational fixtures are made by tests/interop/make_fixtures.py in DeepEval's format (DeepEval is not
run in the tests: tests/interop/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from evalschema.cli import main
from evalschema.interop import import_results
from evalschema.interop.deepeval import _slug

FIXTURES = Path(__file__).parent / "interop" / "fixtures" / "deepeval"


def _summarize(resultset: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["summarize", "--format", "json", str(resultset)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    summary: dict[str, Any] = entry["summary"]
    return summary


@pytest.mark.parametrize("name", ["valid.json", "conversational-only.json", "conversational-and-single-turn.json"])
def test_reproduces_deepevals_numbers(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = orjson.loads((FIXTURES / name).read_bytes())
    out = tmp_path / "de.resultset.json"
    import_results("deepeval", [FIXTURES / name], out)
    summary = _summarize(out, capsys)
    assert (summary["passed"], summary["failed"]) == (run["testPassed"], run["testFailed"])
    assert summary["total"] == len(run["testCases"]) + len(run["conversationalTestCases"])
    for entry in run["metricsScores"]:
        grader = summary["by_grader"][_slug(entry["metric"])]
        assert (grader["passed"], grader["failed"]) == (entry["passes"], entry["fails"])
        assert grader["avg_score"] == pytest.approx(sum(entry["scores"]) / len(entry["scores"]), abs=1e-9)


def test_conversation_and_single_turn_case_kept_apart(tmp_path: Path) -> None:
    name = "conversational-and-single-turn.json"
    run = orjson.loads((FIXTURES / name).read_bytes())
    out = tmp_path / "de.resultset.json"
    import_results("deepeval", [FIXTURES / name], out)
    suite = orjson.loads(out.with_name("de.suite.json").read_bytes())
    assert len({c["id"] for c in suite["test_cases"]}) == len(run["testCases"]) + len(run["conversationalTestCases"])
    first = run["conversationalTestCases"][0]
    single = run["testCases"][0]
    assert (first["name"], first["order"]) == (single["name"], single["order"])  # the collision the fixture holds
    (case,) = [c for c in suite["test_cases"] if c["id"] == f"conversation:{first['order']}:{first['name']}"]
    assert f"{single['order']}:{single['name']}" in {c["id"] for c in suite["test_cases"]}
    assert case["input"] == [f"{t['role']}: {t['content']}" for t in first["turns"]]
    rows = orjson.loads(out.read_bytes())["results"]
    (row,) = [r for r in rows if r["test_case_id"] == case["id"]]
    assert row["actual_output"] == [t["content"] for t in first["turns"] if t["role"] == "assistant"][-1]
