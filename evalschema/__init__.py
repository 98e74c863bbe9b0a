"""evalschema: validate and summarize evaluation data against the evalschema specification.

>>> from evalschema import validate
>>> validate({"id": "g1", "type": "contains", "params": {"substring": "ok"}}).valid
True
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import validate, validate_file, validate_json
    from .core.findings import Finding, Report
    from .pipeline import summarize_file
    from .schemas.registry import KINDS, spec_version
    from .summary.states import Summary, classify, summarize

# The public names and the module of each, imported on first use: ``import evalschema`` (and the command, which
# starts from it) pays only for what it uses.
_PUBLIC = {
    "Finding": ".core.findings",
    "Report": ".core.findings",
    "summarize_file": ".pipeline",
    "validate": ".api",
    "validate_file": ".api",
    "validate_json": ".api",
    "KINDS": ".schemas.registry",
    "spec_version": ".schemas.registry",
    "Summary": ".summary.states",
    "classify": ".summary.states",
    "summarize": ".summary.states",
}

__all__ = [
    "KINDS",
    "Finding",
    "Report",
    "Summary",
    "classify",
    "spec_version",
    "summarize",
    "summarize_file",
    "validate",
    "validate_file",
    "validate_json",
]


def __getattr__(name: str) -> Any:
    # the one version is the working schemas' (their `$id`); the distribution is built with the same number
    if name == "__version__":
        return import_module(".schemas.registry", __name__).spec_version()
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC, "__version__"})
