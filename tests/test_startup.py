"""Start-up (issue 22): ``import evalschema`` imports none of the runtime until a public name is used, so the
command can pause the cyclic collector before the heavy imports (``evalschema.__main__``); every public name still
resolves, to the object of the module that defines it."""

from __future__ import annotations

import subprocess
import sys

import pytest

import evalschema
from evalschema.core.findings import Finding
from evalschema.pipeline import validate


def test_import_evalschema_imports_no_runtime() -> None:
    probe = "import sys, evalschema; print(sorted(m for m in ('jsonschema_rs', 'orjson', 'evalschema.pipeline') if m in sys.modules))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_every_public_name_resolves() -> None:
    for name in evalschema.__all__:
        assert getattr(evalschema, name) is not None, name
    assert set(evalschema.__all__) <= set(dir(evalschema))
    assert evalschema.validate is validate and evalschema.Finding is Finding
    assert evalschema.__version__ == evalschema.spec_version()


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        evalschema.no_such_name  # noqa: B018
