"""``evalschema-js summarize`` writes what ``evalschema summarize`` writes, line for line (issue 17, item 7): the
same text (summaries, grader tables, attempt statistics, refused result sets and their findings, the --force
warning), the same JSON (as values) and the same exit status, on the same inputs — whole, streamed, JSON Lines."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "spec" / "examples").glob("resultset-*.json"))


def _run(command: list[str], cwd: Path) -> tuple[int, str, str]:
    out = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    return out.returncode, out.stdout, out.stderr


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples, an invalid copy of the multi-attempt one, both in one JSON Lines file, odd suite and run ids."""
    folder = tmp_path_factory.mktemp("summaries")
    for path in EXAMPLES:
        (folder / path.name).write_bytes(path.read_bytes())
    good = json.loads((ROOT / "spec" / "examples" / "resultset-multi-attempt.json").read_text(encoding="utf-8"))
    bad: dict[str, Any] = copy.deepcopy(good)
    bad["results"][0]["passed"] = "yes"
    del bad["results"][1]["test_case_id"]
    (folder / "bad.json").write_text(json.dumps(bad, indent=1), encoding="utf-8")
    (folder / "both.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    odd = json.loads((ROOT / "spec" / "examples" / "resultset-grouped-sweep.json").read_text(encoding="utf-8"))
    odd["run_id"], odd["suite_id"] = None, 5
    (folder / "odd.json").write_text(json.dumps(odd), encoding="utf-8")
    return folder


CASES = [
    [p.name for p in EXAMPLES],
    ["resultset-multi-attempt.json", "bad.json"],
    ["--force", "resultset-multi-attempt.json", "bad.json"],
    ["--stream", "always", "bad.json", "resultset-multi-attempt.json"],
    ["both.jsonl"],
    ["--force", "both.jsonl"],
    ["--force", "odd.json"],
    ["missing.json", "resultset-grouped-sweep.json"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_summarize_text_is_pythons(args: list[str], inputs: Path, built_js: Path) -> None:
    python = _run([sys.executable, "-m", "evalschema", "summarize", *args], inputs)
    typescript = _run(["node", str(built_js), "summarize", *args], inputs)
    assert python[1], "the Python command printed nothing: this test would prove nothing"
    assert typescript[1].splitlines() == python[1].splitlines()
    assert typescript[0] == python[0]
    # errors name the command: the rest of each line is the same
    assert [line.split(": ", 1)[1] for line in typescript[2].splitlines()] == [line.split(": ", 1)[1] for line in python[2].splitlines()]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_summarize_json_is_pythons(args: list[str], inputs: Path, built_js: Path) -> None:
    python = _run([sys.executable, "-m", "evalschema", "summarize", "--format", "json", *args], inputs)
    typescript = _run(["node", str(built_js), "summarize", "--format", "json", *args], inputs)
    assert json.loads(typescript[1]) == json.loads(python[1])
    assert typescript[0] == python[0]
