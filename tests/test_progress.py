"""Progress on long work (issue 43): under a pseudo-terminal, reading a big file draws one line on stderr — bytes
read of the total, the rate, the time left — and clears it; with stderr not a terminal, or with ``-q``, nothing.
Both SDKs' commands, whole and streamed reads."""

from __future__ import annotations

import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from evalschema.io import progress
from evalschema_models.constants import PROGRESS_DELAY_VARIABLE

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import synthetic  # noqa: E402

CLEAR = b"\r\x1b[K"
JS_CLI = ROOT / "js" / "dist" / "cli.js"


@pytest.fixture(params=["python", "typescript"])
def command(request: pytest.FixtureRequest) -> list[str]:
    if request.param == "python":
        return [sys.executable, "-m", "evalschema"]
    if shutil.which("node") is None or not JS_CLI.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    return ["node", str(JS_CLI)]


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("progress") / "big.resultset.json"
    path.write_bytes(orjson.dumps(synthetic.resultset(40_000)))
    assert path.stat().st_size > 8 << 20  # several reads of the gate's chunks
    return path


def _under_a_terminal(command: list[str], argv: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    """Run the CLI with stderr on a pseudo-terminal (stdout a pipe); its exit status, stdout and terminal bytes."""
    leader, follower = pty.openpty()
    env = {**os.environ, PROGRESS_DELAY_VARIABLE: "0", "TERM": "xterm"}
    process = subprocess.Popen([*command, *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=follower, env=env)
    os.close(follower)
    seen = bytearray()
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        assert ready, "no output from the pseudo-terminal for two minutes"
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    assert process.stdout is not None
    out = process.stdout.read()
    process.wait(timeout=60)
    os.close(leader)
    return process.returncode, out, bytes(seen)


@pytest.mark.parametrize("stream", ["always", "never"])
def test_a_long_read_draws_its_progress_and_clears_it(big: Path, command: list[str], stream: str) -> None:
    status, out, terminal = _under_a_terminal(command, ["validate", "--stream", stream, str(big)], big.parent)
    assert status == 0, (out, terminal)
    lines = [part for part in terminal.split(CLEAR) if part]
    assert lines, terminal
    first = lines[0].decode()
    assert first.startswith(f"reading {big}: ") and " of " in first and "MiB" in first, first
    assert "/s" in terminal.decode() and " s left" in terminal.decode(), terminal
    assert terminal.endswith(CLEAR), terminal[-200:]  # cleared: the terminal's last line is the shell's again
    assert b"reading" not in out  # stdout, the report, never holds it


def test_quiet_or_not_a_terminal_draws_nothing(big: Path, command: list[str]) -> None:
    status, _, terminal = _under_a_terminal(command, ["validate", "-q", str(big)], big.parent)
    assert status == 0 and b"reading" not in terminal, terminal
    piped = subprocess.run(
        [*command, "validate", str(big)],
        capture_output=True,
        env={**os.environ, PROGRESS_DELAY_VARIABLE: "0"},
        check=False,
    )
    assert piped.returncode == 0 and b"reading" not in piped.stderr and b"\x1b" not in piped.stderr, piped.stderr


def test_the_line_says_how_far_how_fast_and_how_long() -> None:
    assert progress.line("rs.json", 3 << 20, 12 << 20, 1.5) == "reading rs.json: 3.0 MiB of 12.0 MiB (25 %), 2.0 MiB/s, 4 s left"
    assert progress.line("\x1b[2Jx", 0, 0, 0.0) == "reading \\x1b[2Jx: 0 B of 0 B"  # a hostile name is shown inert
