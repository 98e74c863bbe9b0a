"""Imports that keep the numbers (issue 40): real Inspect AI runs (``mockllm/model``, offline) in five shapes —
several scorers; uneven epochs (some errored); model-graded partial credit with a ``median`` reducer; a 1-10
rating; a dict-valued scorer with ``at_least_2`` — imported with ``--from inspect``, and every headline metric
Inspect reports (read from Inspect's own log with ``inspect_ai.log.read_eval_log``) reproduced by ``evalschema
summarize`` to 1e-9: ``accuracy`` and ``mean`` as the grader's per-test-case mean (its raw mean on a scale),
``stderr`` as its per-test-case standard error, and the number of scored samples as its test cases."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# Inspect's own reader: a dev dependency (the ``inspect`` extra) the repository installs, so a missing one fails here
# (no skip); typed Any, as the figures are read from its logs' loosely typed values
inspect_log: Any = importlib.import_module("inspect_ai.log")


HERE = Path(__file__).resolve().parent
SHAPES = ("several", "uneven", "partial", "rated", "dict_valued")
TOLERANCE = 1e-9


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Each shape's ``.eval`` log and its ``.json`` copy, written by Inspect itself."""
    folder = tmp_path_factory.mktemp("inspect")
    run = subprocess.run(
        [sys.executable, str(HERE / "inspect_shapes.py"), str(folder)], capture_output=True, text=True, check=False, cwd=folder
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out: dict[str, list[Path]] = {}
    for line in run.stdout.split():
        path = Path(line)
        out.setdefault(path.parent.name, []).append(path)
    assert sorted(out) == sorted(SHAPES)
    return out


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evalschema", *args], capture_output=True, text=True, check=False, cwd=cwd)


def _imported(log: Path) -> tuple[dict[str, Any], list[str]]:
    """The log imported (``--from inspect``), validated, summarized: its summary and the loss report's lines."""
    out = log.with_suffix(log.suffix + ".resultset.json")
    run = _cli("import", "--from", "inspect", str(log), "-o", str(out), "--format", "json", cwd=log.parent)
    assert run.returncode == 0, run.stdout + run.stderr
    loss = json.loads(run.stdout)["loss"]
    checked = _cli("validate", "--strict", str(out), str(out.with_name(out.name.replace(".resultset.json", ".suite.json"))), cwd=log.parent)
    assert checked.returncode == 0, checked.stdout
    summarized = _cli("summarize", "--format", "json", str(out), cwd=log.parent)
    assert summarized.returncode == 0, summarized.stderr
    entries = [entry for category in ("dropped", "approximated", "defaulted") for entry in loss[category]]
    return json.loads(summarized.stdout)[0]["summary"], [json.dumps(entry) for entry in entries]


def _ours(summary: dict[str, Any], scorer: str, name: str, metric: str) -> float | None:
    """What our summary says for one of Inspect's metrics of one score (``name`` is a dict key when not ``scorer``)."""
    grader = name if name == scorer else f"{scorer}/{name}"
    view = summary["by_grader"][grader]["per_test_case"]
    scaled = "avg_raw_score" in view
    if metric in ("accuracy", "mean"):
        mean: float | None = view["avg_raw_score"] if scaled else view["avg_score"]
        return mean
    if metric == "stderr":
        value: float | None = view["raw_stderr"] if scaled else view["stderr"]
        return 0.0 if value is None and view["test_cases"] < 2 else value  # Inspect gives 0 below two samples
    raise AssertionError(f"a headline metric this test does not know: {metric}")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_summarize_reproduces_inspects_metrics(shape: str, suffix: str, logs: dict[str, list[Path]]) -> None:
    [log] = [p for p in logs[shape] if p.suffix == suffix]
    header = inspect_log.read_eval_log(str(log), header_only=True)
    assert header.results is not None and header.results.scores
    summary, _ = _imported(log)
    compared = 0
    for score in header.results.scores:
        grader = score.name if score.name == score.scorer else f"{score.scorer}/{score.name}"
        assert summary["by_grader"][grader]["per_test_case"]["test_cases"] == score.scored_samples, grader
        for metric in score.metrics.values():
            ours = _ours(summary, score.scorer, score.name, metric.name)
            assert ours is not None and abs(ours - metric.value) <= TOLERANCE, (grader, metric.name, ours, metric.value)
            compared += 1
    assert compared >= 2


def test_the_shapes_are_what_they_claim(logs: dict[str, list[Path]]) -> None:
    """Each shape holds what it is there to test, read from Inspect's log: otherwise the comparison proves less."""
    headers = {shape: inspect_log.read_eval_log(str(next(p for p in logs[shape] if p.suffix == ".eval"))) for shape in SHAPES}
    assert len(headers["several"].results.scores) == 3
    uneven = headers["uneven"]
    epochs: dict[Any, int] = {}
    for sample in uneven.samples:
        if sample.error is None:
            epochs[sample.id] = epochs.get(sample.id, 0) + 1
    assert len(set(epochs.values())) > 1 and any(s.error for s in uneven.samples)
    assert {s.scores["graded"].value for s in headers["partial"].samples if s.scores} >= {"C", "P", "I"}
    assert headers["partial"].eval.config.epochs_reducer == ["median"]
    assert max(s.scores["rating"].value for s in headers["rated"].samples if s.scores) > 1
    assert all(isinstance(s.scores["named"].value, dict) for s in headers["dict_valued"].samples if s.scores)
    assert headers["dict_valued"].eval.config.epochs_reducer == ["at_least_2"]


def test_the_rating_keeps_its_raw_values_and_scale(logs: dict[str, list[Path]]) -> None:
    log = next(p for p in logs["rated"] if p.suffix == ".eval")
    _imported(log)
    document = json.loads(log.with_suffix(".eval.resultset.json").read_text(encoding="utf-8"))
    provenance = document["graders"]["rating"]
    assert provenance["reducer"] == {"method": "mean"}
    values = [s.scores["rating"].value for s in inspect_log.read_eval_log(str(log)).samples if s.scores]
    assert provenance["scale"] == {"min": min(values), "max": max(values)}
    raws = [g["raw_score"] for row in document["results"] for g in row["grader_results"]]
    assert sorted(raws) == sorted(values)


def test_nan_scores_are_null_and_reported(tmp_path: Path, logs: dict[str, list[Path]]) -> None:
    """A NaN score (Inspect's unscored value) becomes a null score, with a loss-report entry at its place."""
    source = next(p for p in logs["rated"] if p.suffix == ".json")
    log = json.loads(source.read_text(encoding="utf-8"))
    log["samples"][0]["scores"]["rating"]["value"] = float("nan")
    nan_log = tmp_path / "nan.json"
    nan_log.write_text(json.dumps(log), encoding="utf-8")  # Python's json writes NaN, as Inspect's own writer does
    summary, loss = _imported(nan_log)
    assert summary["by_grader"]["rating"]["unscored"] == 1
    assert any("/samples/0/scores/rating/value" in line and "NaN" in line for line in loss), loss
