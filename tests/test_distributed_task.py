"""Issue 38: a Dask task (``evalschema.cli.distributed.run_task``, run here in-process) checks and summarizes through
the library — no ``argparse.Namespace``, no command-line code — and reads each document once: a valid result set
read in pieces (larger than the input limit for a whole reading) has its rows in the summary, as ``summarize``
counts them, instead of 0."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import cli, pipeline
from evalschema.cli import common, distributed, parallel
from evalschema.summary import summarize

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))


def _forbidden(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the Dask task called command-line code")


@pytest.fixture
def no_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(argparse, "Namespace", _forbidden)
    for name in ("source_reports", "skipped", "checking", "sources_of"):
        monkeypatch.setattr(common, name, _forbidden)
    monkeypatch.setattr(cli, "cmd_validate", _forbidden)
    for name in ("document_reports", "plan", "validate_reports", "summarize_sources"):
        monkeypatch.setattr(parallel, name, _forbidden, raising=False)


def test_a_result_set_over_the_input_limit_is_summarized_as_it_is_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_cli: None
) -> None:
    rows = [{**row, "test_case_id": f"{row['test_case_id']}-{copy}"} for copy in range(40) for row in EXAMPLE["results"]]
    document = {**EXAMPLE, "results": rows}
    document.pop("summary", None)
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document, indent=1), "utf-8")
    monkeypatch.setenv("EVALSCHEMA_MAX_INPUT_BYTES", str(path.stat().st_size // 4))  # too large to read whole
    monkeypatch.setattr(pipeline, "STREAM_THRESHOLD", path.stat().st_size // 8)  # so it is read in pieces
    entries, lines, finished, state = distributed.run_task(distributed.Task(str(path)), {"strict": False, "force": False})
    assert [(e.path, e.valid, e.errors) for e, _ in entries] == [(str(path), True, ())]
    assert (lines, finished) == (0, True)
    assert state.build().to_dict() == summarize(document).to_dict()
    assert state.build().to_dict()["total"] == 360


def test_an_invalid_result_set_is_reported_and_not_counted_unless_forced(tmp_path: Path, no_cli: None) -> None:
    bad = json.loads(json.dumps(EXAMPLE))
    bad["results"][0]["grader_results"][0]["score"] = 95
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), "utf-8")
    entries, _, _, state = distributed.run_task(distributed.Task(str(path)), {"strict": False, "force": False})
    ((entry, own),) = entries
    assert own and not entry.valid and [f.code for f in entry.errors] == ["OUT_OF_RANGE"]
    assert state.build().to_dict() == summarize({"results": []}).to_dict()
    _, _, _, forced = distributed.run_task(distributed.Task(str(path)), {"strict": False, "force": True})
    assert forced.build().to_dict() == summarize(bad).to_dict()


def test_a_range_of_json_lines_and_object_storage_go_the_same_way(tmp_path: Path, no_cli: None) -> None:
    import fsspec

    lines = (json.dumps(EXAMPLE) + "\n") * 3
    path = tmp_path / "runs.jsonl"
    path.write_text(lines, "utf-8")
    first = len(json.dumps(EXAMPLE)) + 1
    entries, count, finished, state = distributed.run_task(distributed.Task(str(path), first, len(lines)), {"strict": False})
    assert [(e.line, e.valid) for e, _ in entries] == [(1, True), (2, True)] and (count, finished) == (2, True)
    assert state.build().to_dict() == summarize({"results": EXAMPLE["results"] * 2}).to_dict()
    with fsspec.open("memory://bucket/runs.jsonl", "wb") as remote:
        remote.write(lines.encode())
    stored = distributed.run_task(distributed.Task("memory://bucket/runs.jsonl", first, len(lines)), {"strict": False})
    assert [e for e, _ in stored[0]] == [e.with_path("memory://bucket/runs.jsonl") for e, _ in entries]
    assert stored[3].build().to_dict() == state.build().to_dict()
