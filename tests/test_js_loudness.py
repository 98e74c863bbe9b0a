"""``-v`` / ``-q`` in the TypeScript CLI (issue 43): the same meaning and output as Python's — ``-v`` a line per
valid document too, ``-vv`` the same, ``-q`` errors only and no summary line, the long spellings and their
prefixes, ``-q`` with ``-v`` refused (exit 2) — byte for byte on standard output, with the same exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATHS = ["examples", "conformance"]
LOUDNESS = [[], ["-v"], ["-vv"], ["--verbose"], ["--verb"], ["-q"], ["--quiet"], ["--qu"], ["-q", "-v"], ["-vq"]]


def _run(command: list[str]) -> tuple[int, bytes]:
    done = subprocess.run(
        command, cwd=ROOT / "spec", capture_output=True, check=False, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}, timeout=300
    )
    return done.returncode, done.stdout


@pytest.mark.parametrize("loudness", LOUDNESS, ids=lambda a: " ".join(a) or "default")
def test_loudness_is_pythons(loudness: list[str], built_js: Path) -> None:
    python = _run([sys.executable, "-m", "evalschema", "validate", *loudness, *PATHS])
    typescript = _run(["node", str(built_js), "validate", *loudness, *PATHS])
    assert typescript == python


def test_loudness_changes_the_output() -> None:
    """The inputs tell the three levels apart: otherwise the test above would prove nothing."""
    default, verbose, quiet = (_run([sys.executable, "-m", "evalschema", "validate", *a, *PATHS])[1] for a in ([], ["-v"], ["-q"]))
    assert b"  valid\n" in verbose and b"  valid\n" not in default
    assert b"  warning  " in default and b"  warning  " not in quiet
    assert b"document(s):" in default and b"document(s):" not in quiet
