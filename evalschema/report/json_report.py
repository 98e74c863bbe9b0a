"""The JSON report: one entry per document (``--format json``; the report's own JSON Schema describes it)."""

from __future__ import annotations

import json
from typing import Any

from ..core.display import display_path
from ..core.findings import Report
from ..core.limits import MAX_FINDINGS


def entry(path: str, line: int | None, report: Report) -> dict[str, Any]:
    """The report of one document (``line``: of a JSON Lines entry) as the JSON report writes it. At most
    ``MAX_FINDINGS`` findings are listed (errors first); ``omitted`` counts the rest."""
    entry: dict[str, Any] = {"path": display_path(path)}
    if line is not None:
        entry["line"] = line
    errors = report.errors[:MAX_FINDINGS]
    warnings = report.warnings[: MAX_FINDINGS - len(errors)]
    entry.update(
        kind=report.kind,
        valid=report.valid,
        errors=[f.to_dict() for f in errors],
        warnings=[f.to_dict() for f in warnings],
    )
    omitted = len(report.errors) + len(report.warnings) - len(errors) - len(warnings)
    if omitted:
        entry["omitted"] = omitted
    return entry


def json_entry(entry: dict[str, Any]) -> str:
    """One entry of the JSON report, indented to sit in its ``files`` list."""
    import orjson

    try:
        text = orjson.dumps(entry, option=orjson.OPT_INDENT_2).decode("utf-8")
    except TypeError:  # a lone surrogate (a JSON text may escape one): the standard library writes it escaped
        text = json.dumps(entry, indent=2, ensure_ascii=False)
    return "    " + text.replace("\n", "\n    ")
