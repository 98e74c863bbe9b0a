"""The schema path: python-jsonschema over the bundled schemas, errors mapped to ledger codes.

Mapping (spec/conformance/README.md, "Pointer conventions"):
- an error inside a subschema annotated ``x-rule`` gets that rule's code;
- otherwise the failing keyword decides (``type`` → TYPE_MISMATCH, ``required`` → REQUIRED_FIELD, …);
- a failed ``oneOf``/``anyOf`` is explained by the one alternative that accepts the value's JSON type, if
  exactly one does, and is a single SCHEMA_MISMATCH otherwise.
Deprecated properties present in the document are found by walking the document alongside the schema, so
deprecation warnings come from the schema's ``deprecated``/``x-deprecation`` annotations, not a hand-kept list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from referencing._core import Resolver

from evalschema_models import rules as codes

from .findings import Finding, pointer
from .registry import SchemaSet, current

KEYWORD_CODES: dict[str, str] = {
    "type": codes.TYPE_MISMATCH,
    "required": codes.REQUIRED_FIELD,
    "dependentRequired": codes.REQUIRED_FIELD,
    "additionalProperties": codes.UNKNOWN_FIELD,
    "unevaluatedProperties": codes.UNKNOWN_FIELD,
    "propertyNames": codes.UNKNOWN_FIELD,
    "minimum": codes.OUT_OF_RANGE,
    "maximum": codes.OUT_OF_RANGE,
    "exclusiveMinimum": codes.OUT_OF_RANGE,
    "exclusiveMaximum": codes.OUT_OF_RANGE,
    "multipleOf": codes.OUT_OF_RANGE,
    "minLength": codes.LENGTH_OUT_OF_RANGE,
    "maxLength": codes.LENGTH_OUT_OF_RANGE,
    "minItems": codes.LENGTH_OUT_OF_RANGE,
    "maxItems": codes.LENGTH_OUT_OF_RANGE,
    "minProperties": codes.LENGTH_OUT_OF_RANGE,
    "maxProperties": codes.LENGTH_OUT_OF_RANGE,
    "uniqueItems": codes.LENGTH_OUT_OF_RANGE,
    "pattern": codes.PATTERN_MISMATCH,
    "format": codes.INVALID_FORMAT,
    "enum": codes.INVALID_VALUE,
    "const": codes.INVALID_VALUE,
    "oneOf": codes.SCHEMA_MISMATCH,
    "anyOf": codes.SCHEMA_MISMATCH,
    "not": codes.SCHEMA_MISMATCH,
    "contains": codes.SCHEMA_MISMATCH,
}

_JSON_TYPES = ("null", "boolean", "object", "array", "number", "string")


@dataclass(frozen=True)
class DeprecatedUse:
    """A deprecated property present in a document, with the schema's deprecation annotation."""

    pointer: str
    name: str
    value: Any
    annotation: dict[str, Any]
    description: str


@dataclass(frozen=True)
class SchemaOutcome:
    findings: list[Finding]
    deprecated: list[DeprecatedUse]


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else "unknown"


def _accepts_type(schema: Any, value_type: str) -> bool:
    """Whether a (resolved) subschema's ``type`` keyword admits a JSON type; no ``type`` admits all."""
    if not isinstance(schema, dict) or "type" not in schema:
        return schema is not False
    declared = schema["type"]
    allowed = {declared} if isinstance(declared, str) else set(declared)
    if "integer" in allowed:
        allowed.add("number")
    return value_type in allowed


class _Walker:
    """Follows an error's absolute schema path from the root, resolving ``$ref`` as it goes."""

    def __init__(self, schemas: SchemaSet, root_uri: str) -> None:
        self._schemas = schemas
        self._root_uri = root_uri

    def subschemas(self, path: Sequence[str | int]) -> Iterator[tuple[Any, Resolver[Any]]]:
        """Yield every subschema visited along ``path`` (the root first), with its resolver."""
        resolver: Resolver[Any] = self._schemas.registry.resolver(base_uri=self._root_uri)
        resolved = resolver.lookup(self._root_uri)
        node: Any = resolved.contents
        resolver = resolved.resolver
        yield node, resolver
        for step in path:
            # python-jsonschema's schema paths pass through $ref transparently: when the next keyword is not
            # in this subschema, it is in the subschema the $ref points at
            while isinstance(node, dict) and "$ref" in node and step not in node:
                resolved = resolver.lookup(node["$ref"])
                node, resolver = resolved.contents, resolved.resolver
                yield node, resolver
            if isinstance(node, dict) and step in node:
                node = node[step]
            elif isinstance(node, list) and isinstance(step, int) and step < len(node):
                node = node[step]
            else:
                return
            yield node, resolver

    def resolve(self, schema: Any, resolver: Resolver[Any]) -> Any:
        """Follow ``$ref`` chains of one subschema."""
        seen = 0
        while isinstance(schema, dict) and "$ref" in schema and seen < 32:
            resolved = resolver.lookup(schema["$ref"])
            schema, resolver = resolved.contents, resolved.resolver
            seen += 1
        return schema


def _rule_of(walker: _Walker, path: Sequence[str | int]) -> str | None:
    """The innermost ``x-rule`` on the way to the failing keyword, if any."""
    rule = None
    for node, _ in walker.subschemas(path):
        if isinstance(node, dict) and isinstance(node.get("x-rule"), str):
            rule = node["x-rule"]
    return rule


def _brief(message: str, limit: int = 240) -> str:
    """Library messages quote the failing value; keep them readable when the value is large."""
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _keyword_findings(error: ValidationError, code: str, where: list[str | int]) -> list[Finding]:
    keyword = str(error.validator)
    instance = error.instance
    value: Any = error.validator_value
    if keyword in ("required", "dependentRequired") and isinstance(instance, dict):
        expected: Iterable[Any]
        if keyword == "required":
            expected = value
        else:
            expected = [n for k, names in value.items() if k in instance for n in names]
        return [
            Finding(pointer(*where, name), code, "error", f"missing required property {name!r}")
            for name in expected
            if isinstance(name, str) and name not in instance
        ]
    if keyword == "additionalProperties" and isinstance(instance, dict) and isinstance(error.schema, dict):
        declared = error.schema.get("properties", {})
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        extras = [k for k in instance if k not in declared and not any(p.search(k) for p in patterns)]
        return [Finding(pointer(*where, name), code, "error", f"unknown property {name!r}") for name in extras]
    return [Finding(pointer(*where), code, "error", _brief(error.message))]


def _map_error(error: ValidationError, walker: _Walker, rule_messages: dict[str, str]) -> list[Finding]:
    where = list(error.absolute_path)
    schema_path = list(error.absolute_schema_path)
    rule = _rule_of(walker, schema_path)
    if rule is not None:
        detail = rule_messages.get(rule, rule)
        if error.validator in ("required", "additionalProperties"):
            return [
                Finding(f.pointer, rule, "error", f"{detail} ({f.message})")
                for f in _keyword_findings(error, rule, where)
            ]
        if error.validator == "const":  # "False was expected" adds nothing to the rule's own sentence
            return [Finding(pointer(*where), rule, "error", detail)]
        return [Finding(pointer(*where), rule, "error", f"{detail} ({_brief(error.message)})")]
    if error.validator in ("oneOf", "anyOf") and isinstance(error.validator_value, list):
        value_type = json_type(error.instance)
        *_, (_, resolver) = walker.subschemas(schema_path[:-1])
        accepting = [
            index
            for index, branch in enumerate(error.validator_value)
            if _accepts_type(walker.resolve(branch, resolver), value_type)
        ]
        if len(accepting) == 1:
            inner = [e for e in error.context or () if e.relative_schema_path and e.relative_schema_path[0] == accepting[0]]
            mapped = [f for e in inner for f in _map_error(e, walker, rule_messages)]
            if mapped:
                return mapped
    code = KEYWORD_CODES.get(str(error.validator), codes.SCHEMA_MISMATCH)
    return _keyword_findings(error, code, where)


@cache
def _validator(kind: str) -> Draft202012Validator:
    schemas = current()
    return Draft202012Validator(
        schemas.roots[kind],
        registry=schemas.registry,
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


def _find_deprecated(document: Any, kind: str) -> list[DeprecatedUse]:
    """Deprecated properties present in the document, found by walking the schema's ``properties``."""
    schemas = current()
    walker = _Walker(schemas, schemas.uri(kind))
    found: list[DeprecatedUse] = []
    resolver = schemas.registry.resolver(base_uri=schemas.uri(kind))
    root = resolver.lookup(schemas.uri(kind))
    _walk_deprecated(document, root.contents, root.resolver, [], found, walker, 0)
    return list({use.pointer: use for use in found}.values())


def _walk_deprecated(
    value: Any,
    schema: Any,
    resolver: Resolver[Any],
    where: list[str | int],
    found: list[DeprecatedUse],
    walker: _Walker,
    depth: int,
) -> None:
    if depth > 64 or not isinstance(schema, dict):
        return
    if "$ref" in schema:
        resolved = resolver.lookup(schema["$ref"])
        _walk_deprecated(value, resolved.contents, resolved.resolver, where, found, walker, depth + 1)
    if schema.get("deprecated") is True and where:
        found.append(
            DeprecatedUse(pointer(*where), str(where[-1]), value, schema.get("x-deprecation", {}), schema.get("description", ""))
        )
    for keyword in ("allOf", "oneOf", "anyOf"):
        for branch in schema.get(keyword, ()):
            target = walker.resolve(branch, resolver)
            if keyword == "allOf" or _accepts_type(target, json_type(value)):
                _walk_deprecated(value, branch, resolver, where, found, walker, depth + 1)
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                _walk_deprecated(item, properties[key], resolver, [*where, key], found, walker, depth + 1)
            elif isinstance(extra, dict):
                _walk_deprecated(item, extra, resolver, [*where, key], found, walker, depth + 1)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            _walk_deprecated(item, schema["items"], resolver, [*where, index], found, walker, depth + 1)


def check(document: Any, kind: str, rule_messages: dict[str, str]) -> SchemaOutcome:
    """Validate ``document`` as ``kind`` against the schema alone."""
    schemas = current()
    walker = _Walker(schemas, schemas.uri(kind))
    findings = [f for error in _validator(kind).iter_errors(document) for f in _map_error(error, walker, rule_messages)]
    return SchemaOutcome(findings, _find_deprecated(document, kind))
