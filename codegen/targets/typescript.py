"""TypeScript target: our own Jinja2 templates over the IR (``templates/typescript/*.j2``).

Layout: one ``<stem>.ts`` per schema file plus ``index.ts`` that re-exports each file's root type and each
module as a namespace. Cross-file references use ``import type * as <stem> from "./<stem>.js"`` (type-only, so
no runtime code is emitted and names from different files never collide).

Mapping:

- object → ``export interface``; ``allOf`` of ``$ref``s → ``extends``; an open object (``additionalProperties``
  absent or ``true``, or a schema) gets ``[key: string]: unknown``, a closed one none;
- required → ``name: T``, optional → ``name?: T``; ``"null"`` in the schema → ``T | null``. Optional and nullable
  are independent, exactly as in the schema;
- ``enum``/``const`` → literal unions; ``oneOf``/``anyOf`` → unions (the const tag of a tagged union is marked
  ``readonly`` so narrowing on it stays sound);
- ``readonly`` otherwise only where the schema says ``readOnly: true`` — instances are plain JSON that callers
  build and edit, so blanket ``readonly`` would get in their way;
- beside each type ``X``, ``isX(value): value is X`` and ``validateX(value)`` (its findings) check a value against X's
  own schema with Ajv (``_validate.ts``, over the bundled schema files of ``_schemas.ts``): same verdicts as the
  schema, including what a type cannot say (conditionals, bounds, patterns, ``oneOf`` exclusivity);
- JSDoc carries the description, the constraints (``@minimum``, ``@pattern``, ``@format``, ...), ``@default``
  and ``@deprecated <canonical message>``.
"""

from __future__ import annotations

import json
from typing import Any

from ..ir import IR, Array, Field, Literal, Map, Named, NamedType, Never, Primitive, Tuple, TypeExpr, Union_, Unknown
from ..load import SchemaSet
from ..render import environment
from .bundle import bundle

_PRIMITIVES = {"string": "string", "integer": "Integer", "number": "number", "boolean": "boolean", "null": "null"}
# JSON numbers carry no integer type; the schema does. A phantom optional property keeps that visible to tsc (a type
# test can tell ``Integer`` from ``number``) while every number literal, and every ``Integer`` used as a number,
# still type-checks. Declared in each module that uses it (identical, so interchangeable), re-exported by the index.
INTEGER_ALIAS = (
    "/** A JSON Schema `integer`: a number with no fractional part (JSON itself has no integer type). */\n"
    'export type Integer = number & { readonly "json-schema-type"?: "integer" };\n'
)


def ts_type(expr: TypeExpr | None, current: str, aliases: dict[str, str]) -> str:
    if expr is None or isinstance(expr, Unknown):
        return "unknown"
    if isinstance(expr, Never):
        return "never"
    if isinstance(expr, Primitive):
        return _PRIMITIVES[expr.name]
    if isinstance(expr, Literal):
        return (
            " | ".join(json.dumps(v, ensure_ascii=False) if not isinstance(v, (dict, list)) else "unknown" for v in expr.values) or "never"
        )
    if isinstance(expr, Named):
        if expr.ref.file == current:
            return expr.ref.name
        return f"{aliases[expr.ref.file]}.{expr.ref.name}"
    if isinstance(expr, Array):
        inner = ts_type(expr.items, current, aliases)
        return f"Array<{inner}>" if "|" in inner or "&" in inner else f"{inner}[]"
    if isinstance(expr, Tuple):
        parts = [ts_type(p, current, aliases) for p in expr.prefix]
        if expr.rest is not None:
            parts.append("..." + ts_type(Array(expr.rest), current, aliases))
        return "[" + ", ".join(parts) + "]"
    if isinstance(expr, Map):
        return "{ [key: string]: " + ts_type(expr.values, current, aliases) + " }"
    if isinstance(expr, Union_):
        return " | ".join(ts_type(m, current, aliases) for m in expr.members)
    raise TypeError(expr)


def _doc_value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def jsdoc(
    description: str | None,
    constraints: tuple[tuple[str, Any], ...] = (),
    deprecation: Any = None,
    default: tuple[bool, Any] = (False, None),
    indent: str = "",
    remarks: tuple[str, ...] = (),
) -> str:
    lines: list[str] = []
    if description:
        lines.extend(description.strip().splitlines())
    lines.extend(remarks)
    for key, value in constraints:
        lines.append(f"@{key} {_doc_value(value)}")
    if default[0]:
        lines.append(f"@default {json.dumps(default[1], ensure_ascii=False)}")
    if deprecation is not None:
        lines.append(f"@deprecated {deprecation.message}")
    if not lines:
        return ""
    lines = [line.replace("*/", "*\\/").rstrip() for line in lines]
    if len(lines) == 1:
        return f"{indent}/** {lines[0]} */\n"
    return f"{indent}/**\n" + "".join(f"{indent} * {line}\n" if line else f"{indent} *\n" for line in lines) + f"{indent} */\n"


def _prop_name(name: str) -> str:
    import re

    return name if re.match(r"^[A-Za-z_$][A-Za-z0-9_$]*$", name) else json.dumps(name)


def render(ir: IR, schemas: SchemaSet) -> dict[str, bytes]:
    env = environment("typescript")
    all_files = [m.file for m in ir.modules]
    out: dict[str, bytes] = {}
    for module in ir.modules:
        local_names = {t.name for t in module.types}
        used = sorted({r.file for t in module.types for r in _refs(t)} - {module.file}, key=all_files.index)
        stems = {m.file: m.stem for m in ir.modules}
        aliases = {f: (stems[f] if stems[f] not in local_names else stems[f] + "_module") for f in all_files}

        def t(expr: TypeExpr | None, _cur: str = module.file, _al: dict[str, str] = aliases) -> str:
            return ts_type(expr, _cur, _al)

        tagged = _tags(ir, module.types)
        text = env.get_template("module.ts.j2").render(
            module=module,
            imports=[(aliases[f], stems[f]) for f in used],
            integer_alias=INTEGER_ALIAS if _uses_integer(module.types) else "",
            ts=t,
            jsdoc=jsdoc,
            field_doc=_field_doc,
            type_doc=_type_doc,
            prop=_prop_name,
            js=lambda value: json.dumps(value, ensure_ascii=False),
            where=lambda location: str(location).replace("*/", "*\\/"),
            tagged=tagged,
            # the template is rendered in this iteration, so the closures see this module's `t`
            nullable=lambda expr, n: t(expr) + (" | null" if n else ""),  # noqa: B023
            extends=lambda nt: (" extends " + ", ".join(t(Named(b)) for b in nt.bases)) if nt.bases else "",  # noqa: B023
        )
        out[f"{module.stem}.ts"] = text.encode("utf-8")
    roots = {m.root for m in ir.modules if m.root}
    # a module namespace named like a re-exported root type (GeoJSON.json's root GeoJSON) takes a suffix
    namespaces = {m.file: m.stem + "_module" if m.stem in roots else m.stem for m in ir.modules}
    integer_module = next((m.stem for m in ir.modules if _uses_integer(m.types)), None)
    out["_deprecations.ts"] = _deprecations(ir).encode("utf-8")
    out["_schemas.ts"] = _schemas(schemas).encode("utf-8")
    out["_validate.ts"] = env.get_template("_validate.ts.j2").render().encode("utf-8")
    out["index.ts"] = (
        env.get_template("index.ts.j2").render(modules=ir.modules, namespaces=namespaces, integer_module=integer_module).encode("utf-8")
    )
    return out


def _uses_integer(types: tuple[NamedType, ...]) -> bool:
    def walk(e: TypeExpr | None) -> bool:
        if isinstance(e, Primitive):
            return e.name == "integer"
        if isinstance(e, Array):
            return walk(e.items)
        if isinstance(e, Map):
            return walk(e.values)
        if isinstance(e, Tuple):
            return any(walk(p) for p in (*e.prefix, e.rest))
        if isinstance(e, Union_):
            return any(walk(m) for m in e.members)
        return False

    return any(walk(e) for t in types for e in (*(f.type for f in t.fields), t.type, t.additional_type))


def _type_doc(t: NamedType) -> str:
    # the type cannot say it; its guard checks it (is<Name>/validate<Name> check the whole schema)
    remarks = tuple(f"@remarks Not expressed by this type (checked by `is{t.name}`): `{r.keyword}` at {r.location}" for r in t.rules)
    return jsdoc(t.description, t.constraints if t.kind != "object" else (), t.deprecation, remarks=remarks)


def _field_doc(f: Field) -> str:
    return jsdoc(f.description, f.constraints, f.deprecation, (f.has_default, f.default), indent="  ")


def _tags(ir: IR, types: tuple[NamedType, ...]) -> set[tuple[str, str]]:
    """(type name, property) pairs that are the const tag of a tagged union."""
    out: set[tuple[str, str]] = set()
    for module in ir.modules:
        for t in module.types:
            for expr in [f.type for f in t.fields] + ([t.type] if t.type else []):
                for u in _unions(expr):
                    if u.discriminator:
                        for m in u.members:
                            if isinstance(m, Named):
                                out.add((m.ref.file + "#" + m.ref.name, u.discriminator))
    return {(name.split("#", 1)[1], prop) for name, prop in out if any(name == f"{t.file}#{t.name}" for t in types)}


def _unions(expr: TypeExpr | None) -> list[Union_]:
    if isinstance(expr, Union_):
        return [expr, *[u for m in expr.members for u in _unions(m)]]
    if isinstance(expr, Array):
        return _unions(expr.items)
    if isinstance(expr, Map):
        return _unions(expr.values)
    return []


def _refs(t: NamedType) -> list[Any]:
    exprs: list[TypeExpr | None] = [*(f.type for f in t.fields), t.type, t.additional_type]
    refs: list[Any] = list(t.bases)
    for e in exprs:
        refs.extend(_expr_refs(e))
    return refs


def _expr_refs(e: TypeExpr | None) -> list[Any]:
    if isinstance(e, Named):
        return [e.ref]
    if isinstance(e, Array):
        return _expr_refs(e.items)
    if isinstance(e, Map):
        return _expr_refs(e.values)
    if isinstance(e, Tuple):
        return [r for p in (*e.prefix, e.rest) for r in _expr_refs(p)]
    if isinstance(e, Union_):
        return [r for m in e.members for r in _expr_refs(m)]
    return []


def _deprecations(ir: IR) -> str:
    """``DEPRECATIONS``: every deprecated location (``<file>#<JSON Pointer>``) and how a value there is reported: the
    ledger's DEPRECATED_FIELD message variant and its parameters (the SDK adds ``name``)."""
    entries = "".join(
        f"  {json.dumps(str(loc), ensure_ascii=False)}: {json.dumps(dep.finding(), ensure_ascii=False)},\n" for loc, dep in ir.deprecations
    )
    return (
        "// generated by codegen from (every schema: the deprecated locations); do not edit\n"
        "/** Every deprecated location of the schemas (`<file>#<JSON Pointer>`): the DEPRECATED_FIELD message variant and\n"
        " * parameters of a value there (rendered with the ledger's template; `name` is the property's). */\n"
        "export const DEPRECATIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {\n" + entries + "};\n"
    )


def _schemas(schemas: SchemaSet) -> str:
    """``BUNDLES``: every schema file as JSON text, bundled (each file it reaches embedded, every ``$ref`` local), as
    the Python target's ``_schemas.py``: what ``isX``/``validateX`` check a value against (``_validate.ts``)."""
    entries = "".join(
        f"  {json.dumps(f.name, ensure_ascii=False)}: "
        f"{json.dumps(json.dumps(_for_ajv(bundle(schemas, f.name)), ensure_ascii=False, separators=(',', ':')), ensure_ascii=False)},\n"
        for f in schemas.files
    )
    return (
        "// generated by codegen from (every schema, bundled); do not edit\n"
        "/** Every schema file, bundled: what the generated type guards check a value against (`_validate.ts`). */\n"
        "export const BUNDLES: Readonly<Record<string, string>> = {\n" + entries + "};\n"
    )


# keywords whose value maps names to schemas, and those whose value is data (never a schema)
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_DATA = ("enum", "const", "default", "examples")


def _for_ajv(node: Any) -> Any:
    """The same schema, spelled so that Ajv reads it as JSON Schema means it: Ajv skips a property named
    ``__proto__`` under ``properties`` (its guard against prototype pollution), so that one is checked through
    ``patternProperties`` ``^__proto__$`` of the same schema (the same members matched, the same ones evaluated)."""
    if isinstance(node, list):
        return [_for_ajv(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DATA:
            out[key] = value
        elif key in _NAMED and isinstance(value, dict):
            out[key] = {name: _for_ajv(schema) for name, schema in value.items()}
        else:
            out[key] = _for_ajv(value)
    properties = out.get("properties")
    if isinstance(properties, dict) and "__proto__" in properties:
        out["properties"] = {name: schema for name, schema in properties.items() if name != "__proto__"}
        patterns = dict(out.get("patternProperties") or {})
        exact = "^__proto__$"
        schema = properties["__proto__"]
        patterns[exact] = {"allOf": [patterns[exact], schema]} if exact in patterns else schema
        out["patternProperties"] = patterns
    return out
