"""The rules JSON Schema cannot express (the ledger marks them ``code``), for one document at a time.

Every function takes a document that may be schema-invalid: it checks the types it relies on and skips what
it cannot read, so it never raises on bad input. Each rule is one pass over the document (no quadratic scans).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from evalschema_models import rules as codes
from evalschema_models.constants import MIGRATION_KEY

from ..core import messages
from ..core.findings import Finding, pointer
from ..schemas.registry import load


def indexed_objects(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """The object items of a list, with their index; anything else yields nothing."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict):
                yield index, item


_LONE_SURROGATE = "[\ud800-\udfff]"  # compiled on first use, as _MODIFIERS (start-up: ``evalschema.__main__``)


_MODIFIERS = r"\(\?[imsx]*-?[imsx]*:"


def newer_syntax(source: str) -> tuple[str, str] | None:
    """ECMA-262 syntax newer than the dialect (ES2024 with the unicode flag), which one engine accepts and another
    refuses: duplicate named groups (even in different alternatives) and inline modifier groups ``(?i:…)``. The
    same scan as ``newerSyntax`` in js/src/rules/rules.ts."""
    names: set[str] = set()
    i, in_class = 0, False
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(" and source.startswith("(?", i):
            if source.startswith("(?<", i) and not source.startswith(("(?<=", "(?<!"), i):
                end = source.find(">", i + 3)
                name = source[i + 3 : end] if end > 0 else ""
                if name in names:
                    return "duplicate_group", name
                names.add(name)
            elif (match := re.compile(_MODIFIERS).match(source, i)) and match.group() != "(?:":
                return "modifier", ""
        i += 1
    return None


def _regex_finding(where: tuple[str | int, ...], source: Any) -> Finding | None:
    if not isinstance(source, str):
        return None
    newer = newer_syntax(source)
    if newer is not None:
        return Finding(
            pointer(*where), codes.INVALID_REGEX, "error", messages.render(codes.INVALID_REGEX, newer[0], value=source, name=newer[1])
        )
    # the dialect is ECMA-262 with the unicode flag (JSON Schema's regex dialect), as in every SDK; a lone
    # surrogate (a literal character there) cannot cross into regress's UTF-8, so it stands in as U+FFFD.
    # Imported here: only a document with a pattern needs it (start-up: ``evalschema.__main__``)
    import regress

    try:
        regress.Regex(re.sub(_LONE_SURROGATE, "\ufffd", source), "u")
    except regress.RegressError:
        # the engine's own words differ from engine to engine: the message names the dialect, not the engine's reason
        return Finding(pointer(*where), codes.INVALID_REGEX, "error", messages.render(codes.INVALID_REGEX, value=source))
    return None


@cache
def well_known_types() -> tuple[str, ...]:
    """The well-known grader types, read from the grader schema: those CUSTOM_GRADER_HANDLER's condition leaves out
    (``if`` type is not one of these ``then`` params.handler is required)."""
    root = load(None).roots["grader"]
    for rule in root.get("allOf", ()):
        if isinstance(rule, dict) and rule.get("x-rule") == codes.CUSTOM_GRADER_HANDLER:
            return tuple(rule.get("if", {}).get("properties", {}).get("type", {}).get("not", {}).get("enum", ()))
    return ()


def _near_miss(kind: Any, where: tuple[str | int, ...]) -> Iterator[Finding]:
    """GRADER_TYPE_NEAR_MISS: a type that is no well-known one but close to one (``exact-match``) is a typo more
    often than a custom grader; it is said even when the grader names a handler (then no other rule fires)."""
    known = well_known_types()
    if isinstance(kind, str) and kind not in known and messages.suggest(kind, known):
        message = messages.render(codes.GRADER_TYPE_NEAR_MISS, value=kind, allowed=known)
        yield Finding(pointer(*where, "type"), codes.GRADER_TYPE_NEAR_MISS, "warning", message)


@cache
def declared_params() -> dict[str, tuple[str, ...]]:
    """Each well-known grader type's parameter names, read from the grader schema: the per-type branches of its
    GRADER_PARAMS_INVALID subschema (``if`` type is X ``then`` params has these properties)."""
    out: dict[str, tuple[str, ...]] = {}
    root = load(None).roots["grader"]
    for rule in root.get("allOf", ()):
        if not isinstance(rule, dict) or rule.get("x-rule") != codes.GRADER_PARAMS_INVALID:
            continue
        for branch in rule.get("allOf", ()):
            kind = branch.get("if", {}).get("properties", {}).get("type", {})
            names = tuple(branch.get("then", {}).get("properties", {}).get("params", {}).get("properties", {}))
            for type_name in [kind["const"]] if "const" in kind else kind.get("enum", []):
                out[type_name] = names
    return out


def _grader_regex(grader: dict[str, Any], where: tuple[str | int, ...]) -> Iterator[Finding]:
    """The checks of one grader object a schema cannot make: its regex compiles, and a well-known type's params
    carry only the names its schema declares (UNKNOWN_GRADER_PARAM, a warning until the schema closes them)."""
    params = grader.get("params")
    if grader.get("type") == "regex" and isinstance(params, dict):
        finding = _regex_finding((*where, "params", "pattern"), params.get("pattern"))
        if finding:
            yield finding
    kind = grader.get("type")
    yield from _near_miss(kind, where)
    declared = declared_params().get(kind) if isinstance(kind, str) else None
    if declared is not None and isinstance(params, dict):
        for name in params:
            if name not in declared:
                message = messages.render(codes.UNKNOWN_GRADER_PARAM, name=name, value=kind, declared=declared)
                yield Finding(pointer(*where, "params", name), codes.UNKNOWN_GRADER_PARAM, "warning", message)


def grader_rules(document: dict[str, Any]) -> Iterator[Finding]:
    yield from _grader_regex(document, ())


def testcase_rules(document: dict[str, Any], where: tuple[str | int, ...] = ()) -> Iterator[Finding]:
    for index, grader in indexed_objects(document.get("graders")):
        yield from _grader_regex(grader, (*where, "graders", index))


def suite_rules(document: dict[str, Any]) -> Iterator[Finding]:
    graders = list(indexed_objects(document.get("graders")))
    cases = list(indexed_objects(document.get("test_cases")))
    for index, grader in graders:
        yield from _grader_regex(grader, ("graders", index))
    for case_index, case in cases:
        yield from testcase_rules(case, ("test_cases", case_index))


def _invalidating(result: dict[str, Any]) -> bool:
    return any(v.get("invalidates_result") is True for _, v in indexed_objects(result.get("constraint_violations")))


def resultset_document_rules(document: dict[str, Any]) -> Iterator[Finding]:
    """The rules on a result set's own fields (everything but its rows)."""
    group = document.get("group")
    if isinstance(group, dict) and isinstance(group.get("group_id"), str) and group.get("parent_group_id") == group["group_id"]:
        yield Finding(
            pointer("group", "parent_group_id"), codes.SELF_PARENT, "error", messages.render(codes.SELF_PARENT, value=group["group_id"])
        )


class ResultRows:
    """The hand-written row rule of a result set (ERROR_WITH_INVALIDATING_VIOLATION), fed rows in order: a whole
    document's, or batches as a stream reads them. No state across rows. (The rows' uniqueness and reference rules
    are declared by the schema and checked by ``annotated``.) ``compact`` is accepted for the callers' symmetry."""

    def __init__(self, *, compact: bool = False) -> None:
        self.compact = compact

    def check(self, results: list[Any], start: int = 0) -> Iterator[Finding]:
        """Rows ``results``, the first of which is row ``start`` of the document; a row without an error costs one
        lookup."""
        for index, result in enumerate(results, start):
            if isinstance(result, dict) and "error" in result and result.get("constraint_violations") and _invalidating(result):
                yield Finding(
                    pointer("results", index, "error"),
                    codes.ERROR_WITH_INVALIDATING_VIOLATION,
                    "warning",
                    messages.render(codes.ERROR_WITH_INVALIDATING_VIOLATION),
                )


def _placeholders(document: dict[str, Any]) -> Iterator[Finding]:
    """Evals whose placeholders ``evalschema migrate`` left for a person to decide (MIGRATION_PLACEHOLDER)."""
    places: list[tuple[tuple[str | int, ...], Any]] = [(("evals",), document.get("evals"))]
    prompts = document.get("prompts")
    if isinstance(prompts, dict):
        places += [
            (("prompts", name, "evals"), prompt.get("evals")) for name, prompt in sorted(prompts.items()) if isinstance(prompt, dict)
        ]
    for where, evals in places:
        for index, entry in indexed_objects(evals):
            extensions = entry.get("extensions")
            if isinstance(extensions, dict) and MIGRATION_KEY in extensions:
                marker = extensions[MIGRATION_KEY]
                decide = marker.get("decide") if isinstance(marker, dict) else None
                if isinstance(decide, list) and decide:
                    message = messages.render(codes.MIGRATION_PLACEHOLDER, names=decide, name=MIGRATION_KEY)
                else:
                    message = messages.render(codes.MIGRATION_PLACEHOLDER, "unspecified", name=MIGRATION_KEY)
                yield Finding(pointer(*where, index, "extensions", MIGRATION_KEY), codes.MIGRATION_PLACEHOLDER, "warning", message)


def pack_rules(document: dict[str, Any]) -> Iterator[Finding]:
    prompts = document.get("prompts")
    validators: list[tuple[tuple[str | int, ...], dict[str, Any]]] = []
    if isinstance(prompts, dict):
        # JSON objects are unordered: visit prompts in a canonical order (UTF-16 code units, as JavaScript
        # compares strings) so "the later duplicate" is the same in every implementation
        for name, prompt in sorted(prompts.items(), key=lambda item: item[0].encode("utf-16-be", "surrogatepass")):
            if not isinstance(prompt, dict):
                continue
            if isinstance(prompt.get("id"), str) and prompt["id"] != name:
                yield Finding(
                    pointer("prompts", name, "id"),
                    codes.PROMPT_ID_MISMATCH,
                    "error",
                    messages.render(codes.PROMPT_ID_MISMATCH, value=prompt["id"], name=name),
                )
            validators.extend((("prompts", name, "validators", i), v) for i, v in indexed_objects(prompt.get("validators")))
    yield from _placeholders(document)
    for where, validator in validators:
        params = validator.get("params")
        if validator.get("type") == "regex_match" and isinstance(params, dict):
            finding = _regex_finding((*where, "params", "pattern"), params.get("pattern"))
            if finding:
                yield finding
