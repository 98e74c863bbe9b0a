"""Issue 38: one driver. A source is a plain iterator of pieces (a document in hand is one ``Whole`` piece; a stream
gives its members, then batches of rows) and ``pipeline.feed`` is the only loop over them: validate, summarize,
compare and the columnar export all go through it, and no other module reads a stream itself."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import pipeline
from evalschema.core.findings import Finding
from evalschema.rules.registry import Batch

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))


def _readers_of_streams() -> list[str]:
    """Every call of the stream reader (``stream.read``) in the package, by module and function."""
    found = []
    for path in sorted((ROOT / "evalschema").rglob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for call in ast.walk(function):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "read"
                    and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == "stream"
                ):
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{function.name}")
    return found


def test_only_the_pipeline_reads_a_stream() -> None:
    assert _readers_of_streams() == ["evalschema/pipeline.py:streamed"]


class Seen:
    """A stage that records what it is shown."""

    def __init__(self) -> None:
        self.members: list[dict[str, Any]] = []
        self.batches: list[tuple[int, int]] = []

    def envelope(self, members: dict[str, Any]) -> list[Finding]:
        self.members.append(members)
        return []

    def rows(self, batch: Batch) -> list[Finding]:
        self.batches.append((batch.start, len(batch.items)))
        return [Finding(f"/results/{batch.start}", "X", "warning", "seen")]

    def finish(self) -> list[Finding]:
        return []


def test_a_document_in_hand_and_a_stream_go_through_the_same_feed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole_stage, found = Seen(), list[Finding]()
    fed = pipeline.feed(pipeline.whole(EXAMPLE, rows=True), [whole_stage], found)
    assert isinstance(fed, pipeline.Fed) and fed.enveloped and fed.members is EXAMPLE
    assert whole_stage.members == [EXAMPLE] and whole_stage.batches == [(0, len(EXAMPLE["results"]))]
    assert [f.pointer for f in found] == ["/results/0"]

    from evalschema.io import stream

    monkeypatch.setattr(stream, "BATCH_ITEMS", 2)
    path = tmp_path / "r.json"
    path.write_text(json.dumps(EXAMPLE, indent=1), "utf-8")
    streamed_stage, in_batches, started = Seen(), list[Finding](), list[dict[str, Any]]()
    with path.open("rb") as handle:
        fed = pipeline.feed(
            pipeline.streamed(handle), [streamed_stage], in_batches, on_array=lambda so_far: started.append(dict(so_far.members))
        )
    assert isinstance(fed, pipeline.Fed) and not fed.enveloped and streamed_stage.members == []  # the caller's step, at the end
    assert fed.members == {**EXAMPLE, "results": []} and fed.has_rows()
    assert started and "results" in started[0] and started[0]["run_id"] == EXAMPLE["run_id"]
    assert sum(n for _, n in streamed_stage.batches) == len(EXAMPLE["results"]) and len(streamed_stage.batches) > 1
    assert [start for start, _ in streamed_stage.batches] == sorted({start for start, _ in streamed_stage.batches})


def test_a_broken_stream_is_the_readers_finding(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"results": [{"a": 1},]}', "utf-8")
    with path.open("rb") as handle:
        fed = pipeline.feed(pipeline.streamed(handle), [Seen()], [])
    assert isinstance(fed, Finding) and fed.code == "INVALID_JSON"


def test_the_columnar_export_starts_over_whole_when_a_stream_gives_up_after_its_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalschema import columnar  # pyarrow: the dev extra installs it, so a missing one fails here
    from evalschema.io import stream

    monkeypatch.setattr(stream, "MAX_MEMBERS", 8)
    document = {"results": EXAMPLE["results"], **{k: v for k, v in EXAMPLE.items() if k != "results"}}
    assert len(document) > 8
    path = tmp_path / "late.json"
    path.write_text(json.dumps(document), "utf-8")
    assert columnar.export_files([path], tmp_path / "cols") == 1
    (back,) = list(columnar.read(tmp_path / "cols"))
    assert back["results"] == EXAMPLE["results"], "each row once"
