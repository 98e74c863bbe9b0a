"""Issue 38 item 9: a command expands its paths once, and a file's findings are sorted once (when they are placed)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import cli, pipeline
from evalschema.cli import common
from evalschema.core import findings as findings_module
from evalschema.io import loader

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))


def _invalid(tmp_path: Path) -> Path:
    document = copy.deepcopy(EXAMPLE)
    for row in document["results"]:
        for result in row["grader_results"]:
            result["score"] = 95
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document, indent=1), "utf-8")
    return path


@pytest.mark.parametrize("stream_rows", [False, True])
def test_a_files_findings_are_sorted_once(stream_rows: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _invalid(tmp_path)
    expected = pipeline.validate_file(path, stream_rows=stream_rows)
    calls: list[int] = []
    original = findings_module.reading_order

    def counted(finding: Any) -> Any:
        calls.append(1)
        return original(finding)

    monkeypatch.setattr(findings_module, "reading_order", counted)
    monkeypatch.setattr(pipeline, "reading_order", counted, raising=False)
    report = pipeline.validate_file(path, stream_rows=stream_rows)
    assert report == expected and len(report.errors) > 10
    assert len(calls) == len(report.findings), "each finding's place in the order is computed once"


@pytest.mark.parametrize("argv", [["validate"], ["validate", "-j", "2"], ["summarize", "--html", "{out}"], ["summarize", "-j", "2"]])
def test_a_command_expands_its_paths_once(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    for index in range(3):
        (folder / f"r{index}.json").write_text(json.dumps({**EXAMPLE, "run_id": f"r{index}"}), "utf-8")
    calls: list[list[str]] = []
    original = loader.expand

    def counted(arguments: list[str]) -> Any:
        calls.append(list(arguments))
        return original(arguments)

    monkeypatch.setattr(loader, "expand", counted)
    monkeypatch.setattr(common, "expand", counted)
    status = cli.main([a.format(out=tmp_path / "report.html") for a in argv] + [str(folder)])
    capsys.readouterr()
    assert status == 0 and calls == [[str(folder)]]
