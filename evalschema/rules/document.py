"""The rules JSON Schema cannot express (the ledger marks them ``code``), for one document at a time.

Every function takes a document that may be schema-invalid: it checks the types it relies on and skips what
it cannot read, so it never raises on bad input. Each rule is one pass over the document (no quadratic scans).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

import regress

from evalschema_models import rules as codes

from ..core import messages
from ..core.findings import Finding, pointer
from ..io.compact import KeyTable
from ..schemas.registry import load


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def indexed_objects(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    """The object items of a list, with their index; anything else yields nothing."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict):
                yield index, item


def _duplicates(items: Iterator[tuple[tuple[str | int, ...], Any]], code: str, variant: str = "default") -> Iterator[Finding]:
    """Report every later occurrence of a key; ``None`` keys (unreadable values) are skipped."""
    seen: dict[Any, tuple[str | int, ...]] = {}
    for where, key in items:
        if key is None:
            continue
        if key in seen:
            yield Finding(pointer(*where), code, "error", messages.render(code, variant, name=key, first=pointer(*seen[key])))
        else:
            seen[key] = where


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


_MODIFIERS = re.compile(r"\(\?[imsx]*-?[imsx]*:")


def newer_syntax(source: str) -> tuple[str, str] | None:
    """ECMA-262 syntax newer than the dialect (ES2024 with the unicode flag), which one engine accepts and another
    refuses: duplicate named groups (even in different alternatives) and inline modifier groups ``(?i:…)``. The
    same scan as ``newerSyntax`` in js/src/rules.ts."""
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
            elif (match := _MODIFIERS.match(source, i)) and match.group() != "(?:":
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
    # surrogate (a literal character there) cannot cross into regress's UTF-8, so it stands in as U+FFFD
    try:
        regress.Regex(_LONE_SURROGATE.sub("\ufffd", source), "u")
    except regress.RegressError:
        # the engine's own words differ from engine to engine: the message names the dialect, not the engine's reason
        return Finding(pointer(*where), codes.INVALID_REGEX, "error", messages.render(codes.INVALID_REGEX, value=source))
    return None


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
    yield from _duplicates(((("test_cases", i, "id"), _text(case.get("id"))) for i, case in cases), codes.DUPLICATE_ID)
    yield from _duplicates(((("graders", i, "id"), _text(g.get("id"))) for i, g in graders), codes.DUPLICATE_ID, "grader")
    known = {g.get("id") for _, g in graders if isinstance(g.get("id"), str)}
    for index, grader in graders:
        yield from _grader_regex(grader, ("graders", index))
    for case_index, case in cases:
        yield from testcase_rules(case, ("test_cases", case_index))
        refs = case.get("graders")
        if isinstance(refs, list):
            for ref_index, ref in enumerate(refs):
                if isinstance(ref, str) and ref and ref not in known:
                    yield Finding(
                        pointer("test_cases", case_index, "graders", ref_index),
                        codes.DANGLING_REFERENCE,
                        "error",
                        messages.render(codes.DANGLING_REFERENCE, name=ref),
                    )


def _invalidating(result: dict[str, Any]) -> bool:
    return any(v.get("invalidates_result") is True for _, v in indexed_objects(result.get("constraint_violations")))


def _attempt_key(result: dict[str, Any]) -> tuple[str, int] | None:
    case, attempt = result.get("test_case_id"), result.get("attempt")
    if type(case) is not str:
        return None
    if type(attempt) is int:  # the common case, checked first: this runs once per row
        return case, attempt
    return (case, int(attempt)) if type(attempt) is float and attempt.is_integer() else None  # 2.0 is 2 in JSON


def resultset_document_rules(document: dict[str, Any]) -> Iterator[Finding]:
    """The rules on a result set's own fields (everything but its rows)."""
    group = document.get("group")
    if isinstance(group, dict) and isinstance(group.get("group_id"), str) and group.get("parent_group_id") == group["group_id"]:
        yield Finding(
            pointer("group", "parent_group_id"), codes.SELF_PARENT, "error", messages.render(codes.SELF_PARENT, value=group["group_id"])
        )


class ResultRows:
    """The row rules of a result set, fed rows in order: a whole document's, or batches as a stream reads them.

    The only state kept across rows is the first index of each (test_case_id, attempt): linear time, and memory
    that grows with the number of rows (about 60 bytes a row when ``compact``), not with their content.
    """

    def __init__(self, *, compact: bool = False) -> None:
        # (test_case_id, attempt) -> the first row with it; ``compact`` (for rows that are streamed, not held)
        # keeps it in a KeyTable, a third of the memory of a dict and a few times slower
        self.compact = compact
        self.attempts: dict[tuple[str, int], int] = {}
        self.attempt_table = KeyTable()

    def check(self, results: list[Any], start: int = 0) -> Iterator[Finding]:
        """Rows ``results``, the first of which is row ``start`` of the document, in one pass; the per-row work is
        a few lookups unless a row has violations."""
        attempts, table, compact = self.attempts, self.attempt_table, self.compact
        for index, result in enumerate(results, start):
            if not isinstance(result, dict):
                continue
            if "attempt" in result:
                key = _attempt_key(result)
                if key is not None:
                    if compact:  # the attempt in hex first (no digit limit): the first NUL ends it
                        first, _ = table.setdefault(b"%x\0%s" % (key[1], key[0].encode("utf-8", "surrogatepass")), index)
                    else:
                        first = attempts.setdefault(key, index)
                    if first != index:
                        yield Finding(
                            pointer("results", index, "attempt"),
                            codes.DUPLICATE_ATTEMPT,
                            "error",
                            messages.render(codes.DUPLICATE_ATTEMPT, value=key[1], name=key[0], first=pointer("results", first, "attempt")),
                        )
            if result.get("constraint_violations"):
                yield from _violation_rules(index, result)


def _violation_rules(index: int, result: dict[str, Any]) -> Iterator[Finding]:
    grader_ids = {g["grader_id"] for _, g in indexed_objects(result.get("grader_results")) if isinstance(g.get("grader_id"), str)}
    for v_index, violation in indexed_objects(result.get("constraint_violations")):
        grader_id = violation.get("grader_id")
        if isinstance(grader_id, str) and grader_id not in grader_ids:
            yield Finding(
                pointer("results", index, "constraint_violations", v_index, "grader_id"),
                codes.CONSTRAINT_GRADER_UNKNOWN,
                "error",
                messages.render(codes.CONSTRAINT_GRADER_UNKNOWN, value=grader_id),
            )
    if "error" in result and _invalidating(result):
        yield Finding(
            pointer("results", index, "error"),
            codes.ERROR_WITH_INVALIDATING_VIOLATION,
            "warning",
            messages.render(codes.ERROR_WITH_INVALIDATING_VIOLATION),
        )


def resultset_rules(document: dict[str, Any]) -> Iterator[Finding]:
    """Every hand-rolled rule of a whole result set, in one pass over its rows."""
    yield from resultset_document_rules(document)
    results = document.get("results")
    if isinstance(results, list):
        yield from ResultRows().check(results)


MIGRATION_KEY = "evalschema.migration"  # the extensions key by which ``evalschema migrate`` marks its placeholders


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
    yield from _duplicates(
        ((("evals", i, "id"), _text(e.get("id"))) for i, e in indexed_objects(document.get("evals"))), codes.DUPLICATE_EVAL_ID
    )
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
            yield from _duplicates(
                ((("prompts", name, "evals", i, "id"), _text(e.get("id"))) for i, e in indexed_objects(prompt.get("evals"))),
                codes.DUPLICATE_EVAL_ID,
            )
            validators.extend((("prompts", name, "validators", i), v) for i, v in indexed_objects(prompt.get("validators")))
    yield from _duplicates((((*where, "id"), _text(v.get("id"))) for where, v in validators), codes.DUPLICATE_VALIDATOR_ID)
    yield from _placeholders(document)
    for where, validator in validators:
        params = validator.get("params")
        if validator.get("type") == "regex_match" and isinstance(params, dict):
            finding = _regex_finding((*where, "params", "pattern"), params.get("pattern"))
            if finding:
                yield finding


DOCUMENT_RULES = {
    "grader": grader_rules,
    "testcase": testcase_rules,
    "suite": suite_rules,
    "resultset": resultset_rules,
    "pack": pack_rules,
}
