from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from codegen_helpers import FIXTURES, run_codegen


@pytest.fixture
def schemas(tmp_path: Path) -> Path:
    dst = tmp_path / "schemas"
    shutil.copytree(FIXTURES, dst)
    return dst


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "out"
    proc = run_codegen("generate", "--schemas", str(FIXTURES), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out
