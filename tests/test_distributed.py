"""evalschema.cli.distributed on a real local Dask cluster (2 worker processes): the same findings as ``evalschema
validate`` and the summary of all rows, from a folder, a glob, ``file://`` URLs and a JSON Lines file cut into byte
ranges — also when a worker is killed mid-run and the engine re-runs its tasks."""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster

from evalschema import cli, validate
from evalschema.cli import distributed
from evalschema.summary import summarize

ROOT = Path(__file__).resolve().parents[1]


def _resultsets() -> list[dict[str, Any]]:
    out = [json.loads(p.read_text("utf-8")) for p in sorted((ROOT / "spec/examples").glob("resultset*.json"))]
    for path in sorted((ROOT / "spec/conformance").glob("*.json")):
        document = json.loads(path.read_text("utf-8"))["document"]
        if isinstance(document, dict) and isinstance(document.get("results"), list):
            out.append(document)
    return out


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)  # type: ignore[no-untyped-call]
    with cluster, Client(cluster) as connected:  # type: ignore[no-untyped-call]
        yield connected


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("dist")
    documents = _resultsets()
    for index, document in enumerate(documents):
        (folder / f"r{index:03}.json").write_text(json.dumps(document, indent=1), "utf-8")
    lines = b"".join(json.dumps(d).encode() + b"\n" + (b"\n" if i % 5 == 0 else b"") for i, d in enumerate(documents * 3))
    (folder / "many.jsonl").write_bytes(lines + b'{"version": \n')
    return folder, documents


def _expected(folder: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    cli.main(["validate", "--format", "json", str(folder)])
    entries: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["files"]
    return entries


def _rows(documents: list[dict[str, Any]], *, force: bool = False) -> dict[str, Any]:
    """The summary of every row of the valid result sets (``force``: of all), each file read once, the JSON Lines
    file three times over, as ``evalschema summarize`` (``--force``) counts them."""
    counted = [d for d in documents if force or validate(d, "resultset").valid]
    rows = [row for d in counted + counted * 3 for row in d["results"] if isinstance(row, dict)]
    return summarize({"results": rows}).to_dict()


@pytest.mark.parametrize("form", ["folder", "glob", "url"])
def test_same_findings_and_summary_as_one_process(
    form: str, client: Client, inputs: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, documents = inputs
    source = {"folder": str(folder), "glob": str(folder / "*.json*"), "url": f"file://{folder}"}[form]
    tasks = distributed.plan([source], split_min=1, range_max=4096)
    assert sum(t.end >= 0 for t in tasks) > 3  # the JSON Lines file is cut into ranges
    outcome = distributed.validate_and_summarize(client, [source], split_min=1, range_max=4096)
    expected = _expected(folder, capsys)
    if form == "url":
        expected = [{**e, "path": e["path"]} for e in expected]
    assert outcome.entries == expected
    assert sum(len(e["errors"]) + len(e["warnings"]) for e in expected) > 50
    assert outcome.summary == _rows(documents)
    assert _rows(documents) != _rows(documents, force=True)  # invalid result sets with rows are among the inputs
    forced = distributed.validate_and_summarize(client, [source], force=True, split_min=1, range_max=4096)
    assert forced.entries == expected
    assert forced.summary == _rows(documents, force=True)


def test_a_worker_killed_mid_run_gives_the_same_result(
    client: Client, inputs: tuple[Path, list[dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, documents = inputs
    pids: dict[str, int] = client.run(os.getpid)
    tasks, futures = distributed.submit(client, [str(folder)], split_min=1, range_max=512)
    while not any(f.done() for f in futures):
        time.sleep(0.01)
    pending = sum(not f.done() for f in futures)
    os.kill(next(iter(pids.values())), signal.SIGKILL)
    outcome = distributed.collect(client, tasks, futures)
    assert pending > 10  # the worker died with tasks still to run
    assert not set(client.run(os.getpid).values()) & {next(iter(pids.values()))}  # it was replaced
    assert outcome.entries == _expected(folder, capsys)
    assert outcome.summary == _rows(documents)


def _declared_reducers() -> dict[str, Any]:
    """A valid result set whose graders declare reducers other than the mean (after the rows, as a streamed reader
    meets them last), with uneven attempts: its per-test-case view differs from the one the mean would give."""
    from test_per_test_case import _document

    document = next(d for d in map(_document, range(60)) if len({g["reducer"]["method"] for g in d["graders"].values()} - {"mean"}) >= 2)
    assert validate(document, "resultset").valid
    mean = summarize({k: v for k, v in document.items() if k != "graders"}).to_dict()["by_grader"]
    declared = summarize(document).to_dict()["by_grader"]
    assert {g: t["per_test_case"] for g, t in declared.items()} != {g: t["per_test_case"] for g, t in mean.items()}
    return document


def test_every_summary_path_reduces_by_the_declared_reducers(
    client: Client, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SPEC 4.7: the per-test-case view of one result set is the same whichever way it is summarized — one process,
    ``-j 2`` (a whole file and a JSON Lines file cut into ranges) and the Dask library API (the same, and a JSON
    Lines file of the same result set three times, whose merged summary reduces by the reducers declared)."""
    from evalschema.cli import parallel

    document = _declared_reducers()
    (tmp_path / "one.json").write_text(json.dumps(document), "utf-8")
    (tmp_path / "three.jsonl").write_text("".join(json.dumps(document) + "\n" for _ in range(3)), "utf-8")
    expected = summarize(document).to_dict()

    def summaries(*argv: str) -> list[dict[str, Any]]:
        status = cli.main(["summarize", "--format", "json", *argv, str(tmp_path / "one.json"), str(tmp_path / "three.jsonl")])
        assert status == 0
        return [item["summary"] for item in json.loads(capsys.readouterr().out)]

    assert summaries() == [expected] * 4
    monkeypatch.setattr(parallel, "SPLIT_MIN", 0)  # the JSON Lines file cut into ranges, one per line
    assert summaries("-j", "2") == [expected] * 4
    assert summaries("-j", "2", "--stream", "always") == [expected] * 4

    assert distributed.validate_and_summarize(client, [str(tmp_path / "one.json")]).summary == expected
    tripled = summarize({**document, "results": document["results"] * 3}).to_dict()
    tasks = distributed.plan([str(tmp_path / "three.jsonl")], split_min=1, range_max=256)
    assert len(tasks) == 3  # one range per line
    assert distributed.validate_and_summarize(client, [str(tmp_path / "three.jsonl")], split_min=1, range_max=256).summary == tripled
