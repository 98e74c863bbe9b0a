"""The JSON report: one entry per document (``--format json``; the report's own JSON Schema describes it)."""

from __future__ import annotations

import json

from .entry import ReportEntry
from .entry import entry as entry  # the CLI builds its entries here (re-exported)


def json_entry(entry: ReportEntry) -> str:
    """One entry of the JSON report, indented to sit in its ``files`` list."""
    import orjson

    data = entry.to_dict()
    try:
        text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode("utf-8")
    except TypeError:  # a lone surrogate (a JSON text may escape one): the standard library writes it escaped
        text = json.dumps(data, indent=2, ensure_ascii=False)
    return "    " + text.replace("\n", "\n    ")
