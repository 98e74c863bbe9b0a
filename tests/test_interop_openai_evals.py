"""OpenAI Evals import keeps the final report's numbers: every metric of the report that is a mean over samples is a
grader whose mean `summarize` gives; the answer is kept when only the match event holds it; a log without a final
report is a partial run.

Expected numbers are read from the logs' own `final_report` and events, never typed here: the fixtures are made by
tests/interop/make_fixtures.py in the run log format; `test_real_openai_evals_shapes` reads the logs `oaieval` 3.0.1
itself writes (tests/interop/openai_evals_shapes.py, run in a virtual environment of its own).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from evalschema.cli import main
from evalschema.interop import import_results

FIXTURES = Path(__file__).parent / "interop" / "fixtures" / "openai_evals"
SHAPES = Path(__file__).parent / "interop" / "openai_evals_shapes.py"
PINS = Path(__file__).resolve().parents[1] / "requirements" / "openai_evals.txt"
EVALS_VERSION = "3.0.1"


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


def _evals_python() -> Path:
    """The Python of a virtual environment holding OpenAI Evals 3.0.1 and the curated versions
    ``requirements/openai_evals.txt`` pins (installed with ``--no-deps``: evals' declared dependencies are 150+
    packages the shapes never import), made once in the test cache."""
    from test_interop import tool_python

    return tool_python(f"openai_evals-{EVALS_VERSION}", PINS, no_deps=True)


# What OpenAI Evals' final reports hold beside means over samples: Match's and Includes' bootstrap estimate of the
# accuracy's spread (resampled at random: no per-sample meaning) and ModelBasedClassify's count of each grade.
_NOT_A_MEAN = "boostrap_std"  # sic: OpenAI Evals' own spelling
_COUNTS = "counts/"


def _grader_of(metric: str, by_grader: dict[str, Any]) -> str:
    """The grader holding a final report's metric (SPEC A.4): a ``metrics`` event's number is the grader of its name
    (``score`` is ``metrics``); Match's and Includes' ``accuracy`` is the mean of their ``match`` events."""
    if metric == "score":
        return "metrics"
    return metric if metric in by_grader else "match"


def check_against_oaieval(log: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any] | None:
    """Import an ``oaieval`` run log and compare ``summarize`` with every metric of its final report that is a mean
    over samples, and the counts of grades with the rows' own grades; one row per sample the log holds events of.
    Returns the final report (``None`` for an interrupted run, which is then a partial run)."""
    lines = [orjson.loads(line) for line in log.read_bytes().splitlines() if line.strip()]
    reports = [line["final_report"] for line in lines if "final_report" in line]
    import_results("openai_evals", [log], out)
    summary = _summarize(out, capsys)
    samples = {line["sample_id"] for line in lines if "sample_id" in line}
    assert summary["total"] == len(samples)
    resultset = orjson.loads(out.read_bytes())
    answers: dict[str, str] = {}  # each sample's first sampling: the answer (a model-graded eval's grader samples later)
    for line in sorted((line for line in lines if line.get("type") == "sampling"), key=lambda line: line["event_id"]):
        answers.setdefault(line["sample_id"], line["data"]["sampled"])
    assert {row["test_case_id"]: row.get("actual_output") for row in resultset["results"]} == answers
    if not reports:
        assert resultset["metadata"]["evalschema.partial"] is True
        return None
    (report,) = reports
    assert "evalschema.partial" not in resultset["metadata"]
    grades: Counter[str] = Counter()
    for row in resultset["results"]:
        for result in row["grader_results"]:
            if result["grader_id"] == "metrics":
                grades[result["metadata"]["openai_evals.choice"]] += 1
    for metric, value in report.items():
        if metric == _NOT_A_MEAN:
            continue
        if metric.startswith(_COUNTS):
            assert grades[metric.removeprefix(_COUNTS)] == value, metric
            continue
        grader_id = _grader_of(metric, summary["by_grader"])
        # a grader on a scale of its own (a 1-5 grade) reports its mean in that scale; else the mean score
        mean = "avg_raw_score" if grader_id in resultset.get("graders", {}) else "avg_score"
        assert summary["by_grader"][grader_id][mean] == pytest.approx(value, abs=1e-9), metric
    return dict(report)


@pytest.mark.slow
def test_real_openai_evals_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenAI Evals 3.0.1 itself, offline (``tests/interop/openai_evals_shapes.py``: ``oaieval`` with a local
    completion function and local evals): Match, Includes, FuzzyMatch (f1_score), a model-graded eval with partial
    credit and a meta-evaluation, one on a 1-5 scale, and an interrupted run — each log imported and compared with its final report."""
    python = _evals_python()
    env = {**os.environ, "HOME": str(tmp_path)}
    from test_interop import run_shapes

    runs = run_shapes(python, SHAPES, tmp_path, env)
    shapes = sorted(p.stem for p in runs.iterdir())
    assert shapes == ["fuzzy", "graded", "includes", "interrupted", "match", "rated"]
    report = {shape: check_against_oaieval(runs / f"{shape}.jsonl", tmp_path / f"{shape}.resultset.json", capsys) for shape in shapes}
    # each shape holds what it is for (a change in OpenAI Evals that loses it fails here, not silently)
    assert report["interrupted"] is None
    fuzzy, graded, rated = report["fuzzy"], report["graded"], report["rated"]
    assert fuzzy is not None and graded is not None and rated is not None
    assert fuzzy["f1_score"] not in (0.0, 1.0, fuzzy["accuracy"])  # partial credit
    assert {"score", "metascore"} <= set(graded) and any(key.startswith(_COUNTS) for key in graded)
    assert graded["score"] not in (0.0, 1.0) and rated["score"] > 1.0  # partial credit; a mean outside [0, 1]
