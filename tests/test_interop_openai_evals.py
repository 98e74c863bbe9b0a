"""OpenAI Evals import keeps the final report's numbers: every metric of the report that is a mean over samples is a
grader whose mean `summarize` gives; the answer is kept when only the match event holds it; a log without a final
report is a partial run.

Expected numbers are read from the logs' own `final_report` and events, never typed here (the fixtures are made by
tests/interop/make_fixtures.py in the run log format; oaieval itself is not run: tests/interop/README.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from evalschema.cli import main
from evalschema.interop import import_results

FIXTURES = Path(__file__).parent / "interop" / "fixtures" / "openai_evals"


def _lines(name: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (FIXTURES / name).read_bytes().splitlines() if line.strip()]


def _summarize(resultset: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["summarize", "--format", "json", str(resultset)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    summary: dict[str, Any] = entry["summary"]
    return summary


@pytest.mark.parametrize(("name", "graders"), [("fuzzy-match.jsonl", {}), ("valid.jsonl", {"accuracy": "match"})])
def test_every_final_report_metric_is_a_grader_mean(
    name: str, graders: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """FuzzyMatch reports the mean of its metrics events (accuracy, f1_score); Match its match events' accuracy."""
    out = tmp_path / "oe.resultset.json"
    import_results("openai_evals", [FIXTURES / name], out)
    summary = _summarize(out, capsys)
    (report,) = [line["final_report"] for line in _lines(name) if "final_report" in line]
    assert report
    for metric, value in report.items():
        assert summary["by_grader"][graders.get(metric, metric)]["avg_score"] == pytest.approx(value, abs=1e-9)


def test_answer_kept_without_sampling_events(tmp_path: Path) -> None:
    out = tmp_path / "oe.resultset.json"
    import_results("openai_evals", [FIXTURES / "no-sampling-events.jsonl"], out)
    answers = {e["sample_id"]: e["data"]["sampled"] for e in _lines("no-sampling-events.jsonl") if e.get("type") == "match"}
    rows = orjson.loads(out.read_bytes())["results"]
    assert {r["test_case_id"]: r.get("actual_output") for r in rows} == answers


@pytest.mark.parametrize(("name", "partial"), [("no-final-report.jsonl", True), ("valid.jsonl", None)])
def test_interrupted_log_is_a_partial_run(name: str, partial: bool | None, tmp_path: Path) -> None:
    out = tmp_path / "oe.resultset.json"
    import_results("openai_evals", [FIXTURES / name], out)
    assert orjson.loads(out.read_bytes())["metadata"].get("evalschema.partial") is partial
