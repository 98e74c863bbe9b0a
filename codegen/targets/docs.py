"""Markdown target: one page per schema file (``<stem>.md``) plus ``index.md``, from ``templates/docs/*.j2``.

Each named type gets an anchor ``<a id="<Name>"></a>`` and a table: property, type (linked to the defining
type, across pages), required, nullable, default, constraints, deprecation, description. Deprecated rows are
always shown. A conditional parameter set (``if`` one property is a value — ``const``, ``enum`` or ``not enum`` —
``then`` properties, and the properties of an object property, required or constrained) is one table per variant,
"When `<property>` is …" (``variant``). Each type ends with the other rules the generated types cannot express
(conditionals etc.), with their JSON Pointer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..ir import IR, Array, Literal, Map, Named, Never, Primitive, Rule, Tuple, TypeExpr, TypeRef, Union_, Unknown
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


# the keywords shown in a variant table's Constraints column
_VARIANT_CONSTRAINTS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
)


@dataclass(frozen=True)
class Variant:
    """A conditional parameter set: ``if`` one property has a given value (``const``, ``enum``, or ``not`` ``enum``),
    ``then`` some properties (and the properties of an object property) are required or constrained."""

    location: str
    name: str
    test: str  # "is", "is one of" or "is none of"
    values: tuple[Any, ...]
    requires: tuple[str, ...]
    rows: tuple[tuple[str, bool, dict[str, Any]], ...]  # (dotted property path, required, its schema)
    notes: tuple[tuple[str, str], ...] = ()  # the rule's "$comment" and "x-*" notes


def variant(rule: Rule) -> Variant | None:
    """The rule as a conditional parameter set, when it is one (else ``None``: it stays a rule in the list)."""
    if rule.keyword != "if":
        return None
    try:
        schema = json.loads(rule.schema)
    except ValueError:
        return None
    condition, then = (schema.get("if"), schema.get("then")) if isinstance(schema, dict) else (None, None)
    if not isinstance(condition, dict) or not isinstance(then, dict) or "else" in schema:
        return None
    tested = condition.get("properties")
    if not isinstance(tested, dict) or len(tested) != 1 or set(condition) - {"properties", "required"}:
        return None
    ((name, test),) = tested.items()
    if not isinstance(test, dict) or len(test) != 1:
        return None
    negated = test.get("not")
    if "const" in test:
        how, values = "is", [test["const"]]
    elif isinstance(test.get("enum"), list):
        how, values = "is one of", test["enum"]
    elif isinstance(negated, dict) and set(negated) == {"enum"} and isinstance(negated["enum"], list):
        how, values = "is none of", negated["enum"]
    else:
        return None
    properties = then.get("properties", {})
    required = then.get("required", [])
    if set(then) - {"properties", "required"} or not isinstance(properties, dict) or not isinstance(required, list):
        return None
    rows: list[tuple[str, bool, dict[str, Any]]] = []
    for prop, sub in properties.items():
        if not isinstance(sub, dict):
            return None
        inner, inner_required = sub.get("properties"), sub.get("required", [])
        if isinstance(inner, dict) and isinstance(inner_required, list) and not set(sub) - {"properties", "required"}:
            rows.extend((f"{prop}.{key}", key in inner_required, value if isinstance(value, dict) else {}) for key, value in inner.items())
        else:
            rows.append((prop, prop in required, sub))
    return Variant(str(rule.location), name, how, tuple(values), tuple(str(r) for r in required), tuple(rows), rule.notes)


def schema_type(schema: dict[str, Any]) -> str:
    """A property's type in a variant table, from its schema's ``type``, ``const`` or ``enum``."""
    if "const" in schema:
        return f"`{json.dumps(schema['const'], ensure_ascii=False)}`"
    if isinstance(schema.get("enum"), list):
        return " \\| ".join(f"`{json.dumps(v, ensure_ascii=False)}`" for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " \\| ".join(f"`{k}`" for k in kind)
    return f"`{kind}`" if isinstance(kind, str) else "any"


def schema_constraints(schema: dict[str, Any]) -> str:
    return constraints_text(tuple((k, schema[k]) for k in _VARIANT_CONSTRAINTS if k in schema))


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
            variants=lambda rules: [v for v in map(variant, rules) if v is not None],
            plain_rules=lambda rules: [r for r in rules if variant(r) is None],
            schema_type=schema_type,
            schema_constraints=schema_constraints,
        )
        out[pages[module.file]] = _tidy(text).encode("utf-8")
    out["index.md"] = env.get_template("index.md.j2").render(modules=ir.modules, pages=pages).encode("utf-8")
    return out
