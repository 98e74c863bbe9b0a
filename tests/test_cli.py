"""The ``evalschema`` command end to end, through the installed console script."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest
from tools import missing_tool

from evalschema import migrate

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "cli"
EXAMPLES = ROOT / "spec" / "examples"
SCRIPT = Path(sys.executable).with_name("evalschema")


def run(*args: str, stdin: str | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120)


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(proc.stdout)
    return document


def test_console_script_is_installed() -> None:
    assert SCRIPT.exists(), f"{SCRIPT} missing: install the package (./noxw builds .venv)"


def test_version_names_package_and_spec() -> None:
    proc = run("--version")
    assert proc.returncode == 0
    version = json.loads((ROOT / "schemas" / "common.json").read_text())["$id"].split("/")[-2]  # the one version
    assert proc.stdout.strip() == f"evalschema {version} (specification {version})"


def test_folder_mixing_kinds_in_json_and_yaml() -> None:
    proc = run("validate", "--format", "json", str(DATA / "mixed"))
    assert proc.returncode == 1, proc.stderr
    report = as_json(proc)
    by_name = {Path(f["path"]).name: f for f in report["files"]}
    assert {name: f["kind"] for name, f in by_name.items()} == {
        "grader-llm-judge.json": "grader",
        "pack-anchors.yaml": "pack",
        "resultset-broken.json": "resultset",
        "suite-qa-basic.json": "suite",
    }
    broken = by_name["resultset-broken.json"]
    assert broken["valid"] is False
    assert [(e["code"], e["pointer"]) for e in broken["errors"]] == [("CONSTRAINT_INVALIDATES_PASS", "/results/0/passed")]
    assert broken["errors"][0]["line"] > 1 and broken["errors"][0]["column"] > 1
    assert by_name["pack-anchors.yaml"]["valid"] is True
    assert report["summary"] == {"files": 4, "valid": 3, "invalid": 1, "unreadable": 0}


def test_yaml_findings_carry_line_and_column(tmp_path: Path) -> None:
    text = (
        (DATA / "mixed" / "pack-anchors.yaml").read_text().replace("max_characters: 800", "max_characters: 800\n          colour: red", 1)
    )
    path = tmp_path / "pack.yaml"
    path.write_text(text)
    proc = run("validate", "--format", "json", str(path))
    (entry,) = as_json(proc)["files"]
    # the unknown property lands inside params, which are open: no error there; break a closed object instead
    assert entry["valid"] is True
    path.write_text(text.replace("name: Refunds", "name: Refunds\n    colour: red"))
    (entry,) = as_json(run("validate", "--format", "json", str(path)))["files"]
    assert [(e["code"], e["pointer"], e["line"]) for e in entry["errors"]] == [("UNKNOWN_FIELD", "/prompts/refunds/colour", 17)]


def test_stdin_single_document() -> None:
    proc = run("validate", "--format", "json", "-", stdin=(EXAMPLES / "resultset-aobench-rbac.json").read_text())
    assert proc.returncode == 0, proc.stdout
    (entry,) = as_json(proc)["files"]
    assert entry["path"] == "-" and entry["kind"] == "resultset" and entry["valid"]


def test_json_lines_bad_line_among_good_ones() -> None:
    proc = run("validate", "--format", "json", str(DATA / "stream" / "results.jsonl"))
    assert proc.returncode == 2
    entries = as_json(proc)["files"]
    assert [(e["line"], e["valid"]) for e in entries] == [(1, True), (2, True), (3, False), (4, True), (5, True)]
    bad = entries[2]["errors"][0]
    assert (bad["code"], bad["line"]) == ("INVALID_JSON", 3)
    stdin = run("validate", "--format", "json", "-", stdin=(DATA / "stream" / "results.jsonl").read_text())
    assert [(e["line"], e["valid"]) for e in as_json(stdin)["files"]] == [(e["line"], e["valid"]) for e in entries]


def test_unreadable_input_is_reported_and_the_rest_still_checked(tmp_path: Path) -> None:
    proc = run("validate", "--format", "json", str(tmp_path / "missing.json"), str(EXAMPLES / "grader-llm-judge.json"))
    assert proc.returncode == 2
    files = as_json(proc)["files"]
    assert files[0]["errors"][0]["code"] == "FILE_UNREADABLE" and files[1]["valid"] is True


def test_glob_and_text_output() -> None:
    proc = run("validate", "tests/data/cli/mixed/*.json")
    assert proc.returncode == 1
    assert "CONSTRAINT_INVALIDATES_PASS" in proc.stdout and "/results/0/passed" in proc.stdout
    assert proc.stdout.strip().splitlines()[-1].startswith("3 document(s): 2 valid, 1 invalid, 0 unreadable")
    assert "\033[" not in proc.stdout  # no colour when not a terminal


def test_github_annotations() -> None:
    proc = run("validate", "--format", "github", str(DATA / "mixed" / "resultset-broken.json"))
    (line,) = proc.stdout.splitlines()
    assert line.startswith("::error file=")
    assert ",title=CONSTRAINT_INVALIDATES_PASS::/results/0/passed: " in line


def test_strict_fails_a_pack_with_fail_on_violation_and_the_warning_names_the_migration() -> None:
    pack = str(EXAMPLES / "pack-legacy-fail-on-violation.json")
    relaxed = run("validate", "--format", "json", pack)
    assert relaxed.returncode == 0
    warnings = {w["code"]: w["message"] for w in as_json(relaxed)["files"][0]["warnings"]}
    assert set(warnings) == {"DEPRECATED_FIELD", "VALIDATOR_FAIL_OPEN"}
    assert "eval" in warnings["VALIDATOR_FAIL_OPEN"] and "2.0.0" in warnings["VALIDATOR_FAIL_OPEN"]
    assert "2.0.0" in warnings["DEPRECATED_FIELD"] and "2027-11-30" in warnings["DEPRECATED_FIELD"]
    strict = run("validate", "--strict", "--format", "json", pack)
    assert strict.returncode == 1
    assert {e["code"] for e in as_json(strict)["files"][0]["errors"]} == {"DEPRECATED_FIELD", "VALIDATOR_FAIL_OPEN"}


def test_suite_enables_cross_document_rules(tmp_path: Path) -> None:
    resultset = json.loads((EXAMPLES / "resultset-multi-attempt.json").read_text())
    resultset["results"][0]["test_case_id"] = "no-such-case"
    path = tmp_path / "rs.json"
    path.write_text(json.dumps(resultset))
    proc = run("validate", "--format", "json", "--suite", str(EXAMPLES / "suite-qa-basic.json"), str(path))
    codes = {(e["code"], e["pointer"]) for e in as_json(proc)["files"][0]["errors"]}
    assert ("UNKNOWN_TEST_CASE", "/results/0/test_case_id") in codes


def test_usage_errors_exit_2() -> None:
    assert run("validate").returncode == 2
    assert run("validate", "--kind", "nonsense", "x.json").returncode == 2
    assert run("frobnicate").returncode == 2


# --- summarize --------------------------------------------------------------------------------------------


def test_summarize_text_and_json() -> None:
    path = str(EXAMPLES / "resultset-aobench-rbac.json")
    text = run("summarize", path)
    assert text.returncode == 0
    assert "pass rate 50.0% of 2 scored" in text.stdout and "invalidated by a constraint 1" in text.stdout
    (item,) = json.loads(run("summarize", "--format", "json", path).stdout)
    document = json.loads(Path(path).read_text())
    for key, value in document["summary"].items():
        if key != "duration_ms":  # the producer's wall clock: not derivable from the rows
            assert item["summary"][key] == value, key


def test_stream_option_changes_nothing_but_memory(tmp_path: Path) -> None:
    """``--stream always`` and ``--stream never`` give the same report, exit status and summary, on a result set
    with findings all through its rows (lines and columns included) and on one cut short."""
    document = json.loads((EXAMPLES / "resultset-multi-attempt.json").read_text())
    rows = document["results"]
    document["results"] = [dict(row, test_case_id=f"{row['test_case_id']}-{i}") for i in range(300) for row in rows]
    document["results"][7]["passed"] = "yes"
    document["results"][-1]["attempt"] = 0
    document["results"].append(document["results"][3])  # a duplicate (test_case_id, attempt)
    document["summary"] = {"total": 1, "passed": 1, "failed": 0, "skipped": 0, "pass_rate": 1.0, "avg_score": 1.0, "by_grader": {}}
    big = tmp_path / "big.json"
    big.write_text(json.dumps(document, indent=2))
    cut = tmp_path / "cut.json"
    cut.write_bytes(big.read_bytes()[: big.stat().st_size // 2])
    for path, status in ((big, 1), (cut, 2)):
        always = run("validate", "--format", "json", "--stream", "always", str(path))
        never = run("validate", "--format", "json", "--stream", "never", str(path))
        assert always.returncode == never.returncode == status, always.stderr
        assert as_json(always) == as_json(never)
        findings = as_json(always)["files"][0]["errors"]
        assert findings and all("line" in f for f in findings)
    summaries = [
        json.loads(run("summarize", "--force", "--format", "json", "--stream", mode, str(big)).stdout) for mode in ("always", "never")
    ]  # invalid: forced
    assert summaries[0] == summaries[1] and summaries[0][0]["summary"]["total"] == len(document["results"])


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA, non-interlaced PNG (what Chromium writes) into rows of pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, width = 8, b"", 0
    while offset < len(data):
        (length,), kind = struct.unpack(">I", data[offset : offset + 4]), data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour_type = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour_type in (2, 6)
            channels = 4 if colour_type == 6 else 3
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        filter_type, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            left = line[x - channels] if x >= channels else 0
            up, corner = previous[x], previous[x - channels] if x >= channels else 0
            if filter_type == 1:
                line[x] = (line[x] + left) & 0xFF
            elif filter_type == 2:
                line[x] = (line[x] + up) & 0xFF
            elif filter_type == 3:
                line[x] = (line[x] + (left + up) // 2) & 0xFF
            elif filter_type == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, channels, rows


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI (.ci/run installs Debian's chromium)")
        missing_tool("chromium is not installed")
    return found


def test_html_report_renders_charts_in_headless_chromium(tmp_path: Path) -> None:
    browser = _chromium()
    report = tmp_path / "report.html"
    proc = run(
        "summarize", "--html", str(report), str(EXAMPLES / "resultset-aobench-rbac.json"), str(EXAMPLES / "resultset-multi-attempt.json")
    )
    assert proc.returncode == 0 and report.exists()
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    dom = subprocess.run([browser, *flags, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120)
    assert '<b data-metric="pass_rate">50.0%</b>' in dom.stdout  # AOBench: 1 passed of 2 scored
    assert '<b data-metric="pass_rate">77.8%</b>' in dom.stdout
    assert dom.stdout.count("<svg") == 4
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *flags, "--window-size=1000,1200", f"--screenshot={shot}", report.as_uri()], capture_output=True, timeout=120)
    width, channels, rows = _png_pixels(shot.read_bytes())
    colours = {row[x : x + 3] for row in rows[::7] for x in range(0, width * channels, channels * 5)}
    assert len(colours) > 20, "the screenshot is blank"
    bar_blue, passed_green = bytes((0x15, 0x65, 0xC0)), bytes((0x2E, 0x7D, 0x32))
    assert bar_blue in colours and passed_green in colours, "the charts were not drawn"


# --- migrate ----------------------------------------------------------------------------------------------


def test_migrate_round_trips_a_commented_yaml_pack(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    shutil.copy(DATA / "pack-commented.yaml", pack)
    check = run("migrate", "--check", str(pack))
    assert check.returncode == 1 and "-        fail_on_violation: false" in check.stdout
    assert pack.read_bytes() == (DATA / "pack-commented.yaml").read_bytes(), "--check must not write"
    proc = run("migrate", str(pack))
    assert proc.returncode == 0
    assert "to decide: /prompts/support/evals/0 (max_length_observed)" in proc.stdout
    # byte-identical to the reviewed golden file: comments, order and quoting kept, only migrated lines differ
    assert pack.read_bytes() == (DATA / "pack-commented.migrated.yaml").read_bytes()
    assert run("validate", str(pack)).returncode == 0
    assert run("migrate", "--check", str(pack)).returncode == 0


def test_migrate_json_keeps_indentation(tmp_path: Path) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(json.loads((EXAMPLES / "pack-legacy-fail-on-violation.json").read_text()), indent=4) + "\n")
    assert run("migrate", str(pack)).returncode == 0
    text = pack.read_text()
    assert text.startswith('{\n    "') and text.endswith("}\n")
    assert run("validate", str(pack)).returncode == 0
    # the placeholders stay marked until a person decides them: --strict fails on exactly those
    proc = run("validate", "--strict", "--format", "json", str(pack))
    assert proc.returncode == 1
    assert {e["code"] for e in as_json(proc)["files"][0]["errors"]} == {"MIGRATION_PLACEHOLDER"}


def test_migrate_never_leaves_a_half_written_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack = tmp_path / "pack.yaml"
    shutil.copy(DATA / "pack-commented.yaml", pack)
    before = pack.read_bytes()

    def fail(_fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", fail)
    said: list[str] = []
    assert migrate.run([pack], check=False, write=said.append) == 2
    assert f"evalschema migrate: {pack}: cannot write: disk full; the file is unchanged\n" in said
    assert said[-1] == "evalschema migrate: rewritten: none; every other file is unchanged\n"
    assert pack.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["pack.yaml"], "a temporary file was left behind"
