"""The limits are written once per SDK (evalschema/limits.py, js/src/limits.ts): they must be equal, and both
SDKs must read the same environment variable the same way."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

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
        pytest.skip("the TypeScript SDK is not built")
    script = f"import('{built.as_uri()}').then(m => console.log(JSON.stringify(m.maxInputBytes())))"
    out = subprocess.run(
        [node, "-e", script], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", limits.INPUT_BYTES_VARIABLE: value}, check=True
    )
    assert json.loads(out.stdout) == expected


def test_shorten() -> None:
    assert limits.shorten("abc", 5) == "abc"
    assert limits.shorten("a" * 10, 4) == "aaaa… (6 more characters)"
