"""Issue 38: ``-j N`` with a worker process lost (SIGKILL, the out-of-memory killer) or a file gone between planning
and reading: that input is reported as unreadable (exit 2) and every other file's report is still printed — no
``BrokenProcessPool`` or ``FileNotFoundError`` traceback."""

from __future__ import annotations

import json
import os
import signal
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
