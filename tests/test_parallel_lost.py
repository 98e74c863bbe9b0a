"""Issue 38: ``-j N`` with a worker process lost (SIGKILL, the out-of-memory killer) or a file gone between planning
and reading: that input is reported as unreadable (exit 2) and every other file's report is still printed — no
``BrokenProcessPool`` or ``FileNotFoundError`` traceback."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalschema import cli
from evalschema.cli import parallel

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))
VALIDATE, SUMMARIZE = parallel._validate_task, parallel._summarize_task


def _killed_on_poison(task: parallel.Task) -> Any:
    """A worker that dies (SIGKILL) when it is given the poisoned file, however many times it is tried."""
    if "poison" in str(task.source):
        os.kill(os.getpid(), signal.SIGKILL)
    return (VALIDATE if parallel._context["args"].command == "validate" else SUMMARIZE)(task)


def _gone_when_read(task: parallel.Task) -> Any:
    """The file is deleted after the planning, before the worker reads its range."""
    if "gone" in str(task.source) and task.end >= 0:
        Path(task.source).unlink(missing_ok=True)
    return (VALIDATE if parallel._context["args"].command == "validate" else SUMMARIZE)(task)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for index in range(4):
        (tmp_path / f"ok{index}.json").write_text(json.dumps({**EXAMPLE, "run_id": f"run-{index}"}), "utf-8")
    (tmp_path / "poison.json").write_text(json.dumps(EXAMPLE), "utf-8")
    (tmp_path / "gone.jsonl").write_text((json.dumps(EXAMPLE) + "\n") * 8, "utf-8")
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, json.loads(out) if "--format" in argv else out, err


def _by_path(report: Any, command: str) -> dict[str, Any]:
    entries = report["files"] if command == "validate" else report
    return {entry["path"]: entry for entry in entries}


@pytest.mark.parametrize("command", ["validate", "summarize"])
def test_a_lost_worker_leaves_its_file_unreadable_and_the_others_reported(
    command: str, folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "gone.jsonl").unlink()
    one = _run(capsys, command, "--format", "json", str(folder))
    assert one[0] == 0
    monkeypatch.setattr(parallel, f"_{command}_task", _killed_on_poison)
    status, report, err = _run(capsys, command, "--format", "json", "-j", "2", str(folder))
    assert status == 2 and "Traceback" not in err and "BrokenProcessPool" not in err
    lost = str(folder / "poison.json")
    expected = {path: entry for path, entry in _by_path(one[1], command).items() if path != lost}
    got = _by_path(report, command)
    assert {path: entry for path, entry in got.items() if path != lost} == expected, "every other file's report"
    if command == "validate":
        (finding,) = got[lost]["errors"]
        assert finding["code"] == "FILE_UNREADABLE" and "process checking it was lost" in finding["message"]
    else:
        assert lost not in got and f"{lost}: FILE_UNREADABLE: cannot read: the process checking it was lost" in err


@pytest.mark.parametrize("command", ["validate", "summarize"])
def test_a_file_gone_before_its_range_is_read_is_unreadable(
    command: str, folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (folder / "poison.json").unlink()
    monkeypatch.setattr(parallel, "SPLIT_MIN", 0)  # the JSON Lines file is cut into ranges
    monkeypatch.setattr(parallel, f"_{command}_task", _gone_when_read)
    status, report, err = _run(capsys, command, "--format", "json", "-j", "2", str(folder))
    assert status == 2 and "Traceback" not in err and "FileNotFoundError" not in err
    got = _by_path(report, command)
    assert sorted(p for p in got if "ok" in p) == [str(folder / f"ok{i}.json") for i in range(4)]
    gone = str(folder / "gone.jsonl")
    if command == "validate":
        problems = [e for p, e in got.items() if p == gone and not e["valid"]]
        assert problems and problems[0]["errors"][0]["code"] == "FILE_UNREADABLE"
    else:
        assert f"{gone}: FILE_UNREADABLE: no such file" in err


# --- an input over the input size limit, among others, under -j 2 (issue 39) ---------------------------------------

_CAP = 4_000_000_000  # the address-space cap of the issue (ulimit -v 4000000): a read that balloons fails, in the child


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (_CAP, _CAP))


def _cli(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalschema", *argv],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_capped,
        env={**os.environ, **env},
        check=False,
    )


def _over_limit_folder(folder: Path, limit: int) -> dict[str, str]:
    """Valid and invalid files, and three that are over ``limit``: a test case with one member (its input) over it,
    a result set with one row over it among small rows, and a JSON Lines file with one line over it."""
    testcase = json.loads((ROOT / "spec/examples/testcase-rag-answer.json").read_text("utf-8"))
    for index in range(3):
        (folder / f"ok{index}.json").write_text(json.dumps({**EXAMPLE, "run_id": f"run-{index}"}), "utf-8")
    (folder / "bad.json").write_text(json.dumps({**EXAMPLE, "run_id": 7}), "utf-8")
    (folder / "member.json").write_text(json.dumps({**testcase, "input": "lorem ipsum " * (limit // 6)}), "utf-8")
    rows = [dict(EXAMPLE["results"][0], attempt=n + 1) for n in range(200)]
    rows[150]["actual_output"] = "x" * (2 * limit)
    (folder / "row.json").write_text(json.dumps({**{k: v for k, v in EXAMPLE.items() if k != "summary"}, "results": rows}), "utf-8")
    # past SPLIT_MIN: -j 2 cuts it into ranges, the long line in a middle one, and lines after it on later ones
    lines = [json.dumps({**EXAMPLE, "run_id": f"line-{n}"}) for n in range(parallel.SPLIT_MIN // 2000)]
    lines[len(lines) // 2] = json.dumps({**EXAMPLE, "run_id": "x" * (2 * limit)})
    lines[-1] = json.dumps({**EXAMPLE, "run_id": 7})  # a finding that must not be reported: reading stopped before it
    (folder / "line.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    return {"over": "member.json row.json line.jsonl", "bad": "bad.json"}


@pytest.mark.parametrize("stream", ["always", "auto", "never"])
def test_j2_reports_an_input_over_the_limit_and_every_other_file(tmp_path: Path, stream: str) -> None:
    """``validate -j 2`` over a folder where files are over the input size limit (a member, a row, a line): each is
    refused (FILE_UNREADABLE, exit 2) as ``-j 1`` refuses it, and every other file's report is printed — no
    ``BrokenProcessPool`` traceback, no death by signal under the address-space cap."""
    limit = 200_000
    _over_limit_folder(tmp_path, limit)
    env = {"EVALSCHEMA_MAX_INPUT_BYTES": str(limit)}
    runs = [_cli("validate", "--format", "json", "--stream", stream, "-j", jobs, str(tmp_path), env=env) for jobs in ("1", "2")]
    for done in runs:
        assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
        assert "Traceback" not in done.stderr and "BrokenProcessPool" not in done.stderr, done.stderr[-2000:]
    one, two = (json.loads(done.stdout) for done in runs)
    assert two == one, "-j 2 prints what -j 1 prints"
    entries = _by_path(two, "validate")
    names = {Path(path).name for path in entries}
    assert {"ok0.json", "ok1.json", "ok2.json", "bad.json", "member.json", "row.json", "line.jsonl"} <= names
    for index in range(3):
        assert entries[str(tmp_path / f"ok{index}.json")]["valid"] is True
    assert [e["pointer"] for e in entries[str(tmp_path / "bad.json")]["errors"]] == ["/run_id"]
    for name in ("member.json", "row.json"):
        (finding,) = entries[str(tmp_path / name)]["errors"]
        assert finding["code"] == "FILE_UNREADABLE", finding
        assert "input size limit" in finding["message"], finding
    lines = [e for e in two["files"] if e["path"] == str(tmp_path / "line.jsonl")]
    assert len(lines) in (1, 1 + (parallel.SPLIT_MIN // 2000) // 2)  # refused whole, or read to the long line
    (finding,) = lines[-1]["errors"]
    assert finding["code"] == "FILE_UNREADABLE" and "input size limit" in finding["message"], finding
    assert two["summary"]["unreadable"] == 3
