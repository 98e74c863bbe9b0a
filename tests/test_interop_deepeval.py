"""DeepEval import keeps DeepEval's numbers: the run's `testPassed` / `testFailed` and each metric's `metricsScores`
(passes, fails, mean score), single-turn and conversational test cases alike; a conversation and a single-turn case
of one name and order stay two test cases.

Expected numbers are read from the test run's own fields, never typed here. `valid.json` is DeepEval 4.3.1's own
output; the conversational fixtures are made by tests/interop/make_fixtures.py in DeepEval's format (DeepEval is not
run in the tests: tests/interop/README.md).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
import pytest

from evalschema.cli import main
from evalschema.interop import import_results
from evalschema.interop.deepeval import _slug

FIXTURES = Path(__file__).parent / "interop" / "fixtures" / "deepeval"
SHAPES = Path(__file__).parent / "interop" / "deepeval_shapes.py"
PINS = Path(__file__).resolve().parents[1] / "requirements" / "deepeval.txt"
DEEPEVAL_VERSION = "4.3.1"


def _summarize(resultset: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["summarize", "--format", "json", str(resultset)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    summary: dict[str, Any] = entry["summary"]
    return summary


def check_against_deepeval(test_run: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Import a DeepEval test run and compare ``summarize`` with DeepEval's own figures in it: the tests passed and
    failed, and per metric its passes, fails, errors (our unscored results) and mean score. Returns the test run."""
    run: dict[str, Any] = orjson.loads(test_run.read_bytes())
    import_results("deepeval", [test_run], out)
    summary = _summarize(out, capsys)
    assert (summary["passed"], summary["failed"]) == (run["testPassed"], run["testFailed"])
    assert summary["total"] == len(run["testCases"]) + len(run["conversationalTestCases"])
    assert sorted(summary["by_grader"]) == sorted(_slug(entry["metric"]) for entry in run["metricsScores"])
    for entry in run["metricsScores"]:
        grader = summary["by_grader"][_slug(entry["metric"])]
        assert (grader["passed"], grader["failed"], grader["unscored"]) == (entry["passes"], entry["fails"], entry.get("errors", 0))
        assert grader["avg_score"] == pytest.approx(sum(entry["scores"]) / len(entry["scores"]), abs=1e-9)
    return run


@pytest.mark.parametrize("name", ["valid.json", "conversational-only.json", "conversational-and-single-turn.json"])
def test_reproduces_deepevals_numbers(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    check_against_deepeval(FIXTURES / name, tmp_path / "de.resultset.json", capsys)


def _deepeval_python() -> Path:
    """The Python of a virtual environment holding DeepEval 4.3.1 and the versions ``requirements/deepeval.txt`` pins,
    made once in the test cache (DeepEval is not a dependency of this project; about 27 MB from the registry)."""
    from test_interop import tool_python

    return tool_python(f"deepeval-{DEEPEVAL_VERSION}", PINS)


@pytest.mark.slow
def test_real_deepeval_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """DeepEval 4.3.1 itself, offline (``tests/interop/deepeval_shapes.py``: local metrics, no model): four shapes —
    several metrics with thresholds and partial credit, a metric that errors, multi-turn conversations, strict mode —
    each imported and compared with the numbers DeepEval wrote into its own test run."""
    python = _deepeval_python()
    env = {**os.environ, "HOME": str(tmp_path), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    from test_interop import run_shapes

    runs = run_shapes(python, SHAPES, tmp_path, env)
    shapes = sorted(p.name for p in runs.iterdir())
    assert shapes == ["conversational", "errors", "metrics", "strict"]
    checked = {}
    for shape in shapes:
        (test_run,) = (runs / shape).glob("test_run_*.json")
        checked[shape] = check_against_deepeval(test_run, tmp_path / f"{shape}.resultset.json", capsys)
    # each shape holds what it is for (a change in DeepEval that loses it fails here, not silently)
    assert any(entry["errors"] for entry in checked["errors"]["metricsScores"])
    assert checked["conversational"]["conversationalTestCases"] and not checked["conversational"]["testCases"]
    assert all(len(entry["scores"]) > 1 for entry in checked["metrics"]["metricsScores"])
    assert {score for entry in checked["metrics"]["metricsScores"] for score in entry["scores"]} - {0.0, 1.0}  # partial credit


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
