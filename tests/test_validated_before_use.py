"""Issue 38: a command that consumes a result set validates it before use — ``compare``, ``export``, ``summarize``
and ``-j`` refuse one that is not valid with its findings (exit 1); ``--force`` goes on all the same, under a
banner, and the status stays 1."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalschema.compare import Invalid, Options, compare_checked, compare_files
from evalschema.compare.files import read_checked
from evalschema.interop import InvalidInput, export_results

ROOT = Path(__file__).resolve().parent.parent
VALID = json.loads((ROOT / "spec" / "examples" / "resultset-multi-attempt.json").read_text(encoding="utf-8"))


def _scores_on_a_hundred(document: dict[str, Any]) -> dict[str, Any]:
    """The issue's case: every grader score 95 on a 0–1 scale (``summarize`` refuses it: OUT_OF_RANGE)."""
    out = copy.deepcopy(document)
    for row in out["results"]:
        for result in row.get("grader_results", []):
            if isinstance(result.get("score"), (int, float)):
                result["score"] = 95
    return out


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    base, new = tmp_path / "base.json", tmp_path / "new.json"
    base.write_text(json.dumps(VALID, indent=2), encoding="utf-8")
    new.write_text(json.dumps(_scores_on_a_hundred(VALID), indent=2), encoding="utf-8")
    return base, new


def evalschema(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evalschema", *args], capture_output=True, text=True, check=False, cwd=ROOT)


def _out_of_range(text: str) -> int:
    return sum("error  OUT_OF_RANGE  /results/" in line for line in text.splitlines())


def test_the_invalid_run_is_invalid_to_validate_too(runs: tuple[Path, Path]) -> None:
    base, new = runs
    assert evalschema("validate", str(base)).returncode == 0
    proc = evalschema("validate", str(new))
    assert proc.returncode == 1 and _out_of_range(proc.stdout) == 17, proc.stdout


@pytest.mark.parametrize("gate", [[], ["--strict", "--fail-on-regression"]])
def test_compare_refuses_an_invalid_new_run_with_its_findings(runs: tuple[Path, Path], gate: list[str]) -> None:
    base, new = runs
    proc = evalschema("compare", str(base), str(new), "--resamples", "0", *gate)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert _out_of_range(proc.stdout) == 17 and "new.json" in proc.stdout and "base.json" not in proc.stdout
    assert "mean score" not in proc.stdout and "pass rate" not in proc.stdout, "no statistics on an invalid result set"
    assert "nothing compared (use --force to compare anyway)" in proc.stderr and "Traceback" not in proc.stderr


def test_compare_refuses_an_invalid_base_run_too(runs: tuple[Path, Path]) -> None:
    base, new = runs
    proc = evalschema("compare", str(new), str(base), "--resamples", "0", "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert [entry["path"] for entry in report["files"]] == [str(new.relative_to(ROOT)) if new.is_relative_to(ROOT) else str(new)]
    assert report["summary"] == {"files": 1, "valid": 0, "invalid": 1, "unreadable": 0}
    assert {f["code"] for f in report["files"][0]["errors"]} == {"OUT_OF_RANGE"} and len(report["files"][0]["errors"]) == 17


def test_compare_force_compares_under_a_banner_and_exits_1(runs: tuple[Path, Path]) -> None:
    base, new = runs
    proc = evalschema("compare", str(base), str(new), "--resamples", "0", "--force")
    assert proc.returncode == 1
    assert _out_of_range(proc.stdout) == 17 and "mean score 1.000 → 95.000" in proc.stdout
    assert "compared anyway (--force)" in proc.stderr
    as_json = evalschema("compare", str(base), str(new), "--resamples", "0", "--force", "--format", "json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["pairs"]["new_rows"] == 9, "stdout holds the comparison alone"
    assert _out_of_range(as_json.stderr) == 17


def test_a_valid_pair_is_compared_as_before(runs: tuple[Path, Path]) -> None:
    base, _ = runs
    document, refused = compare_checked(base, base, Options(resamples=0))
    assert refused == [] and document is not None and document["verdict"]["outcome"] == "no_significant_change"
    assert compare_files(base, base, Options(resamples=0)) == document


@pytest.mark.parametrize("stream_rows", [True, False])
def test_one_reading_validates_and_hands_on_every_row(runs: tuple[Path, Path], stream_rows: bool) -> None:
    _, new = runs
    rows: list[Any] = []
    report, members = read_checked(new, rows.append, stream_rows=stream_rows)
    assert rows == _scores_on_a_hundred(VALID)["results"]
    assert members == {k: v for k, v in VALID.items() if k != "results"}
    assert [f.code for f in report.errors] == ["OUT_OF_RANGE"] * 17 and report.errors[0].line is not None
    with pytest.raises(Invalid) as caught:
        compare_files(new, new, Options(resamples=0))
    assert [path for path, _ in caught.value.refused] == [str(new), str(new)]


def test_a_stream_given_up_after_its_rows_is_compared_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream read past its rows, then given up for a whole reading (too many members after them), hands its rows
    on a second time: the comparison starts over, whole, and counts each row once."""
    from evalschema import pipeline
    from evalschema.io import stream

    monkeypatch.setattr(stream, "MAX_MEMBERS", 8)
    monkeypatch.setattr(pipeline, "STREAM_THRESHOLD", 0)  # read in pieces
    document = {"results": VALID["results"], **{k: v for k, v in VALID.items() if k != "results"}}
    path = tmp_path / "late.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert len(document) > 8
    found, refused = compare_checked(path, path, Options(resamples=0))
    assert refused == [] and found is not None
    assert found["pairs"]["base_rows"] == found["pairs"]["new_rows"] == len(VALID["results"])
    assert found["pairs"]["duplicates"] == 0, "no row counted twice"


def test_export_refuses_an_invalid_result_set_with_its_findings(runs: tuple[Path, Path], tmp_path: Path) -> None:
    _, new = runs
    out = tmp_path / "out.csv"
    with pytest.raises(InvalidInput) as caught:
        export_results("csv", new, out)
    assert caught.value.code == "EXPORT_INPUT_INVALID" and len(caught.value.report.errors) == 17 and not out.exists()
    proc = evalschema("export", "--to", "csv", str(new), "-o", str(out))
    assert proc.returncode == 1 and _out_of_range(proc.stderr) == 17 and not out.exists()
    assert "nothing was written (use --force to export it anyway)" in proc.stderr
    as_json = evalschema("export", "--to", "eee", str(new), "-o", str(out), "--format", "json")
    error = json.loads(as_json.stdout)["error"]
    assert as_json.returncode == 1 and error["code"] == "EXPORT_INPUT_INVALID" and len(error["findings"]["errors"]) == 17
    forced = evalschema("export", "--to", "csv", str(new), "-o", str(out), "--force")
    assert forced.returncode == 1 and out.exists() and "exported anyway (--force)" in forced.stderr
    assert _out_of_range(forced.stderr) == 17


def test_export_reads_as_validate_reads(tmp_path: Path) -> None:
    """The strict reader: a repeated key is no result set to export (orjson alone kept the last one)."""
    text = json.dumps(VALID)
    path = tmp_path / "dup.json"
    path.write_text(text.replace('{"$schema"', '{"run_id": "x", "$schema"', 1), encoding="utf-8")
    proc = evalschema("export", "--to", "csv", str(path), "-o", str(tmp_path / "o.csv"))
    assert proc.returncode == 2 and "DUPLICATE_KEY" in proc.stderr and not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("command", ["validate", "summarize"])
def test_jobs_refuse_an_invalid_result_set(runs: tuple[Path, Path], command: str) -> None:
    base, new = runs
    proc = evalschema(command, "-j", "2", str(base), str(new))
    assert proc.returncode == 1 and _out_of_range(proc.stdout) == 17, proc.stdout + proc.stderr
