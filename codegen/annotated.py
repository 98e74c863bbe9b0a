"""Generic rules from annotations: ``x-unique`` and ``x-references``, compiled to the instance locations they apply to.

An annotation sits on a subschema (its *scope*) and names paths relative to each instance of it. This module walks
every schema file from its root, through ``$ref``s, properties, ``items``, map values (``additionalProperties``,
``patternProperties``) and the in-place applicators (``allOf``, ``anyOf``, ``oneOf``, ``if``/``then``/``else``,
``dependentSchemas``), and records where each annotated subschema is reached as an *instance pattern*: JSON Pointer
tokens where ``*`` is every item of an array and ``~*`` every value of an object used as a map (``~*`` is no valid
RFC 6901 token, so it never names a member; a property literally named ``*`` is refused). A subschema already on
the current ``$ref`` path is not entered again (recursion), and patterns stop at :data:`MAX_DEPTH` tokens.

Each relative path of an annotation (``items``, ``source``, ``target``) is resolved against the same walk: its
``*`` becomes ``*`` where the schema has an array there and ``~*`` where it has a map; a path the schema does not
reach fails generation, as does a rule id that the rules catalog does not hold (:func:`check_bindings`).

Order: the walk's (files by name, each subschema before what it contains, properties as written, annotations
as written), then stable by the rule's position in the rules catalog when one is given — the order in which an
interpreter reports their findings. The module knows nothing of any domain: only the two keywords.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .load import Location, SchemaError, SchemaSet, escape_token, unescape_token

MAX_DEPTH = 32
ARRAY_ITEM = "*"
MAP_VALUE = "~*"
_IN_PLACE = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("if", "then", "else")


@dataclass(frozen=True)
class KeyMember:
    member: str
    type: str  # "string" | "integer"
    param: str


@dataclass(frozen=True)
class Annotated:
    """One annotation at one instance pattern of one document file (the file whose root the walk started from)."""

    keyword: str  # "x-unique" | "x-references"
    rule: str
    variant: str
    file: str  # the document's schema file (where the walk started)
    location: Location  # where the annotation is written
    scope: tuple[str, ...]  # instance pattern of the annotated subschema
    items: tuple[str, ...] = ()  # x-unique: relative pattern of the items
    key: tuple[KeyMember, ...] = ()  # x-unique
    source: tuple[str, ...] = ()  # x-references: relative pattern of the referring values
    target: tuple[str, ...] = ()  # x-references: relative pattern of the values referred to
    param: str = ""  # x-references: the message parameter of the value
    skip_empty: bool = False  # x-references


def pattern_text(tokens: tuple[str, ...]) -> str:
    """A pattern as one string: ``/results/*/grader_results`` (wildcards are written raw, names escaped)."""
    return "".join("/" + (t if t in (ARRAY_ITEM, MAP_VALUE) else escape_token(t)) for t in tokens)


class _Walk:
    def __init__(self, schemas: SchemaSet, file: str) -> None:
        self.ss = schemas
        self.file = file
        self.reached: set[tuple[str, ...]] = set()
        self.found: list[tuple[dict[str, Any], Location, tuple[str, ...]]] = []
        self.seen: set[tuple[int, tuple[str, ...]]] = set()  # (subschema, pattern) pairs already walked

    def run(self, root: dict[str, Any]) -> None:
        self._visit(root, Location(self.file, ""), (), frozenset())

    def _visit(self, node: Any, loc: Location, where: tuple[str, ...], stack: frozenset[int]) -> None:
        if not isinstance(node, dict) or id(node) in stack or len(where) > MAX_DEPTH or (id(node), where) in self.seen:
            return
        self.seen.add((id(node), where))
        stack = stack | {id(node)}
        self.reached.add(where)
        if "x-unique" in node or "x-references" in node:
            self.found.append((node, loc, where))
        ref = node.get("$ref")
        if isinstance(ref, str):
            target, tloc = self.ss.resolve_ref(node, ref)
            self._visit(target, tloc, where, stack)
        properties = node.get("properties")
        if isinstance(properties, dict):
            for name, sub in properties.items():
                if name == ARRAY_ITEM:
                    raise SchemaError(loc.file, loc.pointer + "/properties/*", "a property named * is ambiguous in annotation paths")
                self._visit(sub, loc.child("properties", name), (*where, name), stack)
        if isinstance(node.get("additionalProperties"), dict):
            self._visit(node["additionalProperties"], loc.child("additionalProperties"), (*where, MAP_VALUE), stack)
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict):
            for key, sub in patterns.items():
                self._visit(sub, loc.child("patternProperties", key), (*where, MAP_VALUE), stack)
        if isinstance(node.get("items"), dict):
            self._visit(node["items"], loc.child("items"), (*where, ARRAY_ITEM), stack)
        for keyword in _IN_PLACE:
            branches = node.get(keyword)
            if isinstance(branches, list):
                for i, sub in enumerate(branches):
                    self._visit(sub, loc.child(keyword, i), where, stack)
        for keyword in _IN_PLACE_ONE:
            self._visit(node.get(keyword), loc.child(keyword), where, stack)
        dependent = node.get("dependentSchemas")
        if isinstance(dependent, dict):
            for key, sub in dependent.items():
                self._visit(sub, loc.child("dependentSchemas", key), where, stack)

    def resolve(self, scope: tuple[str, ...], path: str, loc: Location, field: str) -> tuple[str, ...]:
        """``path`` (relative to ``scope``) with each ``*`` made ``*`` or ``~*`` as the schema says."""
        out: list[str] = []
        for raw in path.split("/"):
            here = (*scope, *out)
            if raw == ARRAY_ITEM:
                if (*here, ARRAY_ITEM) in self.reached:
                    out.append(ARRAY_ITEM)
                    continue
                if (*here, MAP_VALUE) in self.reached:
                    out.append(MAP_VALUE)
                    continue
            elif (*here, unescape_token(raw)) in self.reached:
                out.append(unescape_token(raw))
                continue
            raise SchemaError(
                loc.file,
                loc.pointer + "/" + field,
                f"{path!r} names no location of the schema below {pattern_text(scope) or '/'} (from {self.file})",
            )
        return tuple(out)


def collect(schemas: SchemaSet) -> tuple[Annotated, ...]:
    """Every annotation, at every instance pattern where some document file's root reaches it, in walk order."""
    out: list[Annotated] = []
    if not any("x-unique" in f.text or "x-references" in f.text for f in schemas.files):
        return ()  # the walk is skipped for schema sets that use neither keyword (large third-party ones)
    for f in schemas.files:
        walk = _Walk(schemas, f.name)
        walk.run(f.contents)
        for node, loc, where in walk.found:
            for i, spec in enumerate(node.get("x-unique", ())):
                here = loc.child("x-unique", i)
                out.append(
                    Annotated(
                        keyword="x-unique",
                        rule=spec["rule"],
                        variant=spec.get("variant", "default"),
                        file=f.name,
                        location=here,
                        scope=where,
                        items=walk.resolve(where, spec["items"], here, "items"),
                        key=tuple(KeyMember(k["member"], k["type"], k["param"]) for k in spec["key"]),
                    )
                )
            for i, spec in enumerate(node.get("x-references", ())):
                here = loc.child("x-references", i)
                out.append(
                    Annotated(
                        keyword="x-references",
                        rule=spec["rule"],
                        variant=spec.get("variant", "default"),
                        file=f.name,
                        location=here,
                        scope=where,
                        source=walk.resolve(where, spec["source"], here, "source"),
                        target=walk.resolve(where, spec["target"], here, "target"),
                        param=spec["param"],
                        skip_empty=bool(spec.get("skip_empty", False)),
                    )
                )
    return tuple(out)


def check_bindings(annotated: tuple[Annotated, ...], rules: dict[str, tuple[str, ...]]) -> tuple[Annotated, ...]:
    """Refuse an annotation whose rule id (or message variant) the rules catalog does not hold; return them ordered
    by the rule's position in the catalog (stable: walk order within one rule). ``rules``: id -> its variants
    (empty: only ``default``)."""
    order = {rule: i for i, rule in enumerate(rules)}
    for a in annotated:
        if a.rule not in rules:
            raise SchemaError(
                a.location.file, a.location.pointer + "/rule", f"unknown rule id {a.rule!r}: the rules catalog has no such rule"
            )
        variants = rules[a.rule] or ("default",)
        if a.variant not in variants:
            raise SchemaError(
                a.location.file,
                a.location.pointer + "/variant",
                f"rule {a.rule} has no variant {a.variant!r} (it has: {', '.join(variants)})",
            )
    return tuple(sorted(annotated, key=lambda a: order[a.rule]))


def table(annotated: tuple[Annotated, ...]) -> dict[str, list[dict[str, Any]]]:
    """The data table both SDKs interpret: document file -> its rules in reporting order (see the SDKs'
    ``annotated`` modules). Patterns are token lists; ``*`` is an array item, ``~*`` a map value."""
    out: dict[str, list[dict[str, Any]]] = {}
    for a in annotated:
        entry: dict[str, Any] = {"keyword": a.keyword, "rule": a.rule, "variant": a.variant, "scope": list(a.scope)}
        if a.keyword == "x-unique":
            entry["items"] = list(a.items)
            entry["key"] = [{"member": k.member, "type": k.type, "param": k.param} for k in a.key]
        else:
            entry.update(source=list(a.source), target=list(a.target), param=a.param, skip_empty=a.skip_empty)
        out.setdefault(a.file, []).append(entry)
    return dict(sorted(out.items()))


# Keywords that judge nothing: beside ``type: array`` and ``items`` they leave each item judged on its own.
_NON_JUDGING = frozenset({"title", "description", "$comment", "examples", "default", "readOnly", "writeOnly", "deprecated"})
# Root keywords that can see a property's value other than through ``properties`` (the rest look only at names).
_WHOLE_VALUE = frozenset(
    {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "unevaluatedProperties", "$ref", "$dynamicRef"}
)


def rows_stand_alone(schemas: SchemaSet) -> dict[str, dict[str, bool]]:
    """For each file whose root is an object schema with array properties: each such property -> whether its items
    can be validated one at a time (in batches) with exactly the findings of the whole document. True when the root
    has no keyword that sees the property's value except ``properties`` (no ``patternProperties`` key pattern
    mentions it), and the property's subschema is ``type: array`` and an ``items`` schema, beside keywords that
    judge nothing (annotations, ``x-`` keywords)."""
    import re

    out: dict[str, dict[str, bool]] = {}
    for f in schemas.files:
        root = f.contents
        properties = root.get("properties")
        if not isinstance(properties, dict):
            continue
        patterns = list(root.get("patternProperties", {})) if isinstance(root.get("patternProperties"), dict) else []
        whole = bool(_WHOLE_VALUE & root.keys())
        verdicts: dict[str, bool] = {}
        for name, sub in properties.items():
            if not isinstance(sub, dict) or sub.get("type") != "array":
                continue
            verdicts[name] = (
                not whole
                and not any(re.search(p, name) for p in patterns)
                and isinstance(sub.get("items"), dict)
                and all(k in ("type", "items") or k in _NON_JUDGING or k.startswith("x-") for k in sub)
            )
        if verdicts:
            out[f.name] = verdicts
    return out
