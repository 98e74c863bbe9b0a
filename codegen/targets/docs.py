"""Markdown target: one page per schema file (``<stem>.md``) plus ``index.md``, from ``templates/docs/*.j2``.

Each named type gets an anchor ``<a id="<Name>"></a>`` and a table: property, type (linked to the defining
type, across pages), required, nullable, default, constraints, deprecation, description. Deprecated rows are
always shown. Each type ends with the rules the generated types do not enforce (conditionals etc.), with their
JSON Pointer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..ir import IR, Array, Literal, Map, Named, Never, Primitive, Tuple, TypeExpr, TypeRef, Union_, Unknown
from ..load import SchemaSet
from ..render import environment


def md_type(expr: TypeExpr | None, current: str, pages: dict[str, str]) -> str:
    if expr is None or isinstance(expr, Unknown):
        return "any"
    if isinstance(expr, Never):
        return "nothing"
    if isinstance(expr, Primitive):
        return f"`{expr.name}`"
    if isinstance(expr, Literal):
        return " \\| ".join(f"`{json.dumps(v, ensure_ascii=False)}`" for v in expr.values)
    if isinstance(expr, Named):
        return link(expr.ref, current, pages)
    if isinstance(expr, Array):
        return "array of " + md_type(expr.items, current, pages)
    if isinstance(expr, Tuple):
        s = "tuple [" + ", ".join(md_type(p, current, pages) for p in expr.prefix) + "]"
        return s + (", then " + md_type(expr.rest, current, pages) if expr.rest is not None else "")
    if isinstance(expr, Map):
        return "map of " + md_type(expr.values, current, pages)
    if isinstance(expr, Union_):
        s = " \\| ".join(md_type(m, current, pages) for m in expr.members)
        return s + (f" (tagged by `{expr.discriminator}`)" if expr.discriminator else "")
    raise TypeError(expr)


def link(ref: TypeRef, current: str, pages: dict[str, str]) -> str:
    page = "" if ref.file == current else pages[ref.file]
    return f"[{ref.name}]({page}#{ref.name})"


def cell(text: Any) -> str:
    if text is None or text == "":
        return ""
    return " ".join(str(text).split()).replace("|", "\\|")


def constraints_text(constraints: tuple[tuple[str, Any], ...]) -> str:
    return ", ".join(f"{k}: `{v if isinstance(v, str) else json.dumps(v)}`" for k, v in constraints).replace("|", "\\|")


def _tidy(text: str) -> str:
    """At most one blank line in a row, exactly one newline at the end."""
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def render(ir: IR, schemas: SchemaSet) -> dict[str, bytes]:
    env = environment("docs", {"cell": cell, "json": lambda v: json.dumps(v, ensure_ascii=False)})
    pages = {m.file: f"{m.stem}.md" for m in ir.modules}
    out: dict[str, bytes] = {}
    for module in ir.modules:
        text = env.get_template("page.md.j2").render(
            module=module,
            type_text=lambda e, n=False, _c=module.file: md_type(e, _c, pages) + (" \\| `null`" if n else ""),
            link=lambda r, _c=module.file: link(r, _c, pages),
            constraints=constraints_text,
        )
        out[pages[module.file]] = _tidy(text).encode("utf-8")
    out["index.md"] = env.get_template("index.md.j2").render(modules=ir.modules, pages=pages).encode("utf-8")
    return out
