"""What a test does when a tool it needs is absent (imported by name: ``conftest`` is ambiguous with tests/codegen/)."""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing_tool(message: str) -> NoReturn:
    """A tool the test needs is absent: a failure in CI (``CI`` set), a skip elsewhere (pytest counts skips in its
    summary line)."""
    if os.environ.get("CI"):
        pytest.fail(f"{message} (CI must have it: see .ci/run)")
    pytest.skip(message)
