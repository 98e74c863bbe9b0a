"""msgspec target: ``msgspec.Struct`` types that check, while JSON is decoded, what a type can say of a schema.

Files: ``<stem>.py`` per schema file (its object types as Structs), ``__init__.py`` (every module, the root type of
each schema file in ``ROOTS``, and the ``RESIDUAL`` and ``DEPRECATED`` tables) and ``py.typed``.

Mapping (read from the schema itself, with the IR's names for its object types):

- an object with properties (or ``allOf`` bases) → ``msgspec.Struct`` (``kw_only``, ``omit_defaults``), its
  ``allOf`` bases flattened into it; ``forbid_unknown_fields=True`` where ``additionalProperties`` (or
  ``unevaluatedProperties``) is ``false``; an object without properties → ``dict[str, T]``;
- required → ``T``; optional → ``T | UnsetType = UNSET`` (absent stays absent); ``null`` allowed → ``| None``;
- ``enum``/``const`` of strings, integers and ``null`` → ``Literal[...]``; a ``oneOf``/``anyOf`` of objects told
  apart by a required ``const`` property (IR ``discriminator``) → a tagged union (``tag_field``/``tag``); another
  union only where msgspec can hold it and its branches cannot overlap;
- ``minimum``/``maximum``/exclusive bounds, ``minLength``/``maxLength``, ``minItems``/``maxItems``,
  ``minProperties``/``maxProperties`` of a map, ``multipleOf`` of integers and the ``pattern`` of a string (only a
  pattern that Python's ``re`` and ECMA-262 read alike: no ``.``, no class escapes, ``$`` only at its end) →
  ``Annotated[T, Meta(...)]``.

What a type cannot say is never dropped: every keyword of a schema node that its type does not claim (``format``,
conditionals, ``uniqueItems``, ``patternProperties``, unions msgspec cannot hold, a ``$ref`` with siblings, ...)
is a row of ``RESIDUAL`` — (type, property, keyword, location, why): the Struct, the property whose value holds
it (``""``: the object itself) and the keyword's location — and the type accepts any value there. So a value the
types reject may still be valid (a ``1.0`` for an integer, a shorter ``prefixItems`` array), but a value the types
accept is valid for every keyword not listed: a caller checks the listed ones on the decoded values, or gives the
document to a complete JSON Schema implementation. ``DEPRECATED`` lists (type, property) of every deprecated property.

An open object with such a rule about its members (``propertyNames``, ``patternProperties``, ``if``, ...) is a
``dict[str, Any]``, its properties listed too: a Struct would drop the members it does not declare, which the
rule may be about. msgspec's reading is strict JSON (no ``NaN``, no lone surrogate, UTF-8 only), but of a key
written twice in one object it keeps the last: a caller that must refuse repeated keys checks for them itself.
"""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass, field
from typing import Any

from ..ir import ANNOTATION_KEYWORDS, HANDLED_KEYWORDS, IR, RULE_KEYWORDS, NamedType, TypeRef, Union_, json_type
from ..load import Location, SchemaSet
from ..render import environment

# keywords a node may carry that say nothing a value must satisfy here (besides the annotations)
_NEUTRAL = ANNOTATION_KEYWORDS | {"$dynamicAnchor", "$anchor"}
# what may be left unchecked: the assertions and applicators of draft 2020-12, and the rules codegen reads from
# annotations (codegen.annotated); any other keyword is an annotation (draft 2020-12 §6.5)
_MEANINGFUL = (HANDLED_KEYWORDS | RULE_KEYWORDS | {"x-unique", "x-references"}) - ANNOTATION_KEYWORDS
_JSON_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
_BOUNDS = {"minimum": "ge", "maximum": "le", "exclusiveMinimum": "gt", "exclusiveMaximum": "lt"}
_LENGTHS = {
    "string": {"minLength": "min_length", "maxLength": "max_length"},
    "array": {"minItems": "min_length", "maxItems": "max_length"},
    "object": {"minProperties": "min_length", "maxProperties": "max_length"},
}
# a pattern read alike by Python's ``re`` and ECMA-262: no ``.`` (line terminators), no ``\d``-like class (Unicode
# in Python), no ``$`` but at the very end (Python's matches before a final newline: written ``\Z`` there)
_SAFE_PATTERN = re.compile(r"^[A-Za-z0-9^*+?()\[\]{}|,:_\-/ @#=<>!~'&%;\"]*\$?$")
_IDENT = re.compile(r"[^0-9A-Za-z_]")
_UNNAMEABLE = re.compile(r'[\\"\x00-\x1f]')  # msgspec refuses these in a field's JSON name


def _literal_ok(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _node_at(schemas: SchemaSet, loc: Location) -> Any:
    node: Any = schemas.file(loc.file).contents
    for token in loc.pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


@dataclass
class _Residual:
    type: str
    field: str  # the property of ``type`` whose value holds it ("": the object itself)
    keyword: str
    location: str
    why: str


@dataclass
class _Module:
    stem: str
    imports: set[str] = field(default_factory=set)
    classes: list[str] = field(default_factory=list)


class _Renderer:
    def __init__(self, ir: IR, schemas: SchemaSet) -> None:
        self.ir, self.schemas = ir, schemas
        self.stems = {m.file: m.stem for m in ir.modules}
        self.objects: dict[Location, NamedType] = {}
        for m in ir.modules:
            for t in m.types:
                node = _node_at(schemas, t.location)
                if t.kind == "object" and isinstance(node, dict) and not _needs_its_keys(t, node):
                    self.objects[t.location] = t
        self.residual: list[_Residual] = []
        self.deprecated: list[tuple[str, str]] = []
        self.tags: dict[TypeRef, tuple[str, Any]] = {}  # a Struct that is a branch of a tagged union: its tag
        self.owner = ""
        self.field = ""
        self.module = _Module("")
        self.inlining: list[Location] = []
        self._plan_tags()

    # --- tagged unions are decided first: a Struct's tag is part of its class

    def _plan_tags(self) -> None:
        wanted: dict[TypeRef, set[tuple[str, str]]] = {}
        for m in self.ir.modules:
            for t in m.types:
                for expr in self._unions(t):
                    for ref, tag in self._tagging(expr).items():
                        wanted.setdefault(ref, set()).add((expr.discriminator or "", json.dumps(tag)))
        for ref, tags in sorted(wanted.items(), key=lambda item: (item[0].file, item[0].name)):
            if len(tags) == 1:
                field_name, tag = next(iter(tags))
                self.tags[ref] = (field_name, json.loads(tag))

    def _unions(self, t: NamedType) -> list[Union_]:
        found: list[Union_] = []

        def visit(expr: Any) -> None:
            if isinstance(expr, Union_):
                found.append(expr)
            for name in ("items", "values", "rest", "type"):
                child = getattr(expr, name, None)
                if child is not None and not isinstance(child, str):
                    visit(child)
            for child in getattr(expr, "members", ()) or getattr(expr, "prefix", ()):
                visit(child)

        for f in t.fields:
            visit(f.type)
        if t.type is not None:
            visit(t.type)
        return found

    def _tagging(self, union: Union_) -> dict[TypeRef, Any]:
        """Each branch of a discriminated union of objects and its tag, or nothing if msgspec cannot tag it."""
        if union.discriminator is None:
            return {}
        out: dict[TypeRef, Any] = {}
        for member in union.members:
            ref = getattr(member, "ref", None)
            if ref is None or self.ir.get(ref).kind != "object":
                return {}
            t = self.ir.get(ref)
            tag = next((f for f in self._all_fields(t) if f.name == union.discriminator), None)
            node = _node_at(self.schemas, tag.location) if tag is not None else None
            if tag is None or not tag.required or not isinstance(node, dict) or not _literal_ok(node.get("const")):
                return {}
            if set(node) - _NEUTRAL - {"const", "type"}:
                return {}
            out[ref] = node["const"]
        return out

    def _all_fields(self, t: NamedType) -> list[Any]:
        fields: list[Any] = []
        for base in t.bases:
            fields.extend(self._all_fields(self.ir.get(base)))
        fields.extend(t.fields)
        return fields

    # --- residual

    def leave(self, loc: Location, keyword_: str, why: str) -> None:
        self.residual.append(_Residual(self.owner, self.field, keyword_, str(loc), why))

    def tables(self) -> tuple[list[tuple[str, str, str, str, str]], list[tuple[str, str]]]:
        """``RESIDUAL`` (one row per type, property, keyword and location) and ``DEPRECATED``, in a stable order."""
        rows: dict[tuple[str, str, str, str], str] = {}
        for x in self.residual:
            key = (x.location, x.keyword, x.type, x.field)
            rows[key] = min(rows.get(key, x.why), x.why)
        ordered = sorted(rows.items())
        return [(t, f, k, loc, why) for (loc, k, t, f), why in ordered], sorted(set(self.deprecated))

    # --- type expressions, from the schema node

    def expr(self, node: Any, loc: Location, *, own_object: bool = False, in_union: bool = False) -> str:
        """The annotation of ``node`` (``| None`` included when ``null`` is allowed)."""
        if node is True or node == {}:
            return "_Any"
        if node is False:
            self.leave(loc, "false", "no value is valid here")
            return "_Any"
        if not isinstance(node, dict):
            self.leave(loc, "schema", "not a schema object")
            return "_Any"
        if not own_object and loc in self.objects:
            return self._class_ref(self.objects[loc], in_union)
        if "$ref" in node:
            return self._ref(node, loc, in_union)
        if "$dynamicRef" in node:
            self.leave(loc, "$dynamicRef", "resolved at validation time")
            return "_Any"
        types = node.get("type")
        type_list: list[str] = [types] if isinstance(types, str) else list(types) if isinstance(types, list) else []
        claimed = {"type"}
        if "const" in node or "enum" in node:
            return self._literal(node, loc, type_list)
        for key in ("oneOf", "anyOf"):
            if key in node:
                if type_list or set(node) - _NEUTRAL - {key}:
                    self._unclaimed(node, loc, set(_NEUTRAL))
                    return "_Any"
                return self._union(node, key, loc)
        if not type_list:
            self._unclaimed(node, loc, set(_NEUTRAL))
            return "_Any"
        parts: list[str] = []
        for t in type_list:
            if t == "null":
                continue
            if t in _JSON_TYPES:
                parts.append(self._constrained(_JSON_TYPES[t], node, t, claimed))
            elif t == "array":
                parts.append(self._array(node, loc, claimed))
            elif t == "object":
                parts.append(self._map(node, loc, claimed))
        if len(set(type_list) & {"integer", "number"}) == 2:
            parts = [p for p in parts if not p.startswith(("int", "_Annotated[int"))]  # float takes integers too
        self._unclaimed(node, loc, claimed | _NEUTRAL)
        if "null" in type_list:
            parts.append("None")
        if not parts:
            return "_Any"
        return " | ".join(parts)

    def _unclaimed(self, node: dict[str, Any], loc: Location, claimed: set[str]) -> None:
        for key in node:
            if key not in claimed and key in _MEANINGFUL and not (key in ("then", "else") and "if" in node):
                if key == "uniqueItems" and node[key] is False:
                    continue
                self.leave(loc.child(key), key, "no msgspec type says it")

    def _ref(self, node: dict[str, Any], loc: Location, in_union: bool = False) -> str:
        target, tloc = self.schemas.resolve_ref(node, node["$ref"])
        self._unclaimed(node, loc, {"$ref"} | _NEUTRAL)
        if tloc in self.objects:
            return self._class_ref(self.objects[tloc], in_union)
        if tloc in self.inlining or len(self.inlining) > 32:
            self.leave(loc.child("$ref"), "$ref", "a recursive reference to a type that is not an object")
            return "_Any"
        self.inlining.append(tloc)
        try:
            return self.expr(target, tloc)
        finally:
            self.inlining.pop()

    def _class_ref(self, t: NamedType, in_union: bool = False) -> str:
        tag = self.tags.get(t.ref)
        if tag is not None and not in_union:  # msgspec checks a tag only when it decodes the union
            field_ = next(f for f in self._all_fields(t) if f.name == tag[0])
            self.leave(field_.location, "const", "the tag of a union branch, used here outside its union")
        if t.file == self.module_file:
            return t.name
        alias = "_m_" + self.stems[t.file]
        self.module.imports.add(f"from . import {self.stems[t.file]} as {alias}")
        return f"{alias}.{t.name}"

    def _literal(self, node: dict[str, Any], loc: Location, type_list: list[str]) -> str:
        values = [node["const"]] if "const" in node else list(node["enum"]) if isinstance(node.get("enum"), list) else []
        if "const" in node and "enum" in node:
            values = [v for v in values if v in node["enum"]]
        if type_list:  # only the values of the allowed types
            values = [v for v in values if json_type(v) in type_list or (json_type(v) == "integer" and "number" in type_list)]
        claimed = {"const", "enum", "type"}
        self._unclaimed(node, loc, claimed | _NEUTRAL)
        nullable = None in values
        values = [v for v in values if v is not None]
        if not all(_literal_ok(v) for v in values):
            self.leave(
                loc.child("const" if "const" in node else "enum"),
                "const" if "const" in node else "enum",
                "a value msgspec's Literal cannot hold",
            )
            return "_Any"
        if not values:
            if nullable:
                return "None"
            self.leave(loc, "enum", "no value is valid here")
            return "_Any"
        text = "_Literal[" + ", ".join(json.dumps(v) for v in values) + "]"
        return text + " | None" if nullable else text

    def _union(self, node: dict[str, Any], key: str, loc: Location) -> str:
        branches = node[key]
        nullable = False
        null_branches = 0
        members: list[str] = []
        kinds: list[str] = []
        refs: list[TypeRef | None] = []
        for i, branch in enumerate(branches):
            bloc = loc.child(key, i)
            start = len(self.residual)
            text = self.expr(branch, bloc, in_union=True)
            if len(self.residual) > start:  # a branch that is not all typed: the union is not either
                del self.residual[start:]
                self.leave(loc.child(key), key, "a branch has keywords no type says")
                return "_Any"
            if text == "None" or text.endswith(" | None"):
                null_branches += 1
                nullable = True
                text = "None" if text == "None" else text.removesuffix(" | None")
            parts = [] if text == "None" else _top_level_parts(text)
            if key == "oneOf" and len(parts) > 1:
                self.leave(loc.child(key), key, "a branch of several types: branches msgspec cannot tell apart")
                return "_Any"
            members.extend(parts)
            obj = self._object_at(branch, bloc)
            refs.append(obj.ref if obj is not None else None)
            kinds.extend(self._kind(part, obj) for part in parts or ["None"])
        structs = [r for r in refs if r is not None]
        if structs:
            tag_fields = {self.tags.get(r, ("", None))[0] for r in structs}
            if len(structs) > 1 and (len(tag_fields) != 1 or "" in tag_fields):
                self.leave(loc.child(key), key, "a union of objects without a tag msgspec can read")
                return "_Any"
        # the branches must not overlap (oneOf) and msgspec must tell them apart: one branch of each kind
        if len([k for k in kinds if k != "struct"]) != len({k for k in kinds if k != "struct"}) or ("number" in kinds and "int" in kinds):
            self.leave(loc.child(key), key, "branches msgspec cannot tell apart")
            return "_Any"
        kinds = [k for k in kinds if k != "null"]
        if "other" in kinds or ("struct" in kinds and "map" in kinds):
            self.leave(loc.child(key), key, "branches msgspec cannot tell apart")
            return "_Any"
        if key == "oneOf" and ("any" in kinds or null_branches > 1):
            self.leave(loc.child(key), key, "branches msgspec cannot tell apart")
            return "_Any"
        if "any" in kinds:
            return "_Any"
        if not members:
            return "None" if nullable else "_Any"
        out = " | ".join(dict.fromkeys(members))
        return out + " | None" if nullable else out

    def _object_at(self, node: Any, loc: Location) -> NamedType | None:
        if loc in self.objects:
            return self.objects[loc]
        if isinstance(node, dict) and "$ref" in node:
            _, tloc = self.schemas.resolve_ref(node, node["$ref"])
            return self.objects.get(tloc)
        return None

    @staticmethod
    def _kind(text: str, obj: NamedType | None) -> str:
        if obj is not None:
            return "struct"
        base = text.removeprefix("_Annotated[")
        for prefix, kind in (("str", "str"), ("int", "int"), ("float", "number"), ("bool", "bool"), ("list", "list"), ("dict", "map")):
            if base.startswith(prefix):
                return kind
        if base.startswith("_Literal["):
            return "str" if base[len("_Literal[")] == '"' else "int"
        return {"_Any": "any", "None": "null"}.get(text, "other")

    def _meta(self, base: str, args: list[str]) -> str:
        return f"_Annotated[{base}, _msgspec.Meta({', '.join(args)})]" if args else base

    def _constrained(self, base: str, node: dict[str, Any], json_type: str, claimed: set[str]) -> str:
        args: list[str] = []
        if json_type in ("integer", "number"):
            for key, name in _BOUNDS.items():
                value = node.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    args.append(f"{name}={value!r}")
                    claimed.add(key)
            step = node.get("multipleOf")
            if json_type == "integer" and isinstance(step, int) and not isinstance(step, bool) and step > 0:
                args.append(f"multiple_of={step}")
                claimed.add("multipleOf")
        if json_type == "string":
            for key, name in _LENGTHS["string"].items():
                if isinstance(node.get(key), int):
                    args.append(f"{name}={node[key]}")
                    claimed.add(key)
            pattern = node.get("pattern")
            if isinstance(pattern, str) and pattern.isascii() and _SAFE_PATTERN.match(pattern):
                written = pattern[:-1] + "\\Z" if pattern.endswith("$") else pattern
                args.append(f"pattern={written!r}")
                claimed.add("pattern")
        return self._meta(base, args)

    def _array(self, node: dict[str, Any], loc: Location, claimed: set[str]) -> str:
        if "prefixItems" in node:
            return "list[_Any]"  # prefixItems (and items after it) left unclaimed
        claimed.add("items")
        item = self.expr(node.get("items", True), loc.child("items"))
        args = []
        for key, name in _LENGTHS["array"].items():
            if isinstance(node.get(key), int):
                args.append(f"{name}={node[key]}")
                claimed.add(key)
        return self._meta(f"list[{item}]", args)

    def _map(self, node: dict[str, Any], loc: Location, claimed: set[str]) -> str:
        if "properties" in node or "required" in node or "patternProperties" in node or "propertyNames" in node:
            return "dict[str, _Any]"  # an object kept whole (``_needs_its_keys``): its keywords stay unclaimed
        claimed.add("additionalProperties")
        extra = node.get("additionalProperties", node.get("unevaluatedProperties", True))
        if "unevaluatedProperties" in node:
            claimed.add("unevaluatedProperties")
        args = []
        for key, name in _LENGTHS["object"].items():
            if isinstance(node.get(key), int):
                args.append(f"{name}={node[key]}")
                claimed.add(key)
        if extra is False:
            return "_Annotated[dict[str, _Any], _msgspec.Meta(max_length=0)]"
        return self._meta(f"dict[str, {self.expr(extra, loc.child('additionalProperties'))}]", args)

    # --- Structs

    module_file = ""

    def struct(self, t: NamedType) -> str:
        self.owner, self.field = t.name, ""
        node = _node_at(self.schemas, t.location)
        tag = self.tags.get(t.ref)
        # keys matching patternProperties are allowed beside a closed object's properties: left open (and listed)
        closed = node.get("additionalProperties", node.get("unevaluatedProperties")) is False and "patternProperties" not in node
        claimed = {"type", "properties", "required", "additionalProperties", "unevaluatedProperties", "allOf"}
        if t.rules:
            for rule in t.rules:
                self.residual.append(_Residual(t.name, "", rule.keyword, str(rule.location), "a rule no type says"))
        extra = node.get("additionalProperties", node.get("unevaluatedProperties"))
        if (isinstance(extra, dict) and extra) or "patternProperties" in node:
            self.leave(
                t.location.child("additionalProperties" if "patternProperties" not in node else "patternProperties"),
                "additionalProperties",
                "a typed map beside the properties",
            )
        rule_keys = {r.location.pointer.rsplit("/", 1)[-1] for r in t.rules if r.location.pointer.rsplit("/", 1)[0] == t.location.pointer}
        claimed |= rule_keys | {"oneOf", "anyOf", "if", "then", "else", "not"} & set(node)  # recorded as rules
        claimed |= {"patternProperties"}
        self._unclaimed(node, t.location, claimed | _NEUTRAL)
        self._check_all_of(t, node)
        fields = self._all_fields(t)
        names_seen: dict[str, int] = {}
        for f in fields:
            names_seen[f.name] = names_seen.get(f.name, 0) + 1
        lines = []
        used: set[str] = set()
        required_first = [f for f in fields if f.required] + [f for f in fields if not f.required]
        written: set[str] = set()
        for f in required_first:
            if f.name in written:
                continue
            written.add(f.name)
            if names_seen[f.name] > 1:
                self.field = f.name
                self.leave(f.location, "allOf", "a property declared twice (base and derived)")
                self.field = ""
            if f.deprecation is not None:
                self.deprecated.append((t.name, f.name))
            if tag is not None and f.name == tag[0]:
                continue  # the union's tag field: msgspec checks it
            if _UNNAMEABLE.search(f.name):
                self.field = f.name
                self.leave(f.location, "properties", "a name msgspec cannot give a field: its value is not read")
                if f.required:
                    self.leave(f.location, "required", "a name msgspec cannot give a field")
                self.field = ""
                continue
            fnode = _node_at(self.schemas, f.location)
            self.field = f.name
            annotation = self.expr(fnode, f.location)
            self.field = ""
            required = f.required or (tag is not None and f.name == tag[0])
            pyname = self._field_name(f.name, used)
            rename = f" = _msgspec.field(name={json.dumps(f.name)})" if pyname != f.name else ""
            if required:
                if rename:
                    lines.append(f"    {pyname}: {annotation}{rename}")
                else:
                    lines.append(f"    {pyname}: {annotation}")
            else:
                default = "_msgspec.UNSET" if not rename else f"_msgspec.field(default=_msgspec.UNSET, name={json.dumps(f.name)})"
                lines.append(f"    {pyname}: {annotation} | _msgspec.UnsetType = {default}")
            if f.description:
                lines.append(f"    {_docstring(f.description)}")
        for name in node.get("required", []) if isinstance(node.get("required"), list) else []:
            if name not in written:
                self.leave(t.location.child("required"), "required", f"a required property without a declared schema: {name}")
        options = ["kw_only=True", "omit_defaults=True"]
        if closed:
            options.append("forbid_unknown_fields=True")
        if tag is not None:
            options.append(f"tag_field={json.dumps(tag[0])}")
            options.append(f"tag={json.dumps(tag[1])}")
        head = f"class {t.name}(_msgspec.Struct, {', '.join(options)}):"
        doc = [f"    {_docstring(t.description)}"] if t.description else []
        body = doc + lines
        if not body:
            body = ["    pass"]
        return "\n".join([head, *body])

    def _check_all_of(self, t: NamedType, node: dict[str, Any]) -> None:
        members = node.get("allOf")
        if not isinstance(members, list):
            return
        for i, member in enumerate(members):
            mloc = t.location.child("allOf", i)
            if not isinstance(member, dict):
                self.leave(mloc, "allOf", "a boolean member")
                continue
            if "$ref" in member and not set(member) - _NEUTRAL - {"$ref"}:
                target, tloc = self.schemas.resolve_ref(member, member["$ref"])
                base = self.objects.get(tloc)
                if base is None or base.ref not in t.bases:
                    self.leave(mloc, "allOf", "a member that is no flattened base")
                elif isinstance(target, dict) and (target.get("additionalProperties", target.get("unevaluatedProperties")) is False):
                    self.leave(mloc, "allOf", "a closed base: the properties beside it are not allowed")
                continue
            if "properties" in member or "required" in member:
                self._unclaimed(member, mloc, {"type", "properties", "required"} | _NEUTRAL)
                continue
            # conditional members are rules (recorded from the IR)

    @staticmethod
    def _field_name(name: str, used: set[str]) -> str:
        text = _IDENT.sub("_", name) or "field"
        if text[0].isdigit() or text.startswith("_") or keyword.iskeyword(text) or text in ("UNSET",):
            text = "f_" + text.lstrip("_")
        candidate, n = text, 2
        while candidate in used:
            candidate, n = f"{text}_{n}", n + 1
        used.add(candidate)
        return candidate


# keywords about an object's keys: its type must keep every key for a caller to check them
_KEY_KEYWORDS = frozenset({"propertyNames", "patternProperties", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas"})


def _needs_its_keys(t: NamedType, node: dict[str, Any]) -> bool:
    """An open object that has a rule no type says: a Struct would drop its other members, which the rule may be
    about, so it is a ``dict`` (and its properties are listed as residual too)."""
    extra = node.get("additionalProperties", node.get("unevaluatedProperties"))
    if extra is False and "patternProperties" not in node:
        return False  # closed: every member is a declared field
    return bool(t.rules) or bool(_KEY_KEYWORDS & set(node)) or (isinstance(extra, dict) and bool(extra))


def _top_level_parts(text: str) -> list[str]:
    """The members of a union annotation (``A | B``), not splitting inside brackets or quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            if char == quote and text[i - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
        elif depth == 0 and text.startswith(" | ", i):
            parts.append(text[start:i])
            start = i + 3
    parts.append(text[start:])
    return parts


def _docstring(text: str) -> str:
    return json.dumps(" ".join(text.split()), ensure_ascii=False).replace("\\\\", "\\\\")


def render(ir: IR, schemas: SchemaSet) -> dict[str, bytes]:
    r = _Renderer(ir, schemas)
    env = environment("msgspec")
    out: dict[str, bytes] = {}
    roots: list[tuple[str, str, str]] = []  # (file, root name, annotation)
    init_imports: set[str] = set()
    for m in ir.modules:
        r.module = _Module(m.stem)
        r.module_file = m.file
        classes = [r.struct(t) for t in m.types if t.location in r.objects]
        if m.root is not None:
            root = next(t for t in m.types if t.name == m.root)
            r.owner = root.name
            r.module_file = ""  # the roots live in __init__: every reference is qualified
            saved, r.module = r.module, _Module("__init__")
            annotation = r.expr(_node_at(schemas, root.location), root.location)
            init_imports |= r.module.imports
            r.module = saved
            roots.append((m.file, root.name, annotation))
        text = env.get_template("module.py.j2").render(file=m.file, imports=sorted(r.module.imports), classes=classes)
        out[f"{m.stem}.py"] = text.encode("utf-8")
    residual, deprecated = r.tables()
    init = env.get_template("init.py.j2").render(
        modules=[m.stem for m in ir.modules],
        imports=sorted(init_imports),
        roots=roots,
        residual=residual,
        deprecated=deprecated,
        quote=json.dumps,
    )
    out["__init__.py"] = init.encode("utf-8")
    out["py.typed"] = b""
    return out
