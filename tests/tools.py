"""What a test does when a tool it needs is absent (imported by name: ``conftest`` is ambiguous with tests/codegen/)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest


def missing_tool(message: str) -> NoReturn:
    """A tool the test needs is absent: a failure in CI (``CI`` set), a skip elsewhere (pytest counts skips in its
    summary line)."""
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI must have it: see .ci/run)")
    pytest.skip(message)


def load_script(path: Path) -> ModuleType:
    """A script of the repository (``scripts/…``, not a package) imported as a module, to test its functions."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
