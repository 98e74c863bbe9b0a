"""lm-eval import keeps lm-eval's numbers per filter: one grader per (task, metric, filter), one row and one test case
per document (not one per filter line), whatever order the filters' lines come in.

The expected numbers are read from the results file's own `metric,filter` aggregates (for these fixtures, made by
tests/interop/make_fixtures.py as lm-eval's `mean` of the lines; lm-eval itself is not run: see
tests/interop/README.md), never typed here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from evalschema.cli import main
from evalschema.interop import import_results
from evalschema.interop.lm_eval import grader_id

FIXTURES = Path(__file__).parent / "interop" / "fixtures" / "lm_eval"


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
