"""evalschema: validate and summarize evaluation data against the evalschema specification.

>>> from evalschema import validate
>>> validate({"id": "g1", "type": "contains", "params": {"substring": "ok"}}).valid
True
"""

from __future__ import annotations

from .core.findings import Finding, Report
from .pipeline import summarize_file, validate, validate_file, validate_json
from .schemas.registry import KINDS, spec_version
from .summary.states import Summary, classify, summarize

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


def __getattr__(name: str) -> str:
    # the one version is the working schemas' (their `$id`); the distribution is built with the same number
    if name == "__version__":
        return spec_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
