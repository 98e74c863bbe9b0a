"""Helpers shared by the codegen tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures" / "library"


def run_codegen(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args], cwd=cwd or REPO, env=full_env, capture_output=True, text=True, timeout=300
    )


def typescript_runtime(folder: Path) -> None:
    """Make ``folder`` a place where generated TypeScript compiles as it does in a package: ES modules (the type
    guards' runtime uses ``import.meta``) and the dependencies of the generated code (Ajv, ajv-formats, Node's
    types) from ``js/node_modules``."""
    if not (folder / "package.json").exists():
        (folder / "package.json").write_text('{"type": "module"}\n', encoding="utf-8")
    if not (folder / "node_modules").exists():
        (folder / "node_modules").symlink_to(REPO / "js" / "node_modules", target_is_directory=True)
