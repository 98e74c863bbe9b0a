"""Catalogs: constants generated from a data table (a JSON file holding an array of records).

A schema set often comes with a table of stable identifiers that code must not restate by hand (error
codes, rule IDs, event names). A catalog turns such a table into a Python module, a TypeScript module and a
Markdown table, and the drift check covers it like everything else. Catalogs are declared in the
``[tool.codegen]`` table of ``pyproject.toml``::

    [[tool.codegen.catalogs]]
    name = "rules"                 # output file stem in python/, typescript/ and docs/
    source = "data/rules.json"     # relative to the pyproject.toml
    items = "/rules"               # JSON Pointer to the array of records
    key = "id"                     # the field holding each constant's name (an identifier)
    doc = "statement"              # optional: the field used as each constant's doc comment
    title = "Rules"                # heading of the docs page
    columns = ["id", "severity"]   # docs table columns, in order
    groups = ["unit"]              # optional: fields to group the records' keys by (RULES_BY_UNIT below)

A field named in ``groups`` gets a table of its own: ``{NAME}_BY_{FIELD}`` (upper case) maps each value the field
takes (a string) to the keys of the records that have it, in the records' order, values in the order they first
occur; records without the field are in no group. It is how a table of records names, say, the implementation of
each record (a rule's ``unit``) so that code binds names once instead of restating every key::

    RULES_BY_UNIT: Final[dict[str, tuple[str, ...]]] = {"reader": ("INVALID_JSON", "DUPLICATE_KEY"), ...}

A catalog of ``form = "constants"`` is a table of named values instead: ``items`` points at a JSON object whose
members are ``NAME: {"value": <any JSON value>, "description": "...", "regex"?: true}``; each becomes a typed constant
(``NAME: Final = <value>`` in Python, arrays as tuples; ``export const NAME = <value> as const`` in TypeScript)
documented by its description, and a row of the docs table. A value marked ``"regex": true`` is a regular
expression written once in ECMA-262 syntax; Python's module gets its ``re`` form (named groups ``(?<name>…)``
become ``(?P<name>…)``, the one syntax the two dialects spell differently for what such a pattern uses)::

    [[tool.codegen.catalogs]]
    name = "constants"
    source = "data/constants.json"
    items = "/constants"
    form = "constants"
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .embed import Embed, parse
from .load import SchemaError

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Catalog:
    name: str
    source: str
    title: str
    key: str
    doc: str | None
    columns: tuple[str, ...]
    records: tuple[dict[str, Any], ...]
    form: str = "records"  # "records" | "constants"
    embed: Embed | None = None  # a table of the records inside a hand-written file (codegen/embed.py)
    groups: tuple[str, ...] = ()  # fields whose values group the records' keys (``grouped``)

    def grouped(self, field: str) -> dict[str, tuple[str, ...]]:
        """The keys of the records by their value of ``field``: values in the order they first occur, keys in the
        records' order; a record without the field is in no group."""
        out: dict[str, list[str]] = {}
        for record in self.records:
            if field in record:
                out.setdefault(record[field], []).append(record[self.key])
        return {value: tuple(keys) for value, keys in out.items()}


def _pointer_get(document: Any, pointer: str, file: str) -> Any:
    node = document
    for token in (t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:] if pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise SchemaError(file, pointer, "catalog items pointer does not resolve")
    return node


def load_catalog(spec: dict[str, Any], base: Path) -> Catalog:
    """Read one catalog declaration and its records; every problem is a SchemaError naming file and pointer."""
    where = "pyproject.toml"
    for required in ("name", "source") if spec.get("form") == "constants" else ("name", "source", "key"):
        if not isinstance(spec.get(required), str):
            raise SchemaError(where, "/tool/codegen/catalogs", f"a catalog needs a string {required!r}")
    name = spec["name"]
    if not _IDENTIFIER.match(name):
        raise SchemaError(where, "/tool/codegen/catalogs", f"catalog name {name!r} is not an identifier")
    path = base / spec["source"]
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SchemaError(str(path), "", f"cannot read catalog source: {exc}") from exc
    items_pointer = spec.get("items", "")
    items = _pointer_get(document, items_pointer, str(path))
    form = spec.get("form", "records")
    if form not in ("records", "constants"):
        raise SchemaError(where, "/tool/codegen/catalogs", f"catalog form {form!r} is not 'records' or 'constants'")
    if form == "constants":
        return _constants(spec, name, path, document, items_pointer)
    if not isinstance(items, list):
        raise SchemaError(str(path), items_pointer, "catalog items must be an array of objects")
    key, seen = spec["key"], set()
    for index, record in enumerate(items):
        at = f"{items_pointer}/{index}"
        if not isinstance(record, dict) or not isinstance(record.get(key), str) or not _IDENTIFIER.match(record[key]):
            raise SchemaError(str(path), at, f"each record needs an identifier in {key!r}")
        if record[key] in seen:
            raise SchemaError(str(path), f"{at}/{key}", f"duplicate {key} {record[key]!r}")
        seen.add(record[key])
    columns = tuple(spec.get("columns") or [key])
    groups = spec.get("groups", [])
    if not isinstance(groups, list) or not all(isinstance(g, str) and _IDENTIFIER.match(g) for g in groups):
        raise SchemaError(where, "/tool/codegen/catalogs/groups", "groups must be a list of field names (identifiers)")
    for index, record in enumerate(items):
        for group in groups:
            if group in record and not isinstance(record[group], str):
                raise SchemaError(str(path), f"{items_pointer}/{index}/{group}", f"a record's {group!r} groups it: it must be a string")
    return Catalog(
        name=name,
        source=spec["source"],
        title=str(spec.get("title", name)),
        key=key,
        doc=spec.get("doc"),
        columns=columns,
        records=tuple(items),
        embed=parse(spec.get("embed"), where),
        groups=tuple(groups),
    )


def _constants(spec: dict[str, Any], name: str, path: Path, document: Any, items_pointer: str) -> Catalog:
    items = _pointer_get(document, items_pointer, str(path))
    if not isinstance(items, dict):
        raise SchemaError(str(path), items_pointer, "a constants catalog's items must be an object of NAME: {value, description}")
    records = []
    for key, entry in items.items():
        at = f"{items_pointer}/{key}"
        if not _IDENTIFIER.match(key):
            raise SchemaError(str(path), at, f"constant name {key!r} is not an identifier")
        if not isinstance(entry, dict) or "value" not in entry or not isinstance(entry.get("description"), str):
            raise SchemaError(str(path), at, "each constant needs a value and a string description")
        if "regex" in entry and (entry["regex"] is not True or not isinstance(entry["value"], str)):
            raise SchemaError(str(path), at, "regex: true marks a string value (an ECMA-262 regular expression)")
        records.append({"name": key, "value": entry["value"], "description": entry["description"], "regex": entry.get("regex", False)})
    return Catalog(
        name=name,
        source=spec["source"],
        title=str(spec.get("title", name)),
        key="name",
        doc="description",
        columns=("name", "value", "description"),
        records=tuple(records),
        form="constants",
    )


def load_config(pyproject: Path) -> dict[str, Any]:
    """The ``[tool.codegen]`` table, or an empty one when there is no such file or table."""
    import tomllib

    if not pyproject.is_file():
        return {}
    with pyproject.open("rb") as handle:
        table = tomllib.load(handle).get("tool", {}).get("codegen", {})
    return table if isinstance(table, dict) else {}
