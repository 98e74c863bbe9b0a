"""Catalog tables embedded in a hand-written Markdown file, between two marker comments.

A catalog may name a file of the project (outside the output dir) that shows its records as a table: codegen
rewrites only the lines between ``<!-- codegen:<name> -->`` and ``<!-- /codegen:<name> -->`` (both required, once
each), and ``check`` reports the region as drift when it differs. Declared in ``pyproject.toml``::

    [[tool.codegen.catalogs]]
    name = "rules"
    ...
    [tool.codegen.catalogs.embed]
    file = "docs/SPEC.md"
    columns = [
      { field = "id", title = "ID", format = "code" },        # `value`
      { field = "kinds", title = "Kinds", format = "all" },   # "all" when the record has every value any record has
      { field = "statement", title = "Level", format = "rfc2119" },  # the first RFC 2119 keyword, "—" if none
      { field = "enforced_by", title = "Enforced by", with = "scope" },  # "value (scope)" when scope is set
    ]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .load import SchemaError

_RFC2119 = re.compile(r"\b(MUST NOT|SHALL NOT|SHOULD NOT|NOT RECOMMENDED|MUST|SHALL|SHOULD|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b")
FORMATS = ("text", "code", "all", "rfc2119")


@dataclass(frozen=True)
class Column:
    field: str
    title: str
    format: str = "text"
    with_field: str | None = None


@dataclass(frozen=True)
class Embed:
    file: str  # relative to the pyproject.toml
    columns: tuple[Column, ...]


def parse(spec: Any, where: str) -> Embed | None:
    if spec is None:
        return None
    if not isinstance(spec, dict) or not isinstance(spec.get("file"), str) or not isinstance(spec.get("columns"), list):
        raise SchemaError(where, "/tool/codegen/catalogs/embed", "an embed needs a string 'file' and a list of 'columns'")
    columns = []
    for column in spec["columns"]:
        if not isinstance(column, dict) or not isinstance(column.get("field"), str) or column.get("format", "text") not in FORMATS:
            raise SchemaError(where, "/tool/codegen/catalogs/embed/columns", f"a column needs a 'field' and a format among {FORMATS}")
        columns.append(Column(column["field"], str(column.get("title", column["field"])), column.get("format", "text"), column.get("with")))
    return Embed(spec["file"], tuple(columns))


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return " ".join(str(value).split()).replace("|", "\\|")


def table(embed: Embed, records: tuple[dict[str, Any], ...]) -> str:
    """The Markdown table of the records."""
    every: dict[str, list[Any]] = {}
    for column in embed.columns:
        if column.format == "all":
            seen: list[Any] = []
            for record in records:
                for value in record.get(column.field) or ():
                    if value not in seen:
                        seen.append(value)
            every[column.field] = seen
    lines = ["| " + " | ".join(c.title for c in embed.columns) + " |", "|" + "---|" * len(embed.columns)]
    for record in records:
        cells = []
        for column in embed.columns:
            value = record.get(column.field)
            if column.format == "code":
                cell = f"`{_text(value)}`"
            elif column.format == "all" and isinstance(value, list) and every[column.field] and set(value) >= set(every[column.field]):
                cell = "all"
            elif column.format == "rfc2119":
                found = _RFC2119.search(str(value or ""))
                cell = found.group(1) if found else "—"
            else:
                cell = _text(value)
            if column.with_field and record.get(column.with_field) is not None:
                cell += f" ({_text(record[column.with_field])})"
            cells.append(cell)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def splice(text: str, name: str, body: str, file: str) -> str:
    """``text`` with the region between the markers of catalog ``name`` replaced by ``body``."""
    begin, end = f"<!-- codegen:{name} -->\n", f"<!-- /codegen:{name} -->"
    if text.count(begin) != 1 or text.count(end) != 1 or text.index(begin) > text.index(end):
        raise SchemaError(file, "", f"needs the markers '{begin.strip()}' and '{end}' once each, in this order")
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + body + end + tail


def render(base: Path, name: str, embed: Embed, records: tuple[dict[str, Any], ...]) -> tuple[Path, str, str]:
    """(path, current text, text with the table regenerated) of one embedding file."""
    path = base / embed.file
    try:
        current = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SchemaError(str(path), "", f"cannot read the file a catalog table is embedded in: {exc}") from exc
    return path, current, splice(current, name, table(embed, records), embed.file)
