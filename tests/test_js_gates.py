"""The TypeScript CLI's input and text gates agree with the Python CLI's, byte for byte (issue 38, items 1 and 3).

Input gate: a device (``/dev/zero``), a FIFO, a directory, a missing file and a file over the input size limit, in
every form a command reads (JSON whole and streamed, JSON Lines, YAML, ``--suite``, a suite's ``test_cases_file``),
give the same report, the same messages on stderr and the same exit status from both, at once (a FIFO would block
a reader that waits on it; ``/dev/zero`` never ends).

Text gate: file names, ids, suite and run ids, grader ids and messages holding ESC/BEL sequences, a bidi override,
line separators and a forged ``::error`` line are printed the same, escaped, by both (text and GitHub output).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
SECONDS = 60  # far more than either needs; a reader blocked on a FIFO never returns
EVIL = "x\x1b]0;pwn\x07\x1b[31m\u202e\u2028\u2029\r\n::error file=a,line=1::forged%0A\x85"
LIMIT = 4096  # EVALSCHEMA_MAX_INPUT_BYTES for the over-limit runs


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
    out = subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        check=False,
        timeout=SECONDS,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", **(env or {})},
    )
    return out.returncode, out.stdout, out.stderr


def _both(
    args: list[str], cwd: Path, built_js: Path, env: dict[str, str] | None = None
) -> tuple[tuple[int, bytes, bytes], tuple[int, bytes, bytes]]:
    python = _run([sys.executable, "-m", "evalschema", *args], cwd, env)
    typescript = _run(["node", str(built_js), *args], cwd, env)
    # the programs name themselves at the start of their messages: the rest of each line is compared
    named = typescript[2].replace(b"evalschema-js: ", b"evalschema: ")
    return python, (typescript[0], typescript[1], named)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile_inputs")
    os.mkfifo(folder / "fifo.json")
    os.mkfifo(folder / "fifo.jsonl")
    os.mkfifo(folder / "fifo.yaml")
    for suffix in ("json", "jsonl", "yaml"):
        (folder / f"zero.{suffix}").symlink_to("/dev/zero")
    (folder / "folder.json").mkdir()
    example = (EXAMPLES / "resultset-multi-attempt.json").read_bytes()
    (folder / "big.json").write_bytes(example + b" " * LIMIT)
    (folder / "big.jsonl").write_bytes(json.dumps(json.loads(example)).encode() + b" " * LIMIT + b"\n")
    (folder / "big.yaml").write_bytes(b"# " + b"x" * LIMIT + b"\n" + example)
    # JSON Lines at the limit's edge: a line of exactly LIMIT bytes is read, one byte more is refused
    for name, size in (("edge-at.jsonl", LIMIT), ("edge-over.jsonl", LIMIT + 1)):
        line = b'{"a": "' + b"x" * (size - 9) + b'"}'
        assert len(line) == size
        (folder / name).write_bytes(b"{}\n" + line + b"\n" + line + b"\r\n")
    (folder / "cases").mkdir()
    os.mkfifo(folder / "cases" / "fifo.jsonl")
    (folder / "cases" / "zero.jsonl").symlink_to("/dev/zero")  # leads out of the suite's folder: refused as such
    for name in ("fifo", "zero"):
        suite = {"version": "1.2.0", "id": "s", "graders": [{"id": "g", "type": "exact_match"}], "test_cases_file": f"{name}.jsonl"}
        (folder / "cases" / f"suite-{name}.json").write_text(json.dumps(suite), encoding="utf-8")
    return folder


INPUTS = [
    "fifo.json",
    "fifo.jsonl",
    "fifo.yaml",
    "zero.json",
    "zero.jsonl",
    "zero.yaml",
    "folder.json",
    "missing.json",
    "/dev/zero",
    "/dev/null",
]
FORMS: list[list[str]] = [[], ["--stream", "always"], ["--input-format", "jsonl"], ["--input-format", "yaml"]]


@pytest.mark.parametrize("form", FORMS, ids=lambda f: " ".join(f) or "by suffix")
@pytest.mark.parametrize(
    "command",
    [["validate"], ["validate", "--format", "json"], ["validate", "--format", "github"], ["summarize"], ["summarize", "--format", "json"]],
)
def test_devices_fifos_folders_refused_alike(command: list[str], form: list[str], hostile: Path, built_js: Path) -> None:
    python, typescript = _both([*command, *form, *INPUTS], hostile, built_js)
    assert python[0] == 2 and b"not a regular file" in python[1] + python[2]
    assert typescript == python


@pytest.mark.parametrize(
    "args",
    [
        ["--suite", "cases/suite-fifo.json", "big.json"],
        ["--suite", "fifo.json", "big.json"],
        ["cases/suite-fifo.json"],
        ["cases/suite-zero.json"],
    ],
)
def test_suites_and_test_cases_files_refused_alike(args: list[str], hostile: Path, built_js: Path) -> None:
    python, typescript = _both(["validate", *args], hostile, built_js)
    assert python[0] == 2
    assert typescript == python


@pytest.mark.parametrize("form", [[], ["--stream", "always"]], ids=["whole", "streamed"])
@pytest.mark.parametrize("command", [["validate"], ["validate", "--format", "json"], ["summarize"]])
def test_over_the_input_limit_alike(command: list[str], form: list[str], hostile: Path, built_js: Path) -> None:
    paths = ["big.json", "big.jsonl", "big.yaml", "edge-at.jsonl", "edge-over.jsonl"]
    python, typescript = _both([*command, *form, *paths], hostile, built_js, {"EVALSCHEMA_MAX_INPUT_BYTES": str(LIMIT)})
    assert python[0] == 2 and b"larger than the input size limit" in python[1] + python[2]
    assert typescript == python


# --- the text gate -------------------------------------------------------------------------------------------


def _evil(document: dict[str, Any]) -> dict[str, Any]:
    document = json.loads(json.dumps(document))
    document["suite_id"] = document["run_id"] = EVIL
    for row in document["results"]:
        for result in row.get("grader_results", []):
            result["grader_id"] = EVIL + result["grader_id"]
    document.pop("summary", None)
    return document


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Result sets (one with attempts, one without), an invalid one, JSON Lines, a suite: names and ids all EVIL."""
    folder = tmp_path_factory.mktemp("text_gate")
    stem = EVIL.replace("/", "_")
    attempts = _evil(json.loads((EXAMPLES / "resultset-multi-attempt.json").read_text(encoding="utf-8")))
    plain = _evil(json.loads((EXAMPLES / "resultset-grouped-sweep.json").read_text(encoding="utf-8")))
    assert not any("attempt" in row for row in plain["results"])
    bad = json.loads(json.dumps(plain))
    bad["results"][0]["passed"] = EVIL
    bad[EVIL] = 1
    (folder / f"plain{stem}.json").write_text(json.dumps(plain), encoding="utf-8")
    (folder / f"bad{stem}.json").write_text(json.dumps(bad), encoding="utf-8")
    (folder / f"lines{stem}.jsonl").write_text(json.dumps(plain) + "\n" + json.dumps(bad) + "\n{\n", encoding="utf-8")
    suite = {
        "version": "1.2.0",
        "id": EVIL,
        "graders": [{"id": EVIL, "type": "exact_match"}, {"id": EVIL, "type": "exact_match"}],
        "test_cases": [{"id": EVIL, "input": "q", "graders": [EVIL + "?"]}],
    }
    (folder / f"suite{stem}.json").write_text(json.dumps(suite), encoding="utf-8")
    (folder / "attempts").mkdir()
    (folder / "attempts" / f"attempts{stem}.json").write_text(json.dumps(attempts), encoding="utf-8")
    return folder


def _names(folder: Path, *patterns: str) -> list[str]:
    return sorted(str(p.relative_to(folder)) for pattern in patterns for p in folder.glob(pattern) if p.is_file())


UNSAFE = [b"\x1b", b"\x07", b"\r", "\u202e".encode(), "\u2028".encode(), "\u2029".encode(), "\x85".encode()]


def _assert_escaped(text: bytes) -> None:
    assert b"\\x1b]0;pwn\\x07\\x1b[31m\\u202e\\u2028\\u2029" in text, "the input is not quoted: this test would prove nothing"
    assert not any(bad in text for bad in UNSAFE)


@pytest.mark.parametrize("extra", [[], ["-v"], ["--stream", "always"], ["--format", "github"]], ids=lambda e: " ".join(e) or "text")
def test_validate_prints_hostile_text_as_python_does(extra: list[str], evil: Path, built_js: Path) -> None:
    paths = [*_names(evil, "*"), "missing" + EVIL.replace("/", "_") + ".json"]
    python, typescript = _both(["validate", *extra, *paths], evil, built_js)
    _assert_escaped(python[1])
    assert not any(line.startswith(b"::") for line in python[1].splitlines()) or extra == ["--format", "github"]
    assert typescript == python


@pytest.mark.parametrize("extra", [[], ["--force"], ["--stream", "always", "--force"]], ids=lambda e: " ".join(e) or "plain")
def test_summarize_prints_hostile_text_as_python_does(extra: list[str], evil: Path, built_js: Path) -> None:
    paths = [*_names(evil, "*.json", "*.jsonl"), "missing" + EVIL.replace("/", "_") + ".json"]
    python, typescript = _both(["summarize", *extra, *paths], evil, built_js)
    _assert_escaped(python[1])
    _assert_escaped(python[2])
    assert typescript == python


def test_summarize_attempt_line_escaped_as_python_does(evil: Path, built_js: Path) -> None:
    python, typescript = _both(["summarize", *_names(evil, "attempts/*")], evil, built_js)
    _assert_escaped(typescript[1])
    assert typescript == python
    _assert_escaped(python[1])
