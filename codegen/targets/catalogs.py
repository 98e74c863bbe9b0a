"""Render catalogs (see ``codegen/catalog.py``) into ``python/``, ``typescript/`` and ``docs/`` files."""

from __future__ import annotations

import json
import re
from typing import Any

from ..catalog import Catalog
from ..render import environment


def _py_literal(value: Any) -> str:
    """A deterministic Python literal for a JSON value."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, (int, float, str)):
        return json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_py_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_py_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def _py_constant(value: Any) -> str:
    """A Python literal for a constant: arrays become tuples (immutable, precisely typed)."""
    if isinstance(value, list):
        items = [_py_constant(v) for v in value]
        return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {_py_constant(v)}" for k, v in value.items()) + "}"
    return _py_literal(value)


_NAMED_GROUP = re.compile(r"(?<!\\)\(\?<(?![=!])")


def python_regex(source: str) -> str:
    """An ECMA-262 regular expression in Python's ``re`` syntax: ``(?<name>`` becomes ``(?P<name>`` (lookbehinds
    ``(?<=`` / ``(?<!`` and escaped parentheses are left alone)."""
    return _NAMED_GROUP.sub("(?P<", source)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(_cell(v) for v in value)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return " ".join(text.split()).replace("|", "\\|")


def _comment(text: Any) -> str:
    return " ".join(str(text).split()).replace("*/", "*\\/")


def render(catalogs: tuple[Catalog, ...]) -> dict[str, bytes]:
    filters = {
        "py_literal": _py_literal,
        "py_constant": _py_constant,
        "python_regex": python_regex,
        "cell": _cell,
        "comment": _comment,
        "tojson": lambda v: json.dumps(v, ensure_ascii=False),
    }
    env = environment("catalog", filters)
    out: dict[str, bytes] = {}
    for catalog in catalogs:
        prefix = "constants_" if catalog.form == "constants" else ""
        for template, path in (
            (prefix + "python.py.j2", f"python/{catalog.name}.py"),
            (prefix + "typescript.ts.j2", f"typescript/{catalog.name}.ts"),
            (prefix + "docs.md.j2", f"docs/{catalog.name}.md"),
        ):
            out[path] = env.get_template(template).render(catalog=catalog).encode("utf-8")
    return out
