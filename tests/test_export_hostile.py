"""OTel and CSV export of hostile but valid result sets (issue 39): every date-time ``validate`` accepts has a
``timeUnixNano`` (lowercase ``t``/``z``, a leap second, year 0000, before 1970 — never negative, never a traceback)
and export gives the verdict ``validate`` gives on the same document (a duplicate key refused, a lone surrogate
accepted, written as U+FFFD and reported)."""

from __future__ import annotations

import calendar
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE: dict[str, Any] = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evalschema", *argv], capture_output=True, text=True, timeout=120, check=False)


def _export(tmp_path: Path, text: str, to: str) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str], Path]:
    source, out = tmp_path / "in.resultset.json", tmp_path / f"out.{to}"
    source.write_text(text, "utf-8")
    validated = _run("validate", "--format", "json", str(source))
    exported = _run("export", "--to", to, "--format", "json", "-o", str(out), str(source))
    assert "Traceback" not in exported.stderr + validated.stderr, exported.stderr
    return validated, exported, out


def _times(out: Path) -> list[str]:
    request = json.loads(out.read_text("utf-8"))
    records = request["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    return [r["timeUnixNano"] for r in records]


def _unix(year: int, month: int, day: int, hour: int, minute: int, second: int) -> int:
    return calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) * 1_000_000_000


@pytest.mark.parametrize(
    ("stamp", "nanos", "loss"),
    [
        ("2026-11-29t10:01:12z", _unix(2026, 11, 29, 10, 1, 12), None),
        ("2026-11-29T10:01:12.123456789123+05:30", _unix(2026, 11, 29, 4, 31, 12) + 123456789, "approximated"),
        ("2016-12-31T23:59:60Z", _unix(2017, 1, 1, 0, 0, 0), "approximated"),
        ("2016-12-31T18:29:60.5-05:30", _unix(2017, 1, 1, 0, 0, 0) + 500_000_000, "approximated"),
        ("0000-02-29T00:00:00Z", 0, "dropped"),
        ("1969-12-31T23:59:59.999Z", 0, "dropped"),
    ],
)
def test_every_valid_date_time_has_an_otlp_time(tmp_path: Path, stamp: str, nanos: int, loss: str | None) -> None:
    document = copy.deepcopy(EXAMPLE)
    for row in document["results"]:
        row["completed_at"] = stamp
    validated, exported, out = _export(tmp_path, json.dumps(document), "otel")
    assert validated.returncode == 0, validated.stdout
    assert exported.returncode == 0, exported.stderr
    assert set(_times(out)) == {str(nanos)}
    report = json.loads(exported.stdout)["loss"]
    completed = [e for kind in ("dropped", "approximated") for e in report[kind] if "completed_at" in json.dumps(e)]
    if loss is None:
        assert completed == []
    else:
        assert {kind for kind in ("dropped", "approximated") for e in report[kind] if "completed_at" in json.dumps(e)} == {loss}


@pytest.mark.parametrize("to", ["otel", "csv"])
def test_a_duplicate_key_is_refused_as_validate_refuses_it(tmp_path: Path, to: str) -> None:
    text = json.dumps(EXAMPLE).replace('"run_id":', '"run_id": "other", "run_id":', 1)
    validated, exported, out = _export(tmp_path, text, to)
    assert validated.returncode == exported.returncode == 2
    assert "DUPLICATE_KEY" in validated.stdout and "DUPLICATE_KEY" in exported.stdout
    assert not out.exists()


@pytest.mark.parametrize("to", ["otel", "csv"])
def test_a_lone_surrogate_is_accepted_as_validate_accepts_it(tmp_path: Path, to: str) -> None:
    document = copy.deepcopy(EXAMPLE)
    document["results"][0]["test_case_id"] = "case-\ud800"
    document["results"][0]["grader_results"][0]["reason"] = "\udc00"
    validated, exported, out = _export(tmp_path, json.dumps(document), to)
    assert validated.returncode == exported.returncode == 0, exported.stderr
    written = out.read_bytes().decode("utf-8")  # strict UTF-8: the surrogate is not smuggled through
    assert "case-\ufffd" in written
    approximated = json.loads(exported.stdout)["loss"]["approximated"]
    assert any("surrogate" in json.dumps(entry) for entry in approximated)
