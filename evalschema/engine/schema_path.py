"""The schema path: the bundled schemas alone, with every failure mapped to a ledger code and a JSON Pointer.

Two engines give the same findings: ``fast`` (jsonschema-rs, compiled; the default) and ``reference``
(python-jsonschema, the most faithful implementation, kept selectable and checked against the fast one).
Each engine's errors are turned into engine-neutral :class:`Failure` records, then mapped once
(spec/conformance/README.md, "Pointer conventions"):
- a failure inside a subschema annotated ``x-rule`` gets that rule's code;
- otherwise the failing keyword decides (``type`` → TYPE_MISMATCH, ``required`` → REQUIRED_FIELD, …);
- a failed ``oneOf``/``anyOf`` is explained by the one alternative that accepts the value's JSON type, if
  exactly one does, and is a single SCHEMA_MISMATCH otherwise.
Deprecated properties present in a document are found by walking it alongside the schema, so deprecation
warnings come from the schema's ``deprecated``/``x-deprecation`` annotations, not from a hand-kept list.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import jsonschema_rs

from evalschema_models import constants
from evalschema_models import rules as codes
from evalschema_models._rows import ROWS_STAND_ALONE

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from referencing._core import Resolver

from ..core import messages, rfc3339
from ..core.extras import require
from ..core.findings import Finding, pointer
from ..core.limits import MAX_DEPTH
from ..schemas.registry import SchemaSet, load

Engine = Literal["fast", "reference"]
ENGINES: tuple[Engine, ...] = ("fast", "reference")

KEYWORD_CODES: dict[str, str] = constants.KEYWORD_CODES  # the failing keyword → its rule (spec/constants.json)


class Failure(NamedTuple):
    """One failing keyword, whichever engine found it."""

    keyword: str
    instance_path: tuple[str | int, ...]
    schema_path: tuple[str | int, ...]  # from the kind's root schema; "$ref" steps may be explicit or implicit
    instance: Any
    message: str
    missing: tuple[str, ...]  # required / dependentRequired: the absent property
    unexpected: tuple[str, ...]  # additionalProperties: the undeclared properties
    branches: dict[int, list[Failure]]  # oneOf / anyOf: failures per alternative


class DeprecatedUse(NamedTuple):
    """A deprecated property present in a document, with where its schema says so (``<file>#<JSON Pointer>``, the key
    of the generated ``DEPRECATIONS`` table of messages)."""

    pointer: str
    name: str
    value: Any
    location: str


class SchemaOutcome(NamedTuple):
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
    """Follows a schema path from a root, resolving ``$ref`` as it goes."""

    def __init__(self, schemas: SchemaSet, root_uri: str) -> None:
        self._schemas = schemas
        self._root_uri = root_uri

    def subschemas(self, path: Sequence[str | int]) -> Iterator[tuple[Any, Resolver[Any]]]:
        """Yield every subschema visited along ``path`` (the root first), with its resolver."""
        resolved = self._schemas.registry.resolver(base_uri=self._root_uri).lookup(self._root_uri)
        node: Any = resolved.contents
        resolver: Resolver[Any] = resolved.resolver
        yield node, resolver
        for step in path:
            if step == "$ref" and isinstance(node, dict) and isinstance(node.get("$ref"), str):
                # jsonschema-rs names the $ref step explicitly
                resolved = resolver.lookup(node["$ref"])
                node, resolver = resolved.contents, resolved.resolver
                yield node, resolver
                continue
            # python-jsonschema passes through $ref silently: the keyword is in the subschema it points at
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
        """Follow the ``$ref`` chain of one subschema."""
        for _ in range(32):
            if not (isinstance(schema, dict) and "$ref" in schema):
                break
            resolved = resolver.lookup(schema["$ref"])
            schema, resolver = resolved.contents, resolved.resolver
        return schema


_RULES: dict[tuple[int, str, tuple[str | int, ...]], str | None] = {}


def _rule_of(walker: _Walker, path: Sequence[str | int]) -> str | None:
    """The innermost ``x-rule`` on the way to the failing keyword, if any (remembered per schema path: a million
    rows failing the same way must not walk the schemas a million times)."""
    key = (id(walker._schemas), walker._root_uri, tuple(path))
    if key in _RULES:
        return _RULES[key]
    rule = None
    for node, _ in walker.subschemas(path):
        if isinstance(node, dict) and isinstance(node.get("x-rule"), str):
            rule = node["x-rule"]
    if len(_RULES) > 10_000:
        _RULES.clear()
    _RULES[key] = rule
    return rule


def _node_at(walker: _Walker, path: Sequence[str | int]) -> tuple[bool, Any, Resolver[Any] | None]:
    """The subschema at ``path`` (whether the walk got there, the node, its resolver)."""
    visited = list(walker.subschemas(path))
    explicit_refs = sum(1 for step in path if step == "$ref")
    node, resolver = visited[-1]
    return len(visited) >= len(path) + 1 - explicit_refs, node, resolver


def _declared_names(walker: _Walker, path: Sequence[str | int]) -> list[str]:
    """The property names a closed object's subschema declares (its ``properties``, through ``$ref`` and
    ``allOf``), for suggestions: ``path`` is the schema path of its ``additionalProperties`` keyword."""
    reached, node, resolver = _node_at(walker, path[:-1])
    if not reached or resolver is None:
        return []
    names: list[str] = []
    stack = [walker.resolve(node, resolver)]
    for _ in range(64):
        if not stack:
            break
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        names.extend(k for k in current.get("properties", {}) if isinstance(k, str))
        stack.extend(walker.resolve(branch, resolver) for branch in current.get("allOf", ()))
    return names


def keyword_params(keyword: str, instance: Any, declared: Any, node: Any = None) -> tuple[str, dict[str, Any]]:
    """The message variant and parameters of a failed ``keyword`` whose schema value is ``declared`` (in the schema
    object ``node``): every parameter the keyword's rule template may use (``js/src/engine/schemaPath.ts`` has the same
    function). A bound beside its other one names the scale (a score: 0 to 1); a date or date-time that is not
    valid says which part is wrong (``rfc3339.problem``)."""
    params: dict[str, Any] = {"value": instance, "keyword": keyword, "limit": declared, "expected": declared}
    if keyword in ("minimum", "maximum") and isinstance(node, dict):
        lower, upper = node.get("minimum"), node.get("maximum")
        if all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in (lower, upper)):
            return "scale", {**params, "lower": lower, "upper": upper}
    if keyword == "format":
        reason = rfc3339.problem(str(declared), instance)
        if reason is not None:
            return "because", {**params, "format": str(declared), "reason": constants.FORMAT_PROBLEMS[reason]}
    if keyword == "type":
        params["type"] = " or ".join(str(t) for t in declared) if isinstance(declared, list) else str(declared)
    elif keyword in ("pattern", "format"):
        params[keyword] = declared if keyword == "pattern" else str(declared)
    elif keyword == "enum":
        params["allowed"] = declared if isinstance(declared, list) else [declared]
    elif keyword == "propertyNames":
        params["name"] = instance
    return ("const" if keyword == "const" else "default"), params


def _keyword_findings(failure: Failure, code: str, walker: _Walker) -> list[tuple[str, str]]:
    """(pointer, message) of each finding a failed keyword makes, the message its own rule's (not ``code``'s)."""
    where = failure.instance_path
    if failure.missing:
        return [(pointer(*where, n), messages.render(codes.REQUIRED_FIELD, name=n)) for n in failure.missing]
    if failure.unexpected:
        declared = _declared_names(walker, failure.schema_path)
        return [(pointer(*where, n), messages.render(codes.UNKNOWN_FIELD, name=n, declared=declared)) for n in failure.unexpected]
    reached, value, _ = _node_at(walker, failure.schema_path)
    node = None
    if failure.keyword in ("minimum", "maximum"):
        around, parent, _ = _node_at(walker, failure.schema_path[:-1])
        node = parent if around else None
    variant, params = keyword_params(failure.keyword, failure.instance, value if reached else None, node)
    return [(pointer(*where), messages.render(KEYWORD_CODES.get(failure.keyword, code), variant, **params))]


def _map(failure: Failure, walker: _Walker, rule_messages: dict[str, str]) -> list[Finding]:
    rule = _rule_of(walker, failure.schema_path)
    if rule is not None:
        statement = rule_messages.get(rule, rule)
        if failure.missing or failure.unexpected:
            return [
                Finding(where, rule, "error", messages.render(rule, "because", statement=statement, reason=reason))
                for where, reason in _keyword_findings(failure, rule, walker)
            ]
        if failure.keyword == "const" or isinstance(failure.instance, (dict, list)) or "propertyNames" in failure.schema_path:
            # "false was expected" adds nothing to the rule's own sentence, and a whole object is no help; under
            # propertyNames one engine gives the name and another the object: the rule's sentence says it all
            return [Finding(pointer(*failure.instance_path), rule, "error", messages.render(rule, statement=statement))]
        message = messages.render(rule, "got", statement=statement, value=failure.instance)
        return [Finding(pointer(*failure.instance_path), rule, "error", message)]
    if failure.keyword in ("oneOf", "anyOf") and failure.branches is not None:
        *_, (node, resolver) = walker.subschemas(failure.schema_path)
        alternatives = walker.resolve(node, resolver)
        if isinstance(alternatives, list):
            value_type = json_type(failure.instance)
            accepting = [i for i, branch in enumerate(alternatives) if _accepts_type(walker.resolve(branch, resolver), value_type)]
            if len(accepting) == 1:
                mapped = [f for inner in failure.branches.get(accepting[0], ()) for f in _map(inner, walker, rule_messages)]
                if mapped:
                    return mapped
    excluded = _excluded_pattern(failure, walker)
    if excluded is not None:
        message = messages.render(codes.PATTERN_MISMATCH, "excluded", value=failure.instance, pattern=excluded)
        return [Finding(pointer(*failure.instance_path), codes.PATTERN_MISMATCH, "error", message)]
    code = KEYWORD_CODES.get(failure.keyword, codes.SCHEMA_MISMATCH)
    return [Finding(where, code, "error", message) for where, message in _keyword_findings(failure, code, walker)]


def _excluded_pattern(failure: Failure, walker: _Walker) -> str | None:
    """The pattern of a failed ``not: {pattern: …}``: how the schemas say "only these characters" in a way every
    regular-expression dialect reads alike (SPEC §3.1), so a pattern failure like any other."""
    if failure.keyword != "not":
        return None
    *_, (node, _) = walker.subschemas(failure.schema_path)
    if isinstance(node, dict) and set(node) == {"pattern"} and isinstance(node["pattern"], str):
        return node["pattern"]
    return None


# --- the reference engine: python-jsonschema (imported only when selected) ---------------------------------


# The attribute by which the reference engine's ``required`` / ``dependentRequired`` errors name the missing property.
_MISSING = "evalschema_missing"


def _missing_error(message: str, name: str) -> ValidationError:
    """python-jsonschema's error for a missing property, with the message it writes and the name as data."""
    from jsonschema import ValidationError

    error = ValidationError(message)
    setattr(error, _MISSING, name)
    return error


def _required(validator: Any, required: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``required``, as python-jsonschema checks it (one error per missing property), naming the property as data."""
    if not validator.is_type(instance, "object"):
        return
    for name in required:
        if name not in instance:
            yield _missing_error(f"{name!r} is a required property", name)


def _dependent_required(validator: Any, dependent: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``dependentRequired``, as python-jsonschema checks it, naming each missing property as data."""
    if not validator.is_type(instance, "object"):
        return
    for present, names in dependent.items():
        if present not in instance:
            continue
        for name in names:
            if name not in instance:
                yield _missing_error(f"{name!r} is a dependency of {present!r}", name)


@cache
def _reference_class() -> tuple[Any, Any]:
    """python-jsonschema's 2020-12 validator, with this specification's ``date``/``date-time``
    (:mod:`evalschema.rfc3339`) in its format checker (the schemas' patterns mean the same in every dialect), and
    its ``required`` / ``dependentRequired`` keyword functions replaced by ones that check the same and name the
    missing property as data, not only in the message text."""
    require("jsonschema", "reference", "the reference engine")
    from jsonschema import Draft202012Validator, FormatChecker, validators

    formats = FormatChecker()
    for name, check in rfc3339.FORMATS.items():
        formats.checks(name)(check)
    keywords = {"required": _required, "dependentRequired": _dependent_required}
    cls = validators.extend(Draft202012Validator, validators=keywords)  # type: ignore[no-untyped-call]  # untyped in jsonschema
    return cls, formats


def _schema_at(schemas: SchemaSet, kind: str, at: tuple[str, ...]) -> Any:
    """The kind's root schema, or a schema that is only a reference to one of its subschemas."""
    if not at:
        return schemas.roots[kind]
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": schemas.uri(kind) + "#" + pointer(*at)}


def _undeclared(schema: Any) -> Any:
    """A schema file without its ``$schema``. python-jsonschema picks the validator class of every subschema it
    descends into by that subschema's ``$schema`` (``validator_for``): a reference to a whole file would switch to the
    stock class, whose ``required`` names the missing property only in its message. Without ``$schema`` the class in
    use stays; the dialect is the registry's (every resource is created as 2020-12), so nothing else changes."""
    return {k: v for k, v in schema.items() if k != "$schema"} if isinstance(schema, dict) else schema


@cache
def _reference_registry(version: str | None) -> Any:
    """The version's schemas for the reference engine: the same files, each without ``$schema`` (:func:`_undeclared`).
    Like the shared registry it has no way to fetch: a reference no local file resolves is an error."""
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    schemas = load(version)
    resources = [(uri, DRAFT202012.create_resource(_undeclared(contents))) for uri, contents in schemas.documents.items()]
    return Registry().with_resources(resources).crawl()


@cache
def _reference_validator(kind: str, version: str | None, at: tuple[str, ...] = ()) -> Any:
    schemas = load(version)
    cls, formats = _reference_class()
    registry = _reference_registry(version)
    root = registry.contents(schemas.uri(kind)) if not at else _undeclared(_schema_at(schemas, kind, at))
    return cls(root, registry=registry, format_checker=formats)


def _from_reference(error: ValidationError) -> Failure:
    keyword, instance = str(error.validator), error.instance
    missing: tuple[str, ...] = ()
    unexpected: tuple[str, ...] = ()
    name = getattr(error, _MISSING, None)
    if keyword in ("required", "dependentRequired") and isinstance(name, str):
        missing = (name,)  # one error per missing property (_required, _dependent_required)
    elif keyword == "additionalProperties" and isinstance(instance, dict) and isinstance(error.schema, dict):
        declared = error.schema.get("properties", {})
        patterns = [re.compile(p) for p in error.schema.get("patternProperties", {})]
        unexpected = tuple(k for k in instance if k not in declared and not any(p.search(k) for p in patterns))
    branches: dict[int, list[Failure]] = {}
    for inner in error.context or ():
        if inner.relative_schema_path:
            branches.setdefault(int(inner.relative_schema_path[0]), []).append(_from_reference(inner))
    return Failure(
        keyword=keyword,
        instance_path=tuple(error.absolute_path),
        schema_path=tuple(error.absolute_schema_path),
        instance=instance,
        message=error.message,
        missing=missing,
        unexpected=unexpected,
        branches=branches,
    )


# --- the fast engine: jsonschema-rs ---------------------------------------------------------------------


def _refuse_remote(uri: str) -> Any:
    raise ValueError(f"refusing to fetch {uri}: every schema is local")


@cache
def _fast_validator(kind: str, version: str | None, at: tuple[str, ...] = ()) -> Any:
    schemas = load(version)
    files = reach(kind, version)[0] or sorted(schemas.documents)  # the others would cost ~a fifth of its build
    registry = jsonschema_rs.Registry([(uri, schemas.documents[uri]) for uri in files], retriever=_refuse_remote)
    return jsonschema_rs.validator_for(
        _schema_at(schemas, kind, at), registry=registry, validate_formats=True, formats=rfc3339.FORMATS, retriever=_refuse_remote
    )


@cache
def _fast_screen(kind: str, version: str | None, at: tuple[str, ...] = ()) -> Any:
    """The fast engine's first, boolean pass: the schemas with each format that has a common-case pattern
    (``rfc3339.COMMON``) checked by that pattern instead, all in Rust — a validator given Python format checks
    pays for them on every value, used or not (a third of the pass). A pattern accepts only what its format
    accepts (``tests/test_formats.py``), so what passes is valid; a value it refuses (February 29th, a leap
    second, or an invalid one) sends the document on to the full check. Schemas with another format keep the
    full validator for this pass too."""
    schemas = load(version)
    documents = {uri: _with_format_patterns(contents) for uri, contents in schemas.documents.items()}
    if any(_has_format(contents) for contents in documents.values()):
        return _fast_validator(kind, version, at)
    registry = jsonschema_rs.Registry(sorted(documents.items()), retriever=_refuse_remote)
    root = documents[schemas.uri(kind)] if not at else _schema_at(schemas, kind, at)
    return jsonschema_rs.validator_for(root, registry=registry, validate_formats=False, retriever=_refuse_remote)


# A whole document with fewer rows (items of its top-level arrays) than this gets the full validator for its first
# pass: building the screen (a walk over every schema file, then a second validator: ~4× the full one's build, 7 ms
# on a 2-core machine) costs more than the Python format checks it would spare a small document.
SCREEN_FROM_ROWS = 64


def _first_pass(value: Any, kind: str, version: str | None, at: tuple[str, ...]) -> Any:
    """The validator whose ``is_valid`` is asked first: the screen (:func:`_fast_screen`), but for a small document."""
    if not at and not (isinstance(value, dict) and sum(len(v) for v in value.values() if isinstance(v, list)) >= SCREEN_FROM_ROWS):
        return _fast_validator(kind, version, at)
    return _fast_screen(kind, version, at)


def _has_format(schema: Any) -> bool:
    if isinstance(schema, list):
        return any(_has_format(item) for item in schema)
    if not isinstance(schema, dict):
        return False
    return isinstance(schema.get("format"), str) or any(
        _has_format(v) for k, v in schema.items() if k not in _DATA_KEYWORDS and not k.startswith("x-")
    )


_DATA_KEYWORDS = frozenset({"const", "enum", "examples", "default"})  # their values are instances, not schemas


def _with_format_patterns(schema: Any) -> Any:
    """A copy of ``schema`` with ``"format": F`` replaced by F's ``rfc3339.COMMON`` pattern, for each format F there
    (``pattern`` and ``format`` both judge strings only); beside a ``pattern`` of its own, in an ``allOf``."""
    if isinstance(schema, list):
        return [_with_format_patterns(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: v if k in _DATA_KEYWORDS or k.startswith("x-") else _with_format_patterns(v) for k, v in schema.items()}
    name = out.get("format")
    if isinstance(name, str) and name in rfc3339.COMMON:
        del out["format"]
        pattern = f"^(?:{rfc3339.COMMON[name]})$"
        if "pattern" not in out:  # a keyword of its own: an allOf costs jsonschema-rs a third of the pass
            out["pattern"] = pattern
        else:
            allof = out.get("allOf")
            out["allOf"] = [*(allof if isinstance(allof, list) else []), {"pattern": pattern}]
    return out


def _from_fast(error: Any) -> Failure:
    kind = error.kind
    detail: dict[str, Any] = kind.as_dict() if hasattr(kind, "as_dict") else {}
    path = tuple(error.evaluation_path)
    keyword = str(path[-1]) if path else ""
    branches: dict[int, list[Failure]] = {}
    if keyword in ("oneOf", "anyOf"):
        for index, inner in enumerate(detail.get("context") or ()):
            branches[index] = [_from_fast(e) for e in inner]
    missing = (detail["property"],) if keyword in ("required", "dependentRequired") and "property" in detail else ()
    unexpected = tuple(detail.get("unexpected") or ()) if keyword == "additionalProperties" else ()
    return Failure(
        keyword=keyword,
        instance_path=tuple(error.instance_path),
        schema_path=path,
        instance=error.instance,
        message=error.message,
        missing=missing,
        unexpected=unexpected,
        branches=branches,
    )


def failures(document: Any, kind: str, engine: Engine = "fast", version: str | None = None) -> Iterator[Failure]:
    """Every failing keyword of ``document`` validated as ``kind`` (of spec ``version``), engine-neutral."""
    yield from _failures(document, kind, engine, version, ())


def _failures(value: Any, kind: str, engine: Engine, version: str | None, at: tuple[str, ...]) -> Iterator[Failure]:
    """Failures of ``value`` against the subschema at ``at`` in the kind's root (the root itself when empty), with
    schema paths as engines give them from that subschema."""
    if engine == "fast":
        try:
            if _first_pass(value, kind, version, at).is_valid(value):  # the common case: one pass
                return
            usable = True
        except (UnicodeEncodeError, ValueError):
            usable = False  # a string jsonschema-rs cannot take (a lone surrogate): the reference engine can
        found: list[Failure] | None = None
        if usable:
            validator = _fast_validator(kind, version, at)
            try:
                if validator.is_valid(value):
                    return
                found = [_from_fast(e) for e in validator.iter_errors(value)]
            except (UnicodeEncodeError, ValueError):
                found = None
        # jsonschema-rs drops empty property names from instance paths: an invalid document holding one is
        # explained by the reference engine (only invalid documents pay for the look)
        if found is not None and not _has_empty_key(value):
            yield from found
            return
    # python-jsonschema recurses a few frames per level, and quotes failing values with repr(): a value nested
    # MAX_DEPTH levels deep (the most the loaders accept; jsonschema-rs cannot hand such a value back) needs room
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20 * MAX_DEPTH))
    try:
        found_by_reference = [_from_reference(e) for e in _reference_validator(kind, version, at).iter_errors(value)]
    finally:
        sys.setrecursionlimit(limit)
    yield from found_by_reference


def _relocated(failure: Failure, schema_prefix: tuple[str | int, ...], explicit_ref: bool, rows: tuple[str, int]) -> Failure:
    """A failure found by validating a batch of array items against the array's subschema, as if the whole document
    had been validated: schema paths from the kind's root, instance paths from the document's."""
    path = failure.schema_path
    if explicit_ref and path[:1] == ("$ref",):  # jsonschema-rs names the wrapper's own $ref step
        path = path[1:]
    instance = failure.instance_path
    if instance and isinstance(instance[0], int):
        instance = (rows[0], rows[1] + instance[0], *instance[1:])
    return failure._replace(
        schema_path=(*schema_prefix, *path),
        instance_path=instance,
        branches={i: [_relocated(f, schema_prefix, explicit_ref, rows) for f in inner] for i, inner in failure.branches.items()},
    )


def _has_empty_key(document: Any) -> bool:
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "" in node:
                return True
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return False


# --- deprecated properties present in a document ---------------------------------------------------------


_WalkFrame = tuple[Any, Any, "Resolver[Any]", tuple[str | int, ...]]  # value, its schema, resolver, where


def _find_deprecated(document: Any, kind: str, version: str | None) -> list[DeprecatedUse]:
    """Deprecated properties present in the document, found by walking it alongside the schema."""
    schemas = load(version)
    resolved = schemas.registry.resolver(base_uri=schemas.uri(kind)).lookup(schemas.uri(kind))
    return _walk_deprecated(schemas, kind, [(document, resolved.contents, resolved.resolver, ())])


@cache
def _schema_locations(version: str) -> dict[int, str]:
    """Every subschema object of a version's schemas (by identity: the registry holds the loaded documents) and
    its location, ``<file>#<JSON Pointer>``."""
    schemas = load(version)
    locations: dict[int, str] = {}
    for uri in schemas.resources:
        file = uri.rsplit("/", 1)[-1]
        stack: list[tuple[Any, str]] = [(schemas.registry.contents(uri), "")]
        while stack:
            node, at = stack.pop()
            if isinstance(node, dict):
                locations[id(node)] = f"{file}#{at}"
                stack.extend((v, f"{at}/{k.replace('~', '~0').replace('/', '~1')}") for k, v in node.items() if isinstance(v, (dict, list)))
            elif isinstance(node, list):
                stack.extend((v, f"{at}/{i}") for i, v in enumerate(node) if isinstance(v, (dict, list)))
    return locations


def _walk_deprecated(schemas: SchemaSet, kind: str, stack: list[_WalkFrame]) -> list[DeprecatedUse]:
    walker = _Walker(schemas, schemas.uri(kind))
    found: list[DeprecatedUse] = []
    while stack:  # iterative: deep documents cannot exhaust the Python stack
        value, schema, resolver, where = stack.pop()
        if not isinstance(schema, dict) or len(where) > 256:
            continue
        if isinstance(schema.get("$ref"), str):
            target = resolver.lookup(schema["$ref"])
            stack.append((value, target.contents, target.resolver, where))
        if schema.get("deprecated") is True and where:
            found.append(DeprecatedUse(pointer(*where), str(where[-1]), value, _schema_locations(schemas.version).get(id(schema), "")))
        for keyword in ("allOf", "oneOf", "anyOf"):
            for branch in schema.get(keyword, ()):
                if keyword == "allOf" or _accepts_type(walker.resolve(branch, resolver), json_type(value)):
                    stack.append((value, branch, resolver, where))
        if isinstance(value, dict):
            properties, extra = schema.get("properties", {}), schema.get("additionalProperties")
            for key, item in value.items():
                if key in properties:
                    stack.append((item, properties[key], resolver, (*where, key)))
                elif isinstance(extra, dict):
                    stack.append((item, extra, resolver, (*where, key)))
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            stack.extend((item, schema["items"], resolver, (*where, i)) for i, item in enumerate(value))
    return sorted({use.pointer: use for use in found}.values(), key=lambda use: use.pointer)


@cache
def reach(kind: str, version: str | None) -> tuple[tuple[str, ...] | None, bool]:
    """The schema files a document of ``kind`` can reach through ``$ref``s between files, and whether any of them
    has a deprecated subschema (whether the walk for deprecated properties can find any: :func:`may_deprecate`).
    Decided file by file, resolving no reference, so a valid document never builds the reference registry.
    The files are ``None`` when they cannot be known that way: a reference to a file that is not one of the
    schemas, or an embedded ``$id`` (then the answer on deprecation is yes: the walk decides)."""
    schemas = load(version)
    seen: set[str] = set()
    todo, deprecates, embeds = [schemas.uri(kind)], False, False
    while todo:
        uri = todo.pop()
        if uri in seen:
            continue
        if uri not in schemas.documents:
            return None, True
        seen.add(uri)
        targets, deprecated, embedded = _file_facts(uri, schemas.documents[uri])
        deprecates, embeds = deprecates or deprecated, embeds or embedded
        todo.extend(targets)
    return (None if embeds else tuple(sorted(seen))), deprecates


def may_deprecate(kind: str, version: str | None) -> bool:
    """Whether the walk for deprecated properties can find any in a document of ``kind`` (:func:`reach`): it may say
    yes where the walk then finds nothing, never no where it would find something."""
    return reach(kind, version)[1]


def _file_facts(uri: str, schema: Any) -> tuple[set[str], bool, bool]:
    """One walk of one schema file: the files (absolute URIs without fragment) its ``$ref``s point into, whether it
    has a deprecated subschema, and whether it embeds an ``$id``. An embedded ``$id`` joins the files found (most
    often an unknown one, so :func:`reach` says "unknown"); the references under it resolve against it, which only
    a resolver follows, so :func:`reach` does not name the files then either."""
    from urllib.parse import urldefrag, urljoin

    found: set[str] = set()
    deprecated = embedded = False
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in ("$ref", "$dynamicRef"):
                target = node.get(key)
                if isinstance(target, str) and not target.startswith("#"):  # "#…" stays in this file
                    found.add(urldefrag(urljoin(uri, target)).url)
            if node is not schema and isinstance(node.get("$id"), str):
                found.add(urldefrag(urljoin(uri, node["$id"])).url)
                embedded = True
            deprecated = deprecated or node.get("deprecated") is True
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return found - {uri}, deprecated, embedded


def check(document: Any, kind: str, rule_messages: dict[str, str], engine: Engine = "fast", version: str | None = None) -> SchemaOutcome:
    """Validate ``document`` as ``kind`` against the schema alone (the working schemas, or release ``version``)."""
    schemas = load(version)
    walker = _Walker(schemas, schemas.uri(kind))
    findings = [f for failure in failures(document, kind, engine, version) for f in _map(failure, walker, rule_messages)]
    deprecated = _find_deprecated(document, kind, version) if may_deprecate(kind, version) else []
    return SchemaOutcome(findings, deprecated)


def check_rows(
    rows: list[Any], start: int, kind: str, array: str, rule_messages: dict[str, str], engine: Engine = "fast", version: str | None = None
) -> SchemaOutcome:
    """Validate ``rows``, the items ``start``, ``start + 1``, … of the root array property ``array``, exactly as
    validating the whole document would report them (same codes, pointers and deprecations).

    Only sound when the array's subschema judges each item on its own; :func:`rows_stand_alone` says so.
    """
    schemas = load(version)
    at = ("properties", array)
    walker = _Walker(schemas, schemas.uri(kind))
    relocated = (
        _relocated(f, at, engine == "fast" or f.schema_path[:1] == ("$ref",), (array, start))
        for f in _failures(rows, kind, engine, version, at)
    )
    findings = [f for failure in relocated for f in _map(failure, walker, rule_messages)]
    deprecated: list[DeprecatedUse] = []
    if may_deprecate(kind, version):
        *_, (items, resolver) = walker.subschemas((*at, "items"))
        deprecated = _walk_deprecated(schemas, kind, [(row, items, resolver, (array, start + i)) for i, row in enumerate(rows)])
    return SchemaOutcome(findings, deprecated)


# Keywords that only name or describe: an array subschema made of these and ``items`` judges each item alone.
_ANNOTATIONS = frozenset(constants.ROW_ANNOTATION_KEYWORDS)
# Root keywords that can see a property's value other than through ``properties`` (the rest look only at names).
_WHOLE_VALUE = frozenset(constants.ROW_WHOLE_VALUE_KEYWORDS)


@cache
def rows_stand_alone(kind: str, array: str, version: str | None = None) -> bool:
    """Whether each item of the root array property ``array`` can be validated on its own, so that validating items
    in batches gives exactly the findings of the whole document: codegen's table for the working schemas
    (``evalschema_models._rows``); for an earlier release pinned with ``version`` (no table is generated for
    those), computed from its schemas as codegen does."""
    if version is None:
        return ROWS_STAND_ALONE.get(f"{kind}.json", {}).get(array, False)
    return computed_rows_stand_alone(kind, array, version)


def computed_rows_stand_alone(kind: str, array: str, version: str | None = None) -> bool:
    """The root has no keyword that sees the array's value except ``properties``, and the array's subschema is
    ``type: array`` and ``items`` (with annotations)."""
    schemas = load(version)
    root = schemas.roots[kind]
    if not isinstance(root, dict) or _WHOLE_VALUE & root.keys():
        return False
    subschema = root.get("properties", {}).get(array)
    if not isinstance(subschema, dict) or subschema.get("type") != "array" or not isinstance(subschema.get("items"), dict):
        return False
    return set(subschema) <= {"type", "items"} | _ANNOTATIONS
