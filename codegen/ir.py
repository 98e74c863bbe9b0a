"""The intermediate representation (IR) that every target renders.

Built once from a :class:`codegen.load.SchemaSet`. Everything is a frozen dataclass; order is schema order
(files by name, properties and ``$defs`` as written). Keywords that a type system cannot express
(``if``/``then``/``else``, ``dependentRequired``, ``contains``, ``not``, ...) are never dropped: each one becomes a
:class:`Rule` with its location, attached to the named type that contains it.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import json
import keyword
import re
from dataclasses import dataclass, field
from typing import Any

from .annotated import Annotated, collect
from .load import Location, SchemaError, SchemaSet

# Keywords that carry no validation meaning for codegen (they are read where useful, never turned into rules).
ANNOTATION_KEYWORDS = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$dynamicAnchor",
        "$comment",
        "$vocabulary",
        "$defs",
        "definitions",
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
    }
)
# Constraints: recorded on fields/types (docs, JSDoc, pydantic) in this order.
CONSTRAINT_KEYWORDS = (
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
)
# Keywords mapped to types.
TYPE_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "unevaluatedProperties",
        "items",
        "prefixItems",
        "enum",
        "const",
        "oneOf",
        "anyOf",
        "allOf",
        "$ref",
    }
)
HANDLED_KEYWORDS = ANNOTATION_KEYWORDS | TYPE_KEYWORDS | frozenset(CONSTRAINT_KEYWORDS)
# Assertion and applicator keywords of draft 2020-12 that no type expresses: each occurrence becomes a Rule.
# Any keyword outside the vocabularies (``markdownDescription``, ``meta:enum``, ...) is an annotation with no
# validation meaning (draft 2020-12 §6.5), so it is not a rule.
RULE_KEYWORDS = frozenset(
    {
        "if",
        "then",
        "else",
        "not",
        "contains",
        "minContains",
        "maxContains",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "propertyNames",
        "unevaluatedItems",
        "$dynamicRef",
        "additionalItems",
        "dependencies",
        "$recursiveRef",
    }
)
# allOf members made only of these keywords are conditional rules, not structure.
_CONDITIONAL_KEYWORDS = frozenset({"if", "then", "else", "not", "dependentRequired", "dependentSchemas", "contains"})

# ----------------------------------------------------------------------------------------------- deprecation


@dataclass(frozen=True)
class Deprecation:
    """A deprecation and its one canonical message (used verbatim by every target)."""

    message: str
    since: str | None = None
    removal: str | None = None
    date: str | None = None
    removal_not_before: str | None = None
    replacement: str | None = None
    reason: str | None = None
    description: str | None = None

    def finding(self) -> dict[str, str]:
        """How an SDK reports a value at this location: the ledger's DEPRECATED_FIELD message ``variant`` and its
        parameters (all but ``name``, the property's name, which the SDK knows)."""
        if self.since is None:
            return {"variant": "undated", "description": self.description} if self.description else {"variant": "plain"}
        params = {"since": self.since, "removal": self.removal, "date": self.removal_not_before, "replacement": self.replacement}
        if self.reason:
            params.update(variant="reason", reason=self.reason)
        else:
            params["variant"] = "default"
        return {key: str(value) for key, value in params.items()}


def json_type(value: Any) -> str:
    """The JSON Schema type name of a JSON value (a float with no fraction is an ``integer``, as the
    specification's data model says)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def add_months(day: _dt.date, months: int) -> _dt.date:
    month_index = day.month - 1 + months
    year, month = day.year + month_index // 12, month_index % 12 + 1
    return _dt.date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


DEPRECATION_WINDOW_MONTHS = 12


def deprecation_message(annotation: dict[str, Any] | None, description: str | None) -> Deprecation:
    """The single place where deprecation text is formatted."""
    if not annotation:
        text = "Deprecated."
        collapsed = " ".join(description.split()) if description else None
        if collapsed:
            text += " " + collapsed
        return Deprecation(message=text, description=collapsed)
    date = _dt.date.fromisoformat(annotation["date"])
    not_before = add_months(date, DEPRECATION_WINDOW_MONTHS).isoformat()
    reason = annotation.get("reason")
    text = (
        f"Deprecated since {annotation['since']} ({annotation['date']}); removed in {annotation['removal']}, "
        f"not before {not_before}. Use {annotation['replacement']} instead."
    )
    if reason:
        text += " " + " ".join(str(reason).split())
    return Deprecation(
        message=text,
        since=annotation["since"],
        removal=annotation["removal"],
        date=annotation["date"],
        removal_not_before=not_before,
        replacement=annotation["replacement"],
        reason=" ".join(str(reason).split()) if reason else None,
    )


def deprecation_of(schema: Any) -> Deprecation | None:
    if not isinstance(schema, dict) or schema.get("deprecated") is not True:
        return None
    return deprecation_message(schema.get("x-deprecation"), schema.get("description"))


# ----------------------------------------------------------------------------------------------- types


@dataclass(frozen=True)
class TypeRef:
    """Reference to a named type: the schema file that defines it and its name."""

    file: str
    name: str


@dataclass(frozen=True)
class Primitive:
    name: str  # string | integer | number | boolean | null


@dataclass(frozen=True)
class Literal:
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Named:
    ref: TypeRef


@dataclass(frozen=True)
class Array:
    items: TypeExpr


@dataclass(frozen=True)
class Tuple:
    prefix: tuple[TypeExpr, ...]
    rest: TypeExpr | None  # None: no further items allowed


@dataclass(frozen=True)
class Map:
    values: TypeExpr


@dataclass(frozen=True)
class Union_:
    members: tuple[TypeExpr, ...]
    discriminator: str | None = None  # property whose distinct const tags each branch


@dataclass(frozen=True)
class Unknown:
    pass


@dataclass(frozen=True)
class Never:
    pass


TypeExpr = Primitive | Literal | Named | Array | Tuple | Map | Union_ | Unknown | Never


@dataclass(frozen=True)
class Rule:
    """A keyword whose meaning is not representable in the generated types (documented, not enforced)."""

    keyword: str
    location: Location
    schema: str  # compact JSON of the keyword's value
    notes: tuple[tuple[str, str], ...] = ()  # "$comment" and "x-*" annotations of the schema holding the rule

    @property
    def pointer(self) -> str:
        return self.location.pointer


@dataclass(frozen=True)
class Field:
    name: str
    type: TypeExpr
    required: bool
    nullable: bool  # null is a valid value (distinct from optional = may be absent)
    location: Location
    description: str | None = None
    has_default: bool = False
    default: Any = None
    constraints: tuple[tuple[str, Any], ...] = ()
    deprecation: Deprecation | None = None
    read_only: bool = False


@dataclass(frozen=True)
class NamedType:
    name: str
    file: str
    kind: str  # "object" | "enum" | "alias"
    location: Location
    description: str | None = None
    title: str | None = None
    deprecation: Deprecation | None = None
    is_root: bool = False
    synthesized: bool = False  # an inline object schema given a name by codegen
    # object
    fields: tuple[Field, ...] = ()
    bases: tuple[TypeRef, ...] = ()
    additional: str = "open"  # "open" | "closed" | "typed"
    additional_type: TypeExpr | None = None
    # enum
    values: tuple[Any, ...] = ()
    # alias / enum
    type: TypeExpr | None = None
    nullable: bool = False
    constraints: tuple[tuple[str, Any], ...] = ()
    rules: tuple[Rule, ...] = ()

    @property
    def ref(self) -> TypeRef:
        return TypeRef(self.file, self.name)


@dataclass(frozen=True)
class Module:
    file: str
    stem: str
    uri: str
    title: str | None
    description: str | None
    root: str | None
    types: tuple[NamedType, ...]


@dataclass(frozen=True)
class IR:
    modules: tuple[Module, ...]
    deprecations: tuple[tuple[Location, Deprecation], ...] = ()
    annotated: tuple[Annotated, ...] = ()  # x-unique / x-references at their instance patterns (codegen/annotated.py)
    _index: dict[TypeRef, NamedType] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for module in self.modules:
            for t in module.types:
                self._index[t.ref] = t

    def get(self, ref: TypeRef) -> NamedType:
        return self._index[ref]

    def deprecation_at(self, location: Location) -> Deprecation | None:
        for loc, dep in self.deprecations:
            if loc == location:
                return dep
        return None


# ----------------------------------------------------------------------------------------------- naming

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def pascal(text: str) -> str:
    parts = re.split(r"[^A-Za-z0-9]+", text)
    out = "".join(p[:1].upper() + p[1:] for p in parts if p)
    if not out or out[0].isdigit():
        out = "T" + out
    return out


def type_name(key: str) -> str:
    return key if _IDENT.match(key) else pascal(key)


def module_stem(file_name: str) -> str:
    """The module name of a schema file in every target: an identifier that is no reserved word.

    ``a-b.json`` → ``a_b``; ``2020-12.json`` → ``schema_2020_12`` (identifiers cannot start with a digit);
    ``class.json`` → ``class_``.
    """
    stem = file_name[: -len(".json")] if file_name.endswith(".json") else file_name
    stem = re.sub(r"[^A-Za-z0-9_]", "_", stem) or "schema"
    if stem[0].isdigit():
        stem = "schema_" + stem
    if stem in RESERVED or keyword.iskeyword(stem):
        stem += "_"
    return stem


def _is_type_schema(schema: dict[str, Any]) -> bool:
    return any(k in schema for k in (HANDLED_KEYWORDS - ANNOTATION_KEYWORDS) | RULE_KEYWORDS)


# Names a type or module cannot take in some target: TypeScript reserved words and predefined type names,
# Python keywords (module names), Go keywords and predeclared types (Go names are capitalized anyway).
RESERVED = frozenset(
    {
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "new",
        "null",
        "return",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "typeof",
        "var",
        "void",
        "while",
        "with",
        "implements",
        "interface",
        "let",
        "package",
        "private",
        "protected",
        "public",
        "static",
        "yield",
        "await",
        "any",
        "unknown",
        "never",
        "number",
        "string",
        "boolean",
        "symbol",
        "object",
        "undefined",
        "bigint",
        "type",
        "and",
        "as",
        "assert",
        "async",
        "def",
        "del",
        "elif",
        "except",
        "from",
        "global",
        "is",
        "lambda",
        "nonlocal",
        "not",
        "or",
        "pass",
        "raise",
        "None",
        "True",
        "False",
        "Array",
        "Record",
        "Object",
        "String",
        "Number",
        "Boolean",
        "Symbol",
        "Date",
        "Error",
        "Function",
        "Map",
        "Set",
        "Promise",
    }
)
_VERSION_SEGMENT = re.compile(r"^v?[0-9][0-9.]*(-[A-Za-z0-9.]+)?$")


def def_names(key: str) -> list[str]:
    """Candidate type names for a ``$defs`` / ``definitions`` key, best first.

    A plain identifier is kept as written (a reserved word is capitalized: ``extends`` → ``Extends``); a key
    that is a URI or path (bundled schemas keyed by ``$id``) is named from its last segments without extension
    or version: ``http://asyncapi.com/bindings/http/0.3.0/server.json`` → ``Server``, then ``HttpServer``, ...
    """
    if "/" not in key:
        name = type_name(key)
        return [pascal(name) if name in RESERVED else name]
    segments = [re.sub(r"\.json$", "", seg) for seg in re.split(r"[/#]", key.split("://", 1)[-1])[1:] if seg]
    segments = [seg for seg in segments if not _VERSION_SEGMENT.match(seg)] or ["Schema"]
    return [pascal("_".join(segments[-n:])) for n in range(1, len(segments) + 1)]


# ----------------------------------------------------------------------------------------------- builder


class _Builder:
    def __init__(self, schemas: SchemaSet) -> None:
        self.ss = schemas
        self.names: dict[Location, TypeRef] = {}
        self.order: dict[str, list[Location]] = {}
        self.used: dict[str, set[str]] = {}
        self.schemas_at: dict[Location, Any] = {}
        self.built: dict[Location, NamedType] = {}
        self.roots: dict[str, str] = {}
        self.expanding: list[Location] = []

    def _claim(self, file: str, wanted: str) -> str:
        used = self.used.setdefault(file, set())
        name, n = wanted, 2
        while name in used:
            name, n = f"{wanted}{n}", n + 1
        used.add(name)
        return name

    def _register_defs(self, loc: Location, defs: dict[str, Any], prefix: str) -> None:
        """Name every entry of a ``$defs``/``definitions`` map; an entry that only groups schemas (a namespace such
        as ``$defs/plugins/{extractors, loaders}``, no keyword of its own) is not a type: its entries are."""
        for key, sub in defs.items():
            sloc = loc.child(key)
            if sloc in self.names:
                continue
            if _is_namespace(sub):
                self._register_defs(sloc, sub, prefix + pascal(key))
                continue
            used = self.used.setdefault(loc.file, set())
            candidates = def_names(key)
            wanted = next((c for c in candidates if c not in used), None)
            if wanted is None:
                wanted = prefix + candidates[0] if prefix and prefix + candidates[0] not in used else candidates[-1]
            self._register(sloc, sub, wanted)

    def _register(self, loc: Location, schema: Any, wanted: str) -> TypeRef:
        ref = TypeRef(loc.file, self._claim(loc.file, wanted))
        self.names[loc] = ref
        self.schemas_at[loc] = schema
        self.order.setdefault(loc.file, []).append(loc)
        return ref

    def build(self) -> IR:
        for f in self.ss.files:
            self.order.setdefault(f.name, [])
            self.used.setdefault(f.name, set())
            root = f.contents
            # a file without keywords nor definitions (`{}`, or the boolean schema `true`) is a root that accepts anything
            if _is_type_schema(root) or not any(k in root for k in ("$defs", "definitions")):
                ref = self._register(Location(f.name, ""), root, pascal(root.get("title") or module_stem(f.name)))
                self.roots[f.name] = ref.name
            for node, loc in _nodes(root, Location(f.name, "")):
                for keyword_ in ("$defs", "definitions"):
                    if isinstance(node.get(keyword_), dict):
                        self._register_defs(loc.child(keyword_), node[keyword_], "")
        # Build (synthesized inline types, and $ref targets named on the way, are appended to order while building).
        pending = True
        while pending:
            pending = False
            for f in self.ss.files:
                i = 0
                while i < len(self.order[f.name]):
                    loc = self.order[f.name][i]
                    if loc not in self.built:
                        self.built[loc] = self._named(loc, self.schemas_at[loc])
                        pending = True
                    i += 1
        modules = []
        for f in self.ss.files:
            modules.append(
                Module(
                    file=f.name,
                    stem=module_stem(f.name),
                    uri=f.uri,
                    title=f.contents.get("title"),
                    description=f.contents.get("description"),
                    root=self.roots.get(f.name),
                    types=tuple(self.built[loc] for loc in self.order[f.name]),
                )
            )
        deprecations = []
        for f in self.ss.files:
            for node, loc in _nodes(f.contents, Location(f.name, "")):
                dep = deprecation_of(node)
                if dep is not None:
                    deprecations.append((loc, dep))
        ir = IR(modules=tuple(modules), deprecations=tuple(deprecations), annotated=collect(self.ss))
        _check_cycles(ir)
        return ir

    # --- named types

    def _named(self, loc: Location, schema: Any) -> NamedType:
        ref = self.names[loc]
        rules: list[Rule] = []
        common: dict[str, Any] = {
            "name": ref.name,
            "file": ref.file,
            "location": loc,
            "is_root": loc.pointer == "",
            "synthesized": not (loc.pointer == "" or (loc.pointer.startswith("/$defs/") and loc.pointer.count("/") == 2)),
        }
        if not isinstance(schema, dict):
            return NamedType(kind="alias", type=Unknown() if schema else Never(), **common)
        common.update(description=schema.get("description"), title=schema.get("title"), deprecation=deprecation_of(schema))
        self._collect_rules(schema, loc, rules, extra_handled=())
        constraints = _constraints(schema)
        if "enum" in schema and not _is_object(schema):
            values = tuple(v for v in schema["enum"] if v is not None)
            return NamedType(
                kind="enum",
                values=values,
                type=Literal(values),
                nullable=None in schema["enum"] or _has_null_type(schema),
                constraints=constraints,
                rules=tuple(rules),
                **common,
            )
        if _is_object(schema):
            return self._object(schema, loc, rules, constraints, common)
        expr, nullable = self._type(schema, loc, rules, ref.name)
        return NamedType(kind="alias", type=expr, nullable=nullable, constraints=constraints, rules=tuple(rules), **common)

    def _object(
        self, schema: dict[str, Any], loc: Location, rules: list[Rule], constraints: tuple[tuple[str, Any], ...], common: dict[str, Any]
    ) -> NamedType:
        fields: list[Field] = []
        bases: list[TypeRef] = []
        owner = common["name"]
        self._fields(schema, loc, rules, owner, fields)
        for i, member in enumerate(schema.get("allOf", [])):
            mloc = loc.child("allOf", i)
            if isinstance(member, dict) and set(member) <= {"$ref"} | ANNOTATION_KEYWORDS and "$ref" in member:
                target, tloc = self.ss.resolve_ref(member, member["$ref"])
                if tloc in self.names and _is_object(target):
                    bases.append(self.names[tloc])
                    continue
            if isinstance(member, dict) and _is_object(member) and not (set(member) & _CONDITIONAL_KEYWORDS):
                self._collect_rules(member, mloc, rules, extra_handled=())
                self._fields(member, mloc, rules, owner, fields)
                continue
            if _is_rule_only(member):
                self._member_rules(member, mloc, rules)  # each conditional keyword is a rule
                continue
            rules.append(Rule("allOf", mloc, _compact(member), _notes(member)))
        for key in ("oneOf", "anyOf"):
            if key in schema:
                rules.append(Rule(key, loc.child(key), _compact(schema[key])))
        additional = "open"
        additional_type: TypeExpr | None = None
        extra = schema.get("additionalProperties", schema.get("unevaluatedProperties"))
        patterns = self._pattern_schemas(schema, loc)
        if extra is False and patterns:
            # closed, except for the keys that match a patternProperties regex (the key pattern is a rule)
            additional = "typed"
            additional_type = self._map_values(patterns, None, rules, owner + "Value")
        elif extra is False:
            additional = "closed"
        elif isinstance(extra, dict) and extra:
            additional = "typed"
            additional_type, _ = self._type(extra, loc.child("additionalProperties"), rules, owner + "Value")
        return NamedType(
            kind="object",
            fields=tuple(fields),
            bases=tuple(bases),
            additional=additional,
            additional_type=additional_type,
            constraints=constraints,
            rules=tuple(rules),
            **common,
        )

    def _fields(self, schema: dict[str, Any], loc: Location, rules: list[Rule], owner: str, out: list[Field]) -> None:
        required = schema.get("required", [])
        for name, prop in (schema.get("properties") or {}).items():
            ploc = loc.child("properties", name)
            expr, nullable = self._type(prop, ploc, rules, owner + pascal(name))
            if isinstance(prop, dict):
                self._collect_rules(prop, ploc, rules, extra_handled=())
                out.append(
                    Field(
                        name=name,
                        type=expr,
                        required=name in required,
                        nullable=nullable,
                        location=ploc,
                        description=prop.get("description"),
                        has_default="default" in prop,
                        default=prop.get("default"),
                        constraints=_constraints(prop),
                        deprecation=deprecation_of(prop),
                        read_only=prop.get("readOnly") is True,
                    )
                )
            else:
                out.append(Field(name=name, type=expr, required=name in required, nullable=False, location=ploc))
        for name in required:
            undeclared = name not in (schema.get("properties") or {}) and not any(f.name == name for f in out)
            if undeclared and schema.get("additionalProperties", True) is False:
                rules.append(Rule("required", loc.child("required"), _compact(name)))

    # --- rules

    def _member_rules(self, member: dict[str, Any], loc: Location, rules: list[Rule]) -> None:
        """Rules of an allOf member made only of conditional keywords (nested allOf members are unfolded)."""
        notes = _notes(member)
        for key, value in member.items():
            if key in ANNOTATION_KEYWORDS or (key in ("then", "else") and "if" in member):
                continue
            if key not in RULE_KEYWORDS and key not in TYPE_KEYWORDS and key not in CONSTRAINT_KEYWORDS:
                continue  # an annotation-only keyword
            if key == "allOf" and isinstance(value, list) and all(_is_rule_only(m) for m in value):
                for i, m in enumerate(value):
                    before = len(rules)
                    self._member_rules(m, loc.child("allOf", i), rules)
                    for j in range(before, len(rules)):  # inherit the enclosing notes
                        r = rules[j]
                        rules[j] = Rule(r.keyword, r.location, r.schema, notes + tuple(n for n in r.notes if n not in notes))
                continue
            if key == "if":
                parts = {k: member[k] for k in ("if", "then", "else") if k in member}
                rules.append(Rule("if", loc.child("if"), _compact(parts), notes))
                continue
            rules.append(Rule(key, loc.child(key), _compact(value), notes))

    def _collect_rules(self, schema: dict[str, Any], loc: Location, rules: list[Rule], extra_handled: tuple[str, ...]) -> None:
        for key, value in schema.items():
            if key in HANDLED_KEYWORDS or key in extra_handled or key not in RULE_KEYWORDS:
                continue
            if key in ("then", "else") and "if" in schema:
                continue  # recorded with their "if"
            if key == "if":
                parts = {k: schema[k] for k in ("if", "then", "else") if k in schema}
                rules.append(Rule("if", loc.child("if"), _compact(parts)))
                continue
            rules.append(Rule(key, loc.child(key), _compact(value)))

    # --- type expressions

    def _type(self, schema: Any, loc: Location, rules: list[Rule], hint: str) -> tuple[TypeExpr, bool]:
        if schema is True or schema == {}:
            return Unknown(), False
        if schema is False:
            return Never(), False
        if not isinstance(schema, dict):
            raise SchemaError(loc.file, loc.pointer, "expected a schema object or boolean")
        if "$ref" in schema:
            target, tloc = self.ss.resolve_ref(schema, schema["$ref"])
            if tloc in self.names:
                expr: TypeExpr = Named(self.names[tloc])
                nullable = _has_null_type(schema) and "type" in schema
                return expr, nullable
            if tloc in self.expanding:
                # recursion through a schema that has no name yet: name it where it is, so the cycle is a reference
                if tloc.file not in self.order:
                    raise SchemaError(loc.file, loc.pointer + "/$ref", f"$ref target {tloc} is not in a schema file of the folder")
                tokens = [t for t in tloc.pointer.split("/") if t]
                wanted = (
                    pascal(target.get("title") or (tokens[-1] if tokens else module_stem(tloc.file))) if isinstance(target, dict) else hint
                )
                return Named(self._register(tloc, target, wanted)), False
            self.expanding.append(tloc)
            try:
                expr, nullable = self._type(target, tloc, rules, hint)
            finally:
                self.expanding.pop()
            if tloc in self.names:  # named while expanding (a cycle through it)
                return Named(self.names[tloc]), False
            return expr, nullable
        if "const" in schema:
            if schema["const"] is None:
                return Primitive("null"), False
            return Literal((schema["const"],)), False
        if "enum" in schema:
            values = tuple(v for v in schema["enum"] if v is not None)
            return Literal(values), None in schema["enum"]
        for key in ("oneOf", "anyOf"):
            if key in schema and not schema.get("properties"):
                members: list[TypeExpr] = []
                nullable = False
                for i, m in enumerate(schema[key]):
                    mexpr, mnull = self._type(m, loc.child(key, i), rules, f"{hint}Option{i + 1}")
                    if mexpr == Primitive("null"):
                        nullable = True
                        continue
                    nullable = nullable or mnull
                    if mexpr not in members:
                        members.append(mexpr)
                if _has_null_type(schema):
                    nullable = True
                if len(members) == 1:
                    return members[0], nullable
                return Union_(tuple(members), self._discriminator(schema[key])), nullable
        if "allOf" in schema and not _is_object(schema):
            members = [
                m for m in schema["allOf"] if not (isinstance(m, dict) and not (set(m) - _CONDITIONAL_KEYWORDS - ANNOTATION_KEYWORDS))
            ]
            if len(members) == 1:
                return self._type(members[0], loc.child("allOf", schema["allOf"].index(members[0])), rules, hint)
        if _is_object(schema) and (schema.get("properties") or "allOf" in schema):
            ref = self._register(loc, schema, hint)
            return Named(ref), _has_null_type(schema)
        types = schema.get("type")
        type_list = [types] if isinstance(types, str) else list(types or [])
        if not type_list:
            if "items" in schema or "prefixItems" in schema:
                type_list = ["array"]
            elif _is_object(schema):
                type_list = ["object"]
        nullable = "null" in type_list
        exprs: list[TypeExpr] = []
        for t in type_list:
            if t == "null":
                continue
            if t == "array":
                exprs.append(self._array(schema, loc, rules, hint))
            elif t == "object":
                extra = schema.get("additionalProperties", True)
                patterns = self._pattern_schemas(schema, loc)
                if patterns:
                    # the values of a map keyed by patterns: any pattern's schema, or additionalProperties' schema
                    rest = None if extra is False else (extra, loc.child("additionalProperties"))
                    exprs.append(Map(self._map_values(patterns, rest, rules, hint + "Value")))
                elif extra is False:
                    exprs.append(Map(Never()))
                else:
                    vexpr, vnull = self._type(extra, loc.child("additionalProperties"), rules, hint + "Value")
                    exprs.append(Map(_with_null(vexpr, vnull)))
            else:
                exprs.append(Primitive(t))
        if not exprs:
            return (Primitive("null"), False) if nullable else (Unknown(), False)
        if len(exprs) == 1:
            return exprs[0], nullable
        return Union_(tuple(exprs)), nullable

    def _pattern_schemas(self, schema: dict[str, Any], loc: Location) -> list[tuple[Any, Location]]:
        """The ``patternProperties`` subschemas of an object, its own and those of its ``allOf`` members."""
        found: list[tuple[Any, Location]] = []
        parts: list[tuple[Any, Location]] = [(schema, loc)]
        for i, member in enumerate(schema.get("allOf", []) if isinstance(schema.get("allOf"), list) else []):
            mloc = loc.child("allOf", i)
            seen = 0
            while isinstance(member, dict) and "$ref" in member and seen < 16:
                member, mloc = self.ss.resolve_ref(member, member["$ref"])
                seen += 1
            parts.append((member, mloc))
        for part, ploc in parts:
            if isinstance(part, dict) and isinstance(part.get("patternProperties"), dict):
                for pattern, sub in part["patternProperties"].items():
                    found.append((sub, ploc.child("patternProperties", pattern)))
        return found

    def _map_values(
        self, patterns: list[tuple[Any, Location]], rest: tuple[Any, Location] | None, rules: list[Rule], hint: str
    ) -> TypeExpr:
        members: list[TypeExpr] = []
        for sub, sloc in [*patterns, *([rest] if rest is not None else [])]:
            e, n = self._type(sub, sloc, rules, hint)
            for m in (e.members if isinstance(e, Union_) else (e,)) + ((Primitive("null"),) if n else ()):
                if isinstance(m, Unknown):
                    return Unknown()
                if not isinstance(m, Never) and m not in members:
                    members.append(m)
        if not members:
            return Never()
        return members[0] if len(members) == 1 else Union_(tuple(members))

    def _array(self, schema: dict[str, Any], loc: Location, rules: list[Rule], hint: str) -> TypeExpr:
        if "prefixItems" in schema:
            prefix = []
            for i, item in enumerate(schema["prefixItems"]):
                e, n = self._type(item, loc.child("prefixItems", i), rules, f"{hint}Item{i + 1}")
                prefix.append(_with_null(e, n))
            items = schema.get("items", True)
            rest = None if items is False else _with_null(*self._type(items, loc.child("items"), rules, hint + "Item"))
            return Tuple(tuple(prefix), rest)
        items = schema.get("items", True)
        if isinstance(items, dict) and items:
            self._collect_rules(items, loc.child("items"), rules, extra_handled=())
        e, n = self._type(items, loc.child("items"), rules, hint + "Item")
        return Array(_with_null(e, n))

    def _discriminator(self, branches: list[Any]) -> str | None:
        tag_sets: list[dict[str, Any]] = []
        for b in branches:
            target = b
            while isinstance(target, dict) and "$ref" in target:
                target, _ = self.ss.resolve_ref(target, target["$ref"])
            if not isinstance(target, dict):
                return None
            tags: dict[str, Any] = {}
            for part in [target, *[m for m in target.get("allOf", []) if isinstance(m, dict)]]:
                req = set(part.get("required", [])) | set(target.get("required", []))
                for pname, p in (part.get("properties") or {}).items():
                    if isinstance(p, dict) and "const" in p and pname in req:
                        tags[pname] = p["const"]
            tag_sets.append(tags)
        if not tag_sets:
            return None
        for pname in tag_sets[0]:
            values = [t.get(pname, _MISSING) for t in tag_sets]
            if _MISSING in values:
                continue
            if len({json.dumps(v, sort_keys=True) for v in values}) == len(values):
                return pname
        return None


_MISSING = object()


def _with_null(expr: TypeExpr, nullable: bool) -> TypeExpr:
    if not nullable:
        return expr
    members = expr.members if isinstance(expr, Union_) else (expr,)
    return Union_((*members, Primitive("null")))


def _notes(schema: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(schema, dict):
        return ()
    return tuple((k, v) for k, v in schema.items() if (k == "$comment" or k.startswith("x-")) and isinstance(v, str))


def _is_rule_only(member: Any) -> bool:
    """An allOf member that only states conditions (no structure): if/then/else, not, oneOf of required, ..."""
    if not isinstance(member, dict):
        return False
    keys = {k for k in member if not k.startswith("x-")} - ANNOTATION_KEYWORDS
    if not keys or keys & {"type", "properties", "$ref", "items", "prefixItems", "enum", "const"}:
        return False
    return keys <= _CONDITIONAL_KEYWORDS | {"allOf", "anyOf", "oneOf", "required", "minProperties", "maxProperties"}


_SCHEMA_KEYS = HANDLED_KEYWORDS | RULE_KEYWORDS | {"$ref", "$dynamicRef", "$anchor", "$dynamicAnchor", "unevaluatedItems"}


def _is_namespace(node: Any) -> bool:
    """A ``$defs`` entry that only groups schemas: an object of objects with no schema keyword of its own."""
    return (
        isinstance(node, dict)
        and bool(node)
        and not any(k in _SCHEMA_KEYS or k.startswith("x-") for k in node)
        and all(isinstance(v, dict) for v in node.values())
    )


def _has_null_type(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    return t == "null" or (isinstance(t, list) and "null" in t)


def _is_object(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    t = schema.get("type")
    if t == "object" or (isinstance(t, list) and "object" in t and all(x in ("object", "null") for x in t)):
        return True
    if t is None and "properties" in schema:
        return True
    if t is None and "allOf" in schema and "enum" not in schema:
        return any(isinstance(m, dict) and ("properties" in m or "$ref" in m or m.get("type") == "object") for m in schema["allOf"])
    return False


def _constraints(schema: Any) -> tuple[tuple[str, Any], ...]:
    if not isinstance(schema, dict):
        return ()
    return tuple((k, schema[k]) for k in CONSTRAINT_KEYWORDS if k in schema)


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def _nodes(node: Any, loc: Location) -> Any:
    if isinstance(node, dict):
        yield node, loc
        for key, value in node.items():
            if key in ("enum", "const", "default", "examples") or key.startswith("x-"):
                continue
            if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas") and isinstance(value, dict):
                for sub_key, sub in value.items():
                    yield from _nodes(sub, loc.child(key, sub_key))
            elif isinstance(value, (dict, list)):
                yield from _nodes(value, loc.child(key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _nodes(item, loc.child(i))


def _check_cycles(ir: IR) -> None:
    """Alias chains (``A = B``, ``B = A``) and base chains that loop cannot be represented in any target."""
    for module in ir.modules:
        for t in module.types:
            seen = [t.ref]
            cur = t
            while True:
                nxt: list[TypeRef] = []
                if cur.kind == "alias" and isinstance(cur.type, Named):
                    nxt = [cur.type.ref]
                elif cur.kind == "object":
                    nxt = list(cur.bases)
                if not nxt:
                    break
                # follow each edge depth-first (bases may fan out)
                stack = [(r, [*seen]) for r in nxt]
                while stack:
                    r, path = stack.pop()
                    if r in path:
                        raise SchemaError(
                            t.location.file,
                            t.location.pointer,
                            "$ref cycle cannot be represented: " + " -> ".join(f"{p.file}#{p.name}" for p in [*path, r]),
                        )
                    nt = ir.get(r)
                    nn = (
                        [nt.type.ref]
                        if nt.kind == "alias" and isinstance(nt.type, Named)
                        else list(nt.bases)
                        if nt.kind == "object"
                        else []
                    )
                    stack.extend((x, [*path, r]) for x in nn)
                break


def build(schemas: SchemaSet) -> IR:
    return _Builder(schemas).build()
