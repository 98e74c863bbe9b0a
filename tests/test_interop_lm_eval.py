"""lm-eval import keeps lm-eval's numbers per filter: one grader per (task, metric, filter), one row and one test case
per document (not one per filter line), whatever order the filters' lines come in.

The expected numbers are read from the results file's own `metric,filter` aggregates, never typed here: for the
fixtures, made by tests/interop/make_fixtures.py as lm-eval's `mean` of the lines; for `test_real_lm_eval_shapes`,
written by lm-eval 0.4.13 itself (tests/interop/lm_eval_shapes.py, run in a virtual environment of its own).
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
from evalschema.interop.lm_eval import grader_id

FIXTURES = Path(__file__).parent / "interop" / "fixtures" / "lm_eval"
SHAPES = Path(__file__).parent / "interop" / "lm_eval_shapes.py"
PINS = Path(__file__).resolve().parents[1] / "requirements" / "lm_eval.txt"
LM_EVAL_VERSION = "0.4.13"


def _summarize(resultset: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["summarize", "--format", "json", str(resultset)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    summary: dict[str, Any] = entry["summary"]
    return summary


@pytest.mark.parametrize("name", ["filters", "filters-doc-major"])
def test_each_filter_keeps_its_numbers(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inputs = sorted((FIXTURES / name).iterdir())
    out = tmp_path / "lm.resultset.json"
    import_results("lm_eval", inputs, out)
    summary = _summarize(out, capsys)
    head = orjson.loads(next(p for p in inputs if p.suffix == ".json").read_bytes())
    samples = [orjson.loads(line) for p in inputs if p.suffix == ".jsonl" for line in p.read_bytes().splitlines() if line.strip()]
    task = "math_perturbed_full"
    reported = {k: v for k, v in head["results"][task].items() if "," in k and not k.split(",")[0].endswith("_stderr")}
    assert len({k.split(",")[1] for k in reported}) == 3  # the fixture has three filters
    for key, value in reported.items():
        metric, filter_name = key.split(",", 1)
        assert summary["by_grader"][grader_id(task, metric, filter_name)]["avg_score"] == pytest.approx(value, abs=1e-9)
    documents = {line["doc_id"] for line in samples}
    assert summary["total"] == len(documents)  # one row per document, not one per filter line
    suite = orjson.loads(out.with_name("lm.suite.json").read_bytes())
    assert sorted(c["id"] for c in suite["test_cases"]) == sorted(f"{task}/{d}" for d in documents)
    graders = sorted(g["id"] for g in suite["graders"] if g["id"].startswith(task + "/"))
    assert graders == sorted(grader_id(task, *key.split(",", 1)) for key in reported)


def _lm_eval_python() -> Path:
    """The Python of a virtual environment holding lm-eval 0.4.13 and the curated versions ``requirements/lm_eval.txt``
    pins (installed with ``--no-deps``: lm-eval's declared dependencies include packages the shapes never import),
    made once in the test cache (lm-eval is not a dependency of this project; no torch: the shapes use a model class
    of their own)."""
    from test_interop import tool_python

    return tool_python(f"lm_eval-{LM_EVAL_VERSION}", PINS, no_deps=True)


def check_against_lm_eval(run: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Import one lm-eval run (its ``results_*.json`` and ``samples_*.jsonl``) and compare ``summarize`` with every
    ``metric,filter`` figure of the results file: a metric lm-eval averages over documents (its aggregation
    ``mean``, read from ``aggregations.json`` the run wrote) is its grader's mean over the documents; a corpus-level
    one (bleu, perplexity, brier_score: no per-document value) is a grader left unscored on every row, never a
    mean of something else. Returns the results file."""
    (results,) = run.glob("*/results_*.json")
    samples = sorted(results.parent.glob("samples_*.jsonl"))
    head: dict[str, Any] = orjson.loads(results.read_bytes())
    aggregations = orjson.loads((run / "aggregations.json").read_bytes())
    import_results("lm_eval", [results, *samples], out)
    summary = _summarize(out, capsys)
    resultset = orjson.loads(out.read_bytes())
    documents = {task: counts["effective"] for task, counts in head["n-samples"].items()}  # tasks, not groups
    assert summary["total"] == sum(documents.values())  # one row per document, whatever its filters and repeats
    expected = set()
    compared = {"stderr": 0, "groups": 0}
    subtasks = {name: tasks for name, tasks in head.get("group_subtasks", {}).items() if tasks}  # a task has none
    for task, reported in head["results"].items():
        if task in subtasks:
            continue  # a group: below
        for key, value in reported.items():
            metric, _, filter_name = key.partition(",")
            if not filter_name or metric.endswith("_stderr"):
                continue
            expected.add(grader_id(task, metric, filter_name))
            grader = summary["by_grader"][grader_id(task, metric, filter_name)]
            if aggregations[task][metric] == "mean":
                # a grader on a scale of its own (values outside [0, 1]) reports its mean in that scale
                scaled = grader_id(task, metric, filter_name) in resultset.get("graders", {})
                assert grader["avg_raw_score" if scaled else "avg_score"] == pytest.approx(value, abs=1e-9), (task, key)
                assert grader["passed"] + grader["failed"] == documents[task]
                # lm-eval's standard error of a mean (its sample standard deviation over sqrt(n)): the per-test-case
                # view's, one attempt per document ("N/A" where lm-eval has fewer than two values)
                stderr = reported.get(f"{metric}_stderr,{filter_name}")
                view = grader["per_test_case"]
                assert view["test_cases"] == documents[task]
                if isinstance(stderr, (int, float)):
                    assert view["raw_stderr" if scaled else "stderr"] == pytest.approx(stderr, abs=1e-9), (task, key)
                    compared["stderr"] += 1
            else:
                assert (grader["avg_score"], grader["unscored"]) == (None, documents[task]), (task, key)
    # a group's figure: the mean over its tasks' documents when lm-eval weighs its tasks by size (then a grader of
    # its own, each document's result counted again), no grader otherwise (it has no per-document value)
    weights = orjson.loads((run / "groups.json").read_bytes())

    def leaves(group: str) -> list[str]:
        return [leaf for name in subtasks[group] for leaf in (leaves(name) if name in subtasks else [name])]

    for group in subtasks:
        for key, value in head["results"][group].items():
            metric, _, filter_name = key.partition(",")
            if not filter_name or metric.endswith("_stderr"):
                continue
            grader_name = grader_id(group, metric, filter_name)
            if not weights[group][metric]:
                assert grader_name not in summary["by_grader"], grader_name
                continue
            expected.add(grader_name)
            grader = summary["by_grader"][grader_name]
            assert grader["avg_score"] == pytest.approx(value, abs=1e-9), (group, key)
            assert grader["per_test_case"]["test_cases"] == sum(documents[task] for task in leaves(group))
            compared["groups"] += 1
    assert sorted(summary["by_grader"]) == sorted(expected)
    head["compared"] = compared
    return head


@pytest.mark.slow
def test_real_lm_eval_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """lm-eval 0.4.13 itself, offline (``tests/interop/lm_eval_shapes.py``: a local model class, local tasks and data),
    six shapes — filters over repeats, several metrics with corpus-level ones and one outside [0, 1], multiple
    choice (acc, acc_norm), two tasks in one run, a group weighted by size and one that is not — each imported and compared with the figures lm-eval wrote into its own results file."""
    python = _lm_eval_python()
    env = {**os.environ, "HOME": str(tmp_path), "HF_HOME": str(tmp_path / "hf"), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
    from test_interop import run_shapes

    runs = run_shapes(python, SHAPES, tmp_path, env)
    shapes = sorted(p.name for p in runs.iterdir())
    assert shapes == ["filters", "flat_group", "group", "metrics", "multiple_choice", "tasks"]
    head = {shape: check_against_lm_eval(runs / shape, tmp_path / f"{shape}.resultset.json", capsys) for shape in shapes}
    # each shape holds what it is for (a change in lm-eval that loses it fails here, not silently)
    filtered = {k: v for k, v in head["filters"]["results"]["rt_gen"].items() if k.startswith("exact_match,")}
    assert len(filtered) == 3 and len(set(filtered.values())) > 1  # three filters, not all alike
    assert head["filters"]["configs"]["rt_gen"]["repeats"] > 1
    metrics = orjson.loads((runs / "metrics" / "aggregations.json").read_bytes())["rt_metrics"]
    assert "mean" in metrics.values() and set(metrics.values()) - {"mean"}  # per-document and corpus-level metrics
    assert head["metrics"]["results"]["rt_words"]["words,none"] > 1  # a per-document mean outside [0, 1]
    choice = head["multiple_choice"]["results"]["rt_mc"]
    assert choice["acc,none"] != choice["acc_norm,none"]
    assert sorted(head["tasks"]["results"]) == ["rt_gen", "rt_ll"]
    assert head["group"]["compared"]["groups"] == 1 and head["flat_group"]["compared"]["groups"] == 0
    flat = head["flat_group"]["results"]
    assert flat["rt_flat"]["acc,none"] != pytest.approx(head["group"]["results"]["rt_group"]["acc,none"])  # unweighted
    # lm-eval's standard errors were compared in every shape (a change that made them all "N/A" fails here)
    assert all(head[shape]["compared"]["stderr"] > 0 for shape in shapes), {shape: head[shape]["compared"] for shape in shapes}
