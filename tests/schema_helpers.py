"""Offline helpers for the schema-level tests: load ``schemas/``, build a no-fetch registry, walk schemas.

Nothing here fetches anything: the registry's ``retrieve`` hook records the URI it was asked for and raises.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import referencing
from jsonschema import Draft202012Validator
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS_DIR = ROOT / "schemas"
EXAMPLES_DIR = ROOT / "spec" / "examples"
LEDGER_PATH = ROOT / "spec" / "ledger.json"
ANNOTATIONS_METASCHEMA_PATH = ROOT / "codegen" / "metaschema" / "annotations.json"

# the working schemas' version, from their $id (the one place it is written)
SPEC_VERSION = json.loads((Path(__file__).resolve().parent.parent / "schemas" / "common.json").read_text(encoding="utf-8"))["$id"].split(
    "/"
)[-2]
BASE_URI = f"https://evalschema.org/schema/{SPEC_VERSION}/"
KINDS = ("testcase", "grader", "suite", "resultset", "pack")

# Draft 2020-12 keywords whose value is a subschema, a map of subschemas, or a list of subschemas.
SUBSCHEMA_KEYWORDS = frozenset(
    {
        "additionalProperties",
        "items",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
        "not",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
    }
)
SUBSCHEMA_MAP_KEYWORDS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
SUBSCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})


class FetchRefused(LookupError):
    """Raised by the registry's retrieve hook: the tests never fetch a schema."""


def load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def load_schemas() -> dict[str, dict[str, Any]]:
    """Every ``schemas/*.json``, keyed by file name (``"grader.json"``)."""
    return {p.name: load_json(p) for p in sorted(SCHEMAS_DIR.glob("*.json"))}


def build_registry(schemas: dict[str, dict[str, Any]], fetched: list[str] | None = None) -> referencing.Registry[Any]:
    """A registry holding every schema by its ``$id``; any other URI is recorded in ``fetched`` and refused."""

    def retrieve(uri: str) -> referencing.Resource[Any]:
        if fetched is not None:
            fetched.append(uri)
        raise FetchRefused(f"schema tests never fetch; {uri!r} is not a file of schemas/")

    resources = [(s["$id"], referencing.Resource.from_contents(s, default_specification=DRAFT202012)) for s in schemas.values()]
    return referencing.Registry(retrieve=retrieve).with_resources(resources)  # type: ignore[call-arg]


def schema_uri(kind: str) -> str:
    return f"{BASE_URI}{kind}.json"


def make_validator(kind: str, registry: referencing.Registry[Any]) -> Draft202012Validator:
    schema = registry.contents(schema_uri(kind))
    return Draft202012Validator(schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)


# ---------------------------------------------------------------------------------------------------------
# Walking schemas


def iter_subschemas(schema: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Yield ``(path, subschema)`` for every object in a schema position (not ``examples``, ``const``, …)."""
    if not isinstance(schema, dict):
        return
    yield path, schema
    for key, value in schema.items():
        if key in SUBSCHEMA_KEYWORDS:
            yield from iter_subschemas(value, (*path, key))
        elif key in SUBSCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            for name, sub in value.items():
                yield from iter_subschemas(sub, (*path, key, name))
        elif key in SUBSCHEMA_LIST_KEYWORDS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from iter_subschemas(sub, (*path, key, i))


def pointer(path: tuple[str | int, ...] | list[str | int]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


def resolve_pointer(doc: Any, ptr: str) -> Any:
    if ptr in ("", "#"):
        return doc
    node = doc
    for raw in ptr.lstrip("#").split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def rules_along_path(registry: referencing.Registry[Any], root_uri: str, schema_path: Any) -> set[str]:
    """The ``x-rule`` ids of every subschema an error's ``absolute_schema_path`` passes through.

    jsonschema's schema paths do not record ``$ref`` hops: when a token is not a member of the current
    subschema but the subschema has a ``$ref``, the walk follows the reference first (an explicit ``"$ref"``
    token is followed too).
    """
    resolver = registry.resolver(base_uri=root_uri)
    node: Any = registry.contents(root_uri)
    rules: set[str] = set()

    def note(n: Any) -> None:
        if isinstance(n, dict) and isinstance(n.get("x-rule"), str):
            rules.add(n["x-rule"])

    for token in schema_path:
        note(node)
        while isinstance(node, dict) and "$ref" in node and (token == "$ref" or token not in node):
            resolved = resolver.lookup(node["$ref"])
            node, resolver = resolved.contents, resolved.resolver
            note(node)
            if token == "$ref":
                break
        if token == "$ref":
            continue
        try:
            node = node[token]
        except (KeyError, IndexError, TypeError):
            return rules
    note(node)
    return rules


def iter_error_tree(errors: Any) -> Iterator[Any]:
    """Every error and, recursively, the sub-errors of its ``context`` (oneOf / anyOf alternatives)."""
    for error in errors:
        yield error
        yield from iter_error_tree(error.context)


def rules_of_errors(registry: referencing.Registry[Any], kind: str, errors: list[Any]) -> set[str]:
    """Rules implicated by a document's errors: every x-rule on the schema path of an error or sub-error."""
    rules: set[str] = set()
    for error in iter_error_tree(errors):
        rules |= rules_along_path(registry, schema_uri(kind), error.absolute_schema_path)
    return rules


def keywords_of_errors(errors: list[Any]) -> set[str]:
    return {e.validator for e in iter_error_tree(errors)}


# ---------------------------------------------------------------------------------------------------------
# Building test documents


DELETE = object()  # sentinel for ``patched``: remove the addressed member


def patched(doc: Any, changes: dict[str, Any]) -> Any:
    """A deep copy of ``doc`` with each JSON Pointer in ``changes`` set to its value (``DELETE`` removes it).

    Changes apply in order; ``/-`` appends to an array.
    """
    out = copy.deepcopy(doc)
    for ptr, value in changes.items():
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in ptr.split("/")[1:]]
        parent = out
        for token in tokens[:-1]:
            parent = parent[int(token)] if isinstance(parent, list) else parent[token]
        last = tokens[-1]
        if isinstance(parent, list):
            if value is DELETE:
                del parent[int(last)]
            elif last == "-":
                parent.append(copy.deepcopy(value))
            else:
                parent[int(last)] = copy.deepcopy(value)
        elif value is DELETE:
            parent.pop(last, None)  # removing an absent member is a no-op
        else:
            parent[last] = copy.deepcopy(value)
    return out


# ---------------------------------------------------------------------------------------------------------
# Reference summary (the formulas of resultset.json's Summary descriptions)


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def reference_summary(resultset: dict[str, Any]) -> dict[str, Any]:
    """The summary the reference formulas give (an independent re-derivation, for checking examples).

    Row status, in precedence order: errored (has ``error``) > invalidated (an invalidating constraint
    violation) > unscored (no grader result with a non-null score) > passed / failed (its ``passed``).
    skipped = errored + unscored; failed includes invalidated; pass_rate = passed / (total - skipped);
    row score = 0 if invalidated else the mean of its non-null grader scores; avg_score = mean row score over
    the scored rows; by_grader over non-errored rows: passed, failed (non-null score, not passed), unscored
    (null score), avg_score (mean of the non-null scores). ``attempts`` (only when some row carries
    ``attempt``): per test case over its scored rows, by attempt number. Means are ``sum(xs) / len(xs)``;
    nothing is rounded.
    """
    results = resultset["results"]
    counts = {"passed": 0, "failed": 0, "errored": 0, "invalidated": 0, "unscored": 0}
    row_scores: list[float] = []
    by_grader: dict[str, dict[str, Any]] = {}
    per_case: dict[str, list[tuple[int, bool]]] = {}
    for row in results:
        if "error" in row:
            counts["errored"] += 1
            continue
        grs = row["grader_results"]
        for gr in grs:
            g = by_grader.setdefault(gr["grader_id"], {"passed": 0, "failed": 0, "unscored": 0, "_scores": []})
            if gr["score"] is None:
                g["unscored"] += 1
            else:
                g["_scores"].append(gr["score"])
                g["passed" if gr["passed"] else "failed"] += 1
        scores = [gr["score"] for gr in grs if gr["score"] is not None]
        if any(cv["invalidates_result"] for cv in row.get("constraint_violations", [])):
            counts["invalidated"] += 1
            counts["failed"] += 1
            row_scores.append(0)
            passed = False
        elif not scores:
            counts["unscored"] += 1
            continue
        else:
            passed = row["passed"]
            counts["passed" if passed else "failed"] += 1
            row_scores.append(_mean(scores))
        per_case.setdefault(row["test_case_id"], []).append((row.get("attempt", 1), passed))
    total = len(results)
    skipped = counts["errored"] + counts["unscored"]
    scored = total - skipped
    summary: dict[str, Any] = {
        "total": total,
        "passed": counts["passed"],
        "failed": counts["failed"],
        "skipped": skipped,
        "errored": counts["errored"],
        "invalidated": counts["invalidated"],
        "unscored": counts["unscored"],
        "pass_rate": counts["passed"] / scored if scored else None,
        "avg_score": _mean(row_scores) if row_scores else None,
    }
    if any("attempt" in row for row in results):
        cases = [sorted(rows) for rows in per_case.values()]
        n = len(cases)
        summary["attempts"] = {
            "test_cases": n,
            "first_attempt_pass_rate": sum(c[0][1] for c in cases) / n if n else None,
            "any_pass_rate": sum(any(p for _, p in c) for c in cases) / n if n else None,
            "all_pass_rate": sum(all(p for _, p in c) for c in cases) / n if n else None,
        }
    summary["by_grader"] = {
        gid: {
            "passed": g["passed"],
            "failed": g["failed"],
            "unscored": g["unscored"],
            "avg_score": _mean(g["_scores"]) if g["_scores"] else None,
        }
        for gid, g in by_grader.items()
    }
    return summary


def value_paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every location in a JSON value, as a tuple of keys and indexes (the root is ``()``): mutation targets."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(value_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(value_paths(item, (*prefix, index)))
    return out
