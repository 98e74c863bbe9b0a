"""The limits are written once per SDK (evalschema/limits.py, js/src/limits.ts): they must be equal, and both
SDKs must read the same environment variable the same way."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tools import missing_tool

from evalschema import limits

ROOT = Path(__file__).resolve().parents[1]
TS = (ROOT / "js" / "src" / "limits.ts").read_text(encoding="utf-8")
SHARED = ("MAX_INPUT_BYTES", "MAX_INPUT_BYTES_CEILING", "MAX_FINDINGS", "MAX_VALUE_CHARS", "INPUT_BYTES_VARIABLE")


def _ts_constant(name: str) -> object:
    match = re.search(rf"^export const {name} = (.+);$", TS, re.MULTILINE)
    assert match, f"js/src/limits.ts has no {name}"
    node = ast.parse(match.group(1), mode="eval")
    allowed = (ast.Expression, ast.BinOp, ast.Constant, ast.Mult, ast.Pow, ast.Add, ast.LShift)
    assert all(isinstance(n, allowed) for n in ast.walk(node)), match.group(1)  # arithmetic on literals only
    return eval(compile(node, "limits.ts", "eval"))  # checked above: literals and arithmetic only


@pytest.mark.parametrize("name", SHARED)
def test_the_sdks_share_each_limit(name: str) -> None:
    assert _ts_constant(name) == getattr(limits, name)


def test_stream_member_limit_is_shared() -> None:
    from evalschema import stream

    source = (ROOT / "js" / "src" / "stream.ts").read_text(encoding="utf-8")
    assert re.search(rf"^export const MAX_MEMBERS = {stream.MAX_MEMBERS};$", source, re.MULTILINE)


@pytest.mark.parametrize(
    "value,expected",
    [
        ("", limits.MAX_INPUT_BYTES),
        ("1000", 1000),
        (" 77 ", 77),
        ("0", limits.MAX_INPUT_BYTES),
        ("-5", limits.MAX_INPUT_BYTES),
        ("1e9", limits.MAX_INPUT_BYTES),
        ("lots", limits.MAX_INPUT_BYTES),
        ("9" * 16, limits.MAX_INPUT_BYTES),
        ("١٢٣", limits.MAX_INPUT_BYTES),
        ("9" * 15, limits.MAX_INPUT_BYTES_CEILING),
        (str(1 << 30), 1 << 30),
        (str((1 << 30) + 1), 1 << 30),
    ],
)
def test_the_variable_is_read_the_same_way(value: str, expected: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.INPUT_BYTES_VARIABLE, value)
    assert limits.max_input_bytes() == expected
    node, built = shutil.which("node"), ROOT / "js" / "dist" / "limits.js"
    if node is None or not built.exists():
        missing_tool("node and js/dist (npm run build in js/) are needed to read the TypeScript limit")
    script = f"import('{built.as_uri()}').then(m => console.log(JSON.stringify(m.maxInputBytes())))"
    out = subprocess.run(
        [node, "-e", script], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", limits.INPUT_BYTES_VARIABLE: value}, check=True
    )
    assert json.loads(out.stdout) == expected


def test_shorten() -> None:
    assert limits.shorten("abc", 5) == "abc"
    assert limits.shorten("a" * 10, 4) == "aaaa… (6 more characters)"


def _capped_result_set(path: Path, rows: int) -> None:
    """A result set with a finding before its rows (``run_id``), one in each row (an unknown member; rows past
    10 sort before row 2 as pointers), and one after its rows (``created_at``): more findings than are listed."""
    row = {"test_case_id": "t", "grader_results": [], "passed": True, "surprise": 1}
    document = {
        "$schema": "https://evalschema.org/schema/1.2.0/resultset.json",
        "version": "1.1.0",
        "run_id": 7,
        "suite_id": "s",
        "results": [dict(row, test_case_id=f"t{i}") for i in range(rows)],
        "completed_at": "not a date",
    }
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")


def _listed(command: list[str]) -> tuple[int, list[tuple[int | None, str, str]], int]:
    run = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    (entry,) = json.loads(run.stdout)["files"]
    shown = [(f.get("line"), f["pointer"], f["code"]) for f in entry["errors"] + entry["warnings"]]
    return run.returncode, shown, entry.get("omitted", 0)


def test_the_finding_cap_keeps_the_first_findings_in_reading_order(tmp_path: Path, built_js: Path) -> None:
    """Past ``MAX_FINDINGS``, the CLIs list the findings a reader meets first (line by line) and count the rest —
    the same list whether the result set is streamed or read whole, and the same list from both CLIs."""
    path = tmp_path / "many.json"
    rows = 2 * limits.MAX_FINDINGS + 10  # more rows with findings than the streamed reader keeps: it trims them
    _capped_result_set(path, rows)
    found = 2 * rows + 3  # each row: UNKNOWN_FIELD and UNSCORED_RESULT_PASSED; the run: run_id, completed_at, started_at
    python = [sys.executable, "-m", "evalschema", "validate", "--format", "json", str(path), "--stream"]
    status, shown, omitted = _listed([*python, "always"])
    assert status == 1
    assert (len(shown), omitted) == (limits.MAX_FINDINGS, found - limits.MAX_FINDINGS)
    assert all(line is not None for line, _, _ in shown)
    assert [line for line, _, _ in shown] == sorted(line for line, _, _ in shown)
    last = limits.MAX_FINDINGS // 2 - 2  # the rows whose findings fill the list after the run's own two (line 1, line 4)
    assert shown[:2] == [(1, "/started_at", "REQUIRED_FIELD"), (4, "/run_id", "TYPE_MISMATCH")]
    assert shown[-1][1] == f"/results/{last}/surprise"
    assert _listed([*python, "never"]) == (status, shown, omitted)
    node = ["node", str(built_js), "validate", "--format", "json", str(path), "--stream"]
    assert _listed([*node, "always"]) == (status, shown, omitted)
    assert _listed([*node, "never"]) == (status, shown, omitted)
