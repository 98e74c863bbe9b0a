"""A test oracle: the hand-written uniqueness and reference rules that the schemas' ``x-unique`` / ``x-references``
annotations replaced in both SDKs (as they were in ``evalschema/rules.py`` before issue 17 moved them into the
schemas). ``tests/test_annotated.py`` holds the generated rules of both languages to them, finding for finding."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from evalschema.core import messages
from evalschema.core.findings import Finding, pointer

Where = tuple[str | int, ...]


def _objects(value: Any) -> Iterator[tuple[int, dict[str, Any]]]:
    if isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict):
                yield index, item


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _duplicates(items: Iterator[tuple[Where, Any]], code: str, variant: str = "default") -> Iterator[Finding]:
    seen: dict[Any, Where] = {}
    for where, key in items:
        if key is None:
            continue
        if key in seen:
            yield Finding(pointer(*where), code, "error", messages.render(code, variant, name=key, first=pointer(*seen[key])))
        else:
            seen[key] = where


def suite(document: dict[str, Any]) -> Iterator[Finding]:
    graders = list(_objects(document.get("graders")))
    cases = list(_objects(document.get("test_cases")))
    yield from _duplicates(((("test_cases", i, "id"), _text(c.get("id"))) for i, c in cases), "DUPLICATE_ID")
    yield from _duplicates(((("graders", i, "id"), _text(g.get("id"))) for i, g in graders), "DUPLICATE_ID", "grader")
    known = {g.get("id") for _, g in graders if isinstance(g.get("id"), str)}
    for case_index, case in cases:
        refs = case.get("graders")
        if isinstance(refs, list):
            for ref_index, ref in enumerate(refs):
                if isinstance(ref, str) and ref and ref not in known:
                    where = pointer("test_cases", case_index, "graders", ref_index)
                    yield Finding(
                        where,
                        "DANGLING_REFERENCE",
                        "error",
                        messages.render("DANGLING_REFERENCE", name=ref, defined=messages.ordered(known)),
                    )


def _attempt_key(result: dict[str, Any]) -> tuple[str, int] | None:
    case, attempt = result.get("test_case_id"), result.get("attempt")
    if type(case) is not str:
        return None
    if type(attempt) is int:
        return case, attempt
    return (case, int(attempt)) if type(attempt) is float and attempt.is_integer() else None  # 2.0 is 2 in JSON


def resultset(document: dict[str, Any]) -> Iterator[Finding]:
    first_rows: dict[tuple[str, int], int] = {}
    for index, result in _objects(document.get("results")):
        key = _attempt_key(result) if "attempt" in result else None
        if key is not None:
            first = first_rows.setdefault(key, index)
            if first != index:
                message = messages.render("DUPLICATE_ATTEMPT", value=key[1], name=key[0], first=pointer("results", first, "attempt"))
                yield Finding(pointer("results", index, "attempt"), "DUPLICATE_ATTEMPT", "error", message)
        if not result.get("constraint_violations"):
            continue
        grader_ids = {g["grader_id"] for _, g in _objects(result.get("grader_results")) if isinstance(g.get("grader_id"), str)}
        for v_index, violation in _objects(result.get("constraint_violations")):
            grader_id = violation.get("grader_id")
            if isinstance(grader_id, str) and grader_id not in grader_ids:
                where = pointer("results", index, "constraint_violations", v_index, "grader_id")
                yield Finding(where, "CONSTRAINT_GRADER_UNKNOWN", "error", messages.render("CONSTRAINT_GRADER_UNKNOWN", value=grader_id))


def pack(document: dict[str, Any]) -> Iterator[Finding]:
    yield from _duplicates(((("evals", i, "id"), _text(e.get("id"))) for i, e in _objects(document.get("evals"))), "DUPLICATE_EVAL_ID")
    prompts = document.get("prompts")
    validators: list[tuple[Where, dict[str, Any]]] = []
    if isinstance(prompts, dict):
        # prompts in UTF-16 code-unit order, as JavaScript compares strings
        for name, prompt in sorted(prompts.items(), key=lambda item: item[0].encode("utf-16-be", "surrogatepass")):
            if not isinstance(prompt, dict):
                continue
            evals = ((("prompts", name, "evals", i, "id"), _text(e.get("id"))) for i, e in _objects(prompt.get("evals")))
            yield from _duplicates(evals, "DUPLICATE_EVAL_ID")
            validators.extend((("prompts", name, "validators", i), v) for i, v in _objects(prompt.get("validators")))
    yield from _duplicates((((*where, "id"), _text(v.get("id"))) for where, v in validators), "DUPLICATE_VALIDATOR_ID")


ORACLE = {"suite": suite, "resultset": resultset, "pack": pack}
