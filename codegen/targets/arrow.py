"""Arrow schemas: the root types named in ``[tool.codegen.options.arrow] roots`` as Arrow field trees, one JSON file
each (``<stem>.arrow.json``), readable without the generator (the runtime builds a ``pyarrow.Schema`` from it).

The mapping, decided once for every schema set:

- ``string`` → ``utf8``; ``integer`` → ``int64``; ``number`` → ``float64``; ``boolean`` → ``bool``;
- an enum (or ``const``) of strings → ``dictionary`` (int32 indices, utf8 values), its values listed;
- a ``string`` with ``format: date-time`` → the original text (``utf8``, so a document comes back byte for byte:
  offsets, fractional digits and ``Z`` are kept) *and* a sibling ``<name>__timestamp`` (``timestamp[us, UTC]``,
  null when the text has no microsecond UTC instant, e.g. a leap second) for queries;
- an object with declared properties that allows no others → ``struct`` (fields in schema order); an open object
  (any other properties allowed, whether or not it declares some: a struct could not hold the others), ``{}`` and
  ``true`` → ``json``: ``utf8`` holding the value's JSON text;
- an object whose additional properties are all of one type → ``map<utf8, T>``; an array → ``list<T>``;
- a union with ``null`` → the other member, nullable; a union of scalars only (``string`` | ``integer``) →
  ``json`` (its JSON text, so ``"42"`` and ``42`` stay apart);
- everything else (tuples, unions of objects, enums of non-strings, recursive types) is refused with its location.

Every field is nullable unless required and not nullable in the schema. What a column cannot say (absent vs
``null``, a property order other than the schema's, ``1`` vs ``1.0`` in a ``number``) is the runtime's to keep.
"""

from __future__ import annotations

import json
from typing import Any

from ..ir import IR, Array, Literal, Map, Named, NamedType, Primitive, TypeExpr, TypeRef, Union_, Unknown
from ..load import SchemaError, SchemaSet

TIMESTAMP_SUFFIX = "__timestamp"
_SCALARS = {"string": "utf8", "integer": "int64", "number": "float64", "boolean": "bool"}


class NotMappable(SchemaError):
    """A schema construct with no Arrow column type, at ``where`` (``file#pointer``)."""

    def __init__(self, where: str, message: str) -> None:
        file, _, pointer = where.partition("#")
        super().__init__(file, pointer, message)


def _format(constraints: tuple[tuple[str, Any], ...]) -> Any:
    return dict(constraints).get("format")


class _Mapper:
    def __init__(self, ir: IR) -> None:
        self.ir = ir
        self.open: list[TypeRef] = []  # the named types being mapped: a type inside itself is recursive

    def type_of(self, expr: TypeExpr, where: str, fmt: Any = None) -> dict[str, Any]:
        if isinstance(expr, Primitive):
            if expr.name not in _SCALARS:
                raise NotMappable(where, f"a value that can only be {expr.name} has no column type")
            if expr.name == "string" and fmt == "date-time":
                return {"kind": "date-time"}
            return {"kind": _SCALARS[expr.name]}
        if isinstance(expr, Literal):
            return self._literal(expr.values, where)
        if isinstance(expr, Named):
            return self._named(expr.ref, where)
        if isinstance(expr, Array):
            return {"kind": "list", "item": self.field("item", expr.items, True, where + "/items")}
        if isinstance(expr, Map):
            if isinstance(expr.values, Unknown):
                return {"kind": "json"}
            return {"kind": "map", "value": self.field("value", expr.values, True, where + "/additionalProperties")}
        if isinstance(expr, Unknown):
            return {"kind": "json"}
        if isinstance(expr, Union_):
            members = [m for m in expr.members if m != Primitive("null")]
            if len(members) == 1:
                return self.type_of(members[0], where, fmt)
            if all(isinstance(m, Primitive) and m.name in _SCALARS for m in members):
                return {"kind": "json"}
            raise NotMappable(where, f"a union of {len(members)} non-scalar types has no column type")
        raise NotMappable(where, f"{type(expr).__name__.lower()} has no column type")

    def _literal(self, values: tuple[Any, ...], where: str) -> dict[str, Any]:
        if all(isinstance(v, str) for v in values):
            return {"kind": "dictionary", "values": list(values)}
        raise NotMappable(where, "an enum of values other than strings has no column type")

    def _named(self, ref: TypeRef, where: str) -> dict[str, Any]:
        if ref in self.open:
            raise NotMappable(where, f"{ref.file}#{ref.name} contains itself; a recursive type has no column type")
        named: NamedType = self.ir.get(ref)
        here = f"{ref.file}#/$defs/{ref.name}" if not named.is_root else f"{ref.file}#"
        self.open.append(ref)
        try:
            if named.kind == "enum":
                return self._literal(named.values, here)
            if named.kind == "alias":
                assert named.type is not None
                return self.type_of(named.type, here, _format(named.constraints))
            if named.bases:
                raise NotMappable(here, "an object built with allOf has no column type here")
            if named.additional == "open":  # its declared properties are some of its keys, not all
                return {"kind": "json"}
            if not named.fields:
                if named.additional == "typed" and named.additional_type is not None:
                    return self.type_of(Map(named.additional_type), here)
                raise NotMappable(here, "an object that allows no properties has no column type")
            return {"kind": "struct", "fields": self.fields(named, here)}
        finally:
            self.open.pop()

    def field(self, name: str, expr: TypeExpr, nullable: bool, where: str, fmt: Any = None) -> dict[str, Any]:
        return {"name": name, "nullable": nullable, "type": self.type_of(expr, where, fmt)}

    def property(self, f: Any, where: str) -> dict[str, Any]:
        """A declared property: also whether it is required and whether JSON ``null`` is one of its values."""
        column = self.field(f.name, f.type, f.nullable or not f.required, where, _format(f.constraints))
        column.update(required=f.required, null=f.nullable)
        return column

    def fields(self, named: NamedType, where: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for f in named.fields:
            column = self.property(f, f"{where}/properties/{f.name}")
            if column["type"]["kind"] == "date-time":
                column["type"] = {"kind": "utf8", "format": "date-time"}
                out.append(column)
                stamp = {"kind": "timestamp", "unit": "us", "tz": "UTC", "of": f.name}
                out.append({"name": f.name + TIMESTAMP_SUFFIX, "nullable": True, "type": stamp})
                continue
            out.append(column)
        return out


def _plain(node: Any) -> Any:
    """Date-times that are not fields of an object (list items, map values) are their text only."""
    if isinstance(node, dict):
        if node.get("kind") == "date-time":
            return {"kind": "utf8", "format": "date-time"}
        return {k: _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node


def schema_of(ir: IR, file: str) -> dict[str, Any]:
    """The Arrow field tree of the root type of ``file``; :class:`NotMappable` if some part has no column type."""
    module = next((m for m in ir.modules if m.file == file), None)
    if module is None or module.root is None:
        raise NotMappable(file, "not a schema file with a root object type")
    root = ir.get(TypeRef(file, module.root))
    if root.kind != "object" or not root.fields:
        raise NotMappable(file, "the root is not an object with declared properties")
    mapper = _Mapper(ir)
    mapper.open.append(TypeRef(file, module.root))
    source = None if module.uri.startswith("file:") else module.uri  # no absolute path of this machine (no $id)
    return {"source": source, "root": module.root, "fields": _plain(mapper.fields(root, file + "#"))}


def render(ir: IR, schemas: SchemaSet, options: dict[str, Any]) -> dict[str, bytes]:
    roots = options.get("roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        raise NotMappable("pyproject.toml", "[tool.codegen.options.arrow] roots: a list of schema file names")
    out: dict[str, bytes] = {}
    for file in roots:
        tree = schema_of(ir, file)
        stem = file.rsplit(".", 1)[0]
        out[f"{stem}.arrow.json"] = (json.dumps(tree, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    return out
