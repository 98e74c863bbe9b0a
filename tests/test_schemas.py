"""Schema-level tests: the schemas themselves, the examples, and the rules the schemas alone express.

Everything runs offline: the registry refuses to retrieve anything and sockets refuse to connect.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urldefrag, urljoin

import pytest
import referencing
from jsonschema import Draft202012Validator
from schema_helpers import (
    ANNOTATIONS_METASCHEMA_PATH,
    BASE_URI,
    DELETE,
    EXAMPLES_DIR,
    KINDS,
    LEDGER_PATH,
    SCHEMAS_DIR,
    SPEC_VERSION,
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
    build_registry,
    iter_error_tree,
    iter_subschemas,
    keywords_of_errors,
    load_json,
    patched,
    pointer,
    reference_summary,
    rules_of_errors,
    schema_uri,
)

DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_FILES = sorted(p.name for p in SCHEMAS_DIR.glob("*.json"))
EXAMPLE_FILES = sorted(p.name for p in EXAMPLES_DIR.glob("*.json"))
LEDGER = load_json(LEDGER_PATH)

Validators = Callable[[str], Draft202012Validator]


@pytest.fixture(autouse=True)
def _offline(no_network: list[Any]) -> Iterator[None]:
    """Every test in this module runs with sockets refusing to connect."""
    yield
    assert no_network == [], f"network access attempted: {no_network}"


def errors_of(validator_for: Validators, kind: str, doc: Any) -> list[Any]:
    return list(validator_for(kind).iter_errors(doc))


def describe(errors: list[Any]) -> str:
    return "; ".join(f"{pointer(list(e.absolute_path)) or '/'}: {e.message}" for e in iter_error_tree(errors))


# =========================================================================================================
# 1. The registry and format assertion


def test_registry_holds_every_schema_and_refuses_everything_else(registry: referencing.Registry[Any], schemas: dict[str, Any]) -> None:
    assert SCHEMA_FILES == ["common.json", "comparison.json", "grader.json", "pack.json", "resultset.json", "suite.json", "testcase.json"]
    for schema in schemas.values():
        assert registry.contents(schema["$id"]) is schema
    local: list[str] = []
    with pytest.raises(referencing.exceptions.Unretrievable):
        build_registry(schemas, local).get_or_retrieve(f"{BASE_URI}nonexistent.json")
    assert local == [f"{BASE_URI}nonexistent.json"]


@pytest.mark.parametrize("value", ["yesterday", "2026-01-01", "2026-11-30T09:15:00", "2026-13-01T00:00:00Z"])
def test_format_assertion_is_real_for_date_time(validator_for: Validators, value: str) -> None:
    doc = {"version": "1.1.0", "suite_id": "s", "run_id": "r", "started_at": value, "results": []}
    errors = errors_of(validator_for, "resultset", doc)
    assert [(list(e.absolute_path), e.validator) for e in errors] == [(["started_at"], "format")]
    fixed = dict(doc, started_at="2026-11-30T09:15:00Z")
    assert errors_of(validator_for, "resultset", fixed) == []


# =========================================================================================================
# 2. The schemas themselves


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_schema_is_valid_draft_2020_12(schemas: dict[str, Any], name: str) -> None:
    assert schemas[name]["$schema"] == DIALECT
    Draft202012Validator.check_schema(schemas[name])


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_schema_passes_annotation_metaschema(schemas: dict[str, Any], name: str) -> None:
    meta = load_json(ANNOTATIONS_METASCHEMA_PATH)
    Draft202012Validator.check_schema(meta)
    errors = list(Draft202012Validator(meta, format_checker=Draft202012Validator.FORMAT_CHECKER).iter_errors(schemas[name]))
    assert errors == [], describe(errors)


XDEP = {"since": "1.1.0", "removal": "2.0.0", "date": "2026-11-30", "replacement": "use y"}


def _annotations_validator() -> Draft202012Validator:
    return Draft202012Validator(load_json(ANNOTATIONS_METASCHEMA_PATH), format_checker=Draft202012Validator.FORMAT_CHECKER)


@pytest.mark.parametrize(
    "schema",
    [
        {"x-rule": "lower_case"},
        {"properties": {"a": {"x-rule": "lower_case"}}},
        {"properties": {"a": {"deprecated": True, "x-deprecation": {"since": "1.1.0"}}}},
        {"properties": {"a": {"x-deprecation": XDEP}}},
        {"$defs": {"A": {"deprecated": True, "x-deprecation": dict(XDEP, date="30.11.2026")}}},
    ],
    ids=["bad-rule-id", "nested-bad-rule-id", "incomplete-deprecation", "x-deprecation-without-deprecated", "bad-date"],
)
def test_annotation_metaschema_can_fail(schema: dict[str, Any]) -> None:
    assert not _annotations_validator().is_valid(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"allOf": [{"x-rule": "lower_case"}]},
        {"oneOf": [{"x-deprecation": XDEP}]},
        {"properties": {"a": {"anyOf": [{"deprecated": True, "x-deprecation": {}}]}}},
    ],
    ids=["allOf-bad-rule-id", "oneOf-x-deprecation-without-deprecated", "anyOf-empty-deprecation"],
)
def test_annotation_metaschema_checks_inside_arrays(schema: dict[str, Any]) -> None:
    """Every x-rule of our schemas sits in an `allOf` array: the meta-schema must look inside arrays too."""
    assert not _annotations_validator().is_valid(schema)


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_annotations_are_well_formed_wherever_they_are(schemas: dict[str, Any], name: str) -> None:
    """Independent of the meta-schema's own walk: every x-rule / x-deprecation in a schema position."""
    meta = load_json(ANNOTATIONS_METASCHEMA_PATH)
    rule_id = Draft202012Validator(meta["$defs"]["node"]["then"]["properties"]["x-rule"])
    deprecation = Draft202012Validator(
        {**meta["$defs"]["deprecation"], "$defs": meta["$defs"]}, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    for path, sub in iter_subschemas(schemas[name]):
        if "x-rule" in sub:
            assert rule_id.is_valid(sub["x-rule"]), f"{name}#{pointer(path)}: bad x-rule {sub['x-rule']!r}"
        if "x-deprecation" in sub:
            errors = list(deprecation.iter_errors(sub["x-deprecation"]))
            assert errors == [], f"{name}#{pointer(path)}: {describe(errors)}"


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_id_is_versioned_and_names_the_file(schemas: dict[str, Any], name: str) -> None:
    sid = schemas[name]["$id"]
    assert f"/{SPEC_VERSION}/" in sid
    assert sid.endswith("/" + name)
    assert sid == BASE_URI + name


def _iter_refs(node: Any, base: str, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str, str, tuple[str | int, ...]]]:
    """(base URI, $ref, path) for every $ref in a schema position; a nested $id changes the base below it."""
    if not isinstance(node, dict):
        return
    if path and isinstance(node.get("$id"), str):
        base = urljoin(base, node["$id"])
    if isinstance(node.get("$ref"), str):
        yield base, node["$ref"], path
    for key, value in node.items():
        if key in SUBSCHEMA_KEYWORDS:
            yield from _iter_refs(value, base, (*path, key))
        elif key in SUBSCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            for k, sub in value.items():
                yield from _iter_refs(sub, base, (*path, key, k))
        elif key in SUBSCHEMA_LIST_KEYWORDS and isinstance(value, list):
            for i, sub in enumerate(value):
                yield from _iter_refs(sub, base, (*path, key, i))


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_every_ref_resolves_offline(schemas: dict[str, Any], registry: referencing.Registry[Any], fetched: list[str], name: str) -> None:
    schema = schemas[name]
    refs = list(_iter_refs(schema, schema["$id"]))
    if name != "common.json":
        assert refs, "walker found no $ref: the walk is broken"
    for base, ref, path in refs:
        try:
            resolved = registry.resolver(base_uri=base).lookup(ref)
        except referencing.exceptions.Unresolvable as exc:  # pragma: no cover - failure path
            pytest.fail(f"{name}#{pointer(path)}: $ref {ref!r} does not resolve: {exc!r}")
        assert isinstance(resolved.contents, (dict, bool)), f"{name}#{pointer(path)}: {ref!r} is not a schema"
    assert fetched == []


# ---- closed objects --------------------------------------------------------------------------------------

# Extension points, kept explicit and small. Anything else that accepts unknown properties fails the test.
OPEN_PROPERTY_NAMES = frozenset({"metadata", "params", "extensions", "extra"})
# $defs documented as open in pack.json.
OPEN_DEFS = frozenset({("pack.json", "Opaque"), ("pack.json", "MetricDef")})
# Objects the PromptPack format defines as open: ($def, property) in pack.json.
OPEN_PACK_SITES = frozenset(
    {
        ("Eval", "when"),
        ("Variable", "validation"),
        ("Variable", "binding"),
        ("Tool", "parameters"),
        ("MiddlewareConfig", "config"),
    }
)
# A parameter that is itself a JSON Schema (llm_judge / json_schema graders): `params.schema`.
OPEN_PARAM_NAMES = frozenset({"schema"})

CONDITIONAL_KEYWORDS = frozenset({"if", "then", "else", "not", "contains", "allOf", "anyOf", "oneOf"})


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type", [])
    return [t] if isinstance(t, str) else list(t)


def _ref_target(base: str, ref: str) -> tuple[str, str]:
    uri, fragment = urldefrag(urljoin(base, ref))
    return uri.rsplit("/", 1)[-1], fragment


def _open_object_sites(schemas: dict[str, Any]) -> Iterator[tuple[str, tuple[str | int, ...], dict[str, Any]]]:
    """Every object schema that accepts properties it does not declare."""
    for name, schema in schemas.items():
        for path, sub in iter_subschemas(schema):
            typed_object = "object" in _types(sub)
            if not typed_object and "properties" not in sub:
                continue
            if not typed_object and any(t in CONDITIONAL_KEYWORDS for t in path):
                continue  # refines an object that its enclosing schema already types (and closes)
            ap = sub.get("additionalProperties", True)
            if sub.get("unevaluatedProperties") is False or ap is False:
                continue
            if "properties" not in sub and isinstance(ap, dict) and ap:
                continue  # a typed map: every key allowed, every value checked
            yield name, path, sub


def _allowed_open(schemas: dict[str, Any], name: str, path: tuple[str | int, ...], derived: dict[tuple[str, str], str]) -> str | None:
    """The allow-list entry that makes this open object legitimate, or None."""
    if len(path) >= 2 and path[-2] == "properties" and path[-1] in OPEN_PROPERTY_NAMES:
        return f"property:{path[-1]}"
    if len(path) == 2 and path[0] == "$defs" and (name, path[1]) in OPEN_DEFS:
        return f"def:{name}#{path[1]}"
    if name == "pack.json" and len(path) == 4 and path[0] == "$defs" and path[2] == "properties" and (path[1], path[3]) in OPEN_PACK_SITES:
        return f"pack:{path[1]}.{path[3]}"
    if len(path) >= 4 and path[-2] == "properties" and path[-1] in OPEN_PARAM_NAMES and path[-4:-2] == ("properties", "params"):
        return f"param:{path[-1]}"
    return derived.get((name, pointer(path)))


def _derived_open_targets(schemas: dict[str, Any]) -> dict[tuple[str, str], str]:
    """$ref targets of the open properties (e.g. `metadata` -> common.json#/$defs/Metadata) are open too."""
    out: dict[tuple[str, str], str] = {}
    for schema in schemas.values():
        for path, sub in iter_subschemas(schema):
            if len(path) >= 2 and path[-2] == "properties" and path[-1] in OPEN_PROPERTY_NAMES and "$ref" in sub:
                out[_ref_target(schema["$id"], sub["$ref"])] = f"property:{path[-1]}"
    return out


def test_every_object_is_closed_unless_an_allowed_extension_point(schemas: dict[str, Any]) -> None:
    derived = _derived_open_targets(schemas)
    used: set[str] = set()
    offenders: list[str] = []
    for name, path, _ in _open_object_sites(schemas):
        entry = _allowed_open(schemas, name, path, derived)
        if entry is None:
            offenders.append(f"{name}#{pointer(path)}")
        else:
            used.add(entry)
    assert offenders == [], f"open objects that are not declared extension points: {offenders}"
    declared = (
        {f"property:{n}" for n in OPEN_PROPERTY_NAMES}
        | {f"def:{f}#{d}" for f, d in OPEN_DEFS}
        | {f"pack:{d}.{p}" for d, p in OPEN_PACK_SITES}
        | {f"param:{n}" for n in OPEN_PARAM_NAMES}
    )
    assert declared - used == set(), f"stale allow-list entries (no open object matches them): {declared - used}"


def test_closed_object_check_can_fail(schemas: dict[str, Any]) -> None:
    mutated = copy.deepcopy(schemas)
    del mutated["resultset.json"]["$defs"]["GraderResult"]["additionalProperties"]
    mutated["pack.json"]["$defs"]["Tool"]["properties"]["examples"] = {"type": "object"}
    derived = _derived_open_targets(mutated)
    bad = [f"{n}#{pointer(p)}" for n, p, _ in _open_object_sites(mutated) if _allowed_open(mutated, n, p, derived) is None]
    assert bad == ["pack.json#/$defs/Tool/properties/examples", "resultset.json#/$defs/GraderResult"]


# ---- deprecation annotations -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_deprecated_and_x_deprecation_come_together(schemas: dict[str, Any], name: str) -> None:
    for path, sub in iter_subschemas(schemas[name]):
        flagged = sub.get("deprecated") is True
        assert flagged == ("x-deprecation" in sub), f"{name}#{pointer(path)}: deprecated={sub.get('deprecated')!r}"
        assert sub.get("deprecated", True) is True, f"{name}#{pointer(path)}: write no `deprecated: false`"


def test_fail_on_violation_is_the_deprecated_field(schemas: dict[str, Any]) -> None:
    found = [(n, pointer(p)) for n in SCHEMA_FILES for p, s in iter_subschemas(schemas[n]) if s.get("deprecated") is True]
    assert found == [("pack.json", "/$defs/Validator/properties/fail_on_violation")]


# ---- rules and the ledger --------------------------------------------------------------------------------


def _x_rules(schemas: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in SCHEMA_FILES:
        for path, sub in iter_subschemas(schemas[name]):
            if "x-rule" in sub:
                out.setdefault(sub["x-rule"], []).append(f"{name}#{pointer(path)}")
    return out


def test_ledger_ids_are_unique() -> None:
    ids = [r["id"] for r in LEDGER["rules"]]
    assert len(ids) == len(set(ids))


# every x-rule location is the ledger's schema_pointers, and schema_keywords are derived: tests/test_ledger.py


def test_every_x_rule_is_a_schema_rule_of_the_ledger(schemas: dict[str, Any]) -> None:
    by_id = {r["id"]: r for r in LEDGER["rules"]}
    rules = _x_rules(schemas)
    assert rules, "no x-rule found: the walk is broken"
    for rid, sites in rules.items():
        assert rid in by_id, f"x-rule {rid} at {sites} is not in the ledger"
        assert by_id[rid]["enforced_by"] == "schema", f"{rid} is in the schema but the ledger says code"


# =========================================================================================================
# 3. The examples

REQUIRED_EXAMPLES = {
    "testcase-rag-answer.json",
    "grader-llm-judge.json",
    "grader-custom-handler.json",
    "suite-qa-basic.json",
    "suite-jsonl-file.json",
    "resultset-aobench-rbac.json",
    "resultset-multi-attempt.json",
    "resultset-grouped-sweep.json",
    "pack-support-guardrails.json",
    "pack-legacy-fail-on-violation.json",
}


def example(name: str) -> Any:
    return load_json(EXAMPLES_DIR / name)


def test_required_examples_exist() -> None:
    assert set(EXAMPLE_FILES) >= REQUIRED_EXAMPLES


@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_example_validates(validator_for: Validators, fetched: list[str], no_network: list[Any], name: str) -> None:
    kind = name.split("-", 1)[0]
    assert kind in KINDS, f"{name}: name must start with a document kind"
    doc = example(name)
    assert doc.get("$schema") == schema_uri(kind)
    errors = errors_of(validator_for, kind, doc)
    assert errors == [], describe(errors)
    assert fetched == [] and no_network == []


@pytest.mark.parametrize("name", [n for n in EXAMPLE_FILES if n.startswith("resultset-")])
def test_example_summary_matches_reference_formulas(name: str) -> None:
    doc = example(name)
    assert "summary" in doc
    produced = {k: v for k, v in doc["summary"].items() if k != "duration_ms"}
    assert produced == reference_summary(doc)


def test_examples_respect_the_code_rules_too() -> None:
    """The cross-field rules the schema cannot express (ledger `enforced_by: code`) also hold in the examples."""
    for name in EXAMPLE_FILES:
        doc = example(name)
        if name.startswith("resultset-"):
            pairs = [(r["test_case_id"], r["attempt"]) for r in doc["results"] if "attempt" in r]
            assert len(pairs) == len(set(pairs)), f"{name}: DUPLICATE_ATTEMPT"
            if "group" in doc:
                assert doc["group"].get("parent_group_id") != doc["group"]["group_id"], f"{name}: SELF_PARENT"
            for row in doc["results"]:
                ids = {g["grader_id"] for g in row["grader_results"]}
                for cv in row.get("constraint_violations", []):
                    assert cv.get("grader_id", "") in ids | {""}, f"{name}: CONSTRAINT_GRADER_UNKNOWN"
                    assert not (cv["invalidates_result"] and "error" in row), f"{name}: error + invalidation"
        if name.startswith("suite-"):
            gids = [g["id"] for g in doc.get("graders", [])]
            assert len(gids) == len(set(gids)), f"{name}: DUPLICATE_ID (graders)"
            tids = [t["id"] for t in doc.get("test_cases", [])]
            assert len(tids) == len(set(tids)), f"{name}: DUPLICATE_ID (test cases)"
            for tc in doc.get("test_cases", []):
                for g in tc["graders"]:
                    assert not isinstance(g, str) or g in gids, f"{name}: DANGLING_REFERENCE {g}"

    multi = example("resultset-multi-attempt.json")
    assert multi["isolation"] == "fresh" and len(multi["results"]) == 9
    assert {(r["test_case_id"], r["attempt"]) for r in multi["results"]} == {
        (t, a) for t in {r["test_case_id"] for r in multi["results"]} for a in (1, 2, 3)
    }
    legacy = example("pack-legacy-fail-on-violation.json")
    fov = [v.get("fail_on_violation") for p in legacy["prompts"].values() for v in p.get("validators", [])]
    assert sorted(x for x in fov if x is not None) == [False, True]
    modern = json.dumps(example("pack-support-guardrails.json"))
    assert "fail_on_violation" not in modern


def test_aobench_example_shape() -> None:
    doc = example("resultset-aobench-rbac.json")
    rbac = next(r for r in doc["results"] if r.get("constraint_violations"))
    dims = {g["grader_id"]: g for g in rbac["grader_results"]}
    six = ["outcome", "tool_use", "grounding", "robustness", "workflow", "efficiency"]
    assert all(dims[d]["passed"] and dims[d]["score"] >= 0.85 for d in six)
    assert dims["governance"]["passed"] is False
    (cv,) = rbac["constraint_violations"]
    assert (cv["id"], cv["type"], cv["invalidates_result"], cv["grader_id"]) == ("rbac_scope", "authorization", True, "governance")
    assert rbac["passed"] is False
    errored = [r for r in doc["results"] if "error" in r]
    assert [(r["error"]["type"], r["grader_results"], r["passed"]) for r in errored] == [("provider_error", [], False)]
    assert any(r["passed"] for r in doc["results"])


# =========================================================================================================
# 4. Rule twins: the schema alone rejects the violating document and accepts its minimally fixed twin

GRADER: dict[str, Any] = {"id": "g1", "type": "exact_match"}
TESTCASE: dict[str, Any] = {"id": "tc1", "input": "What is 2 + 2?", "graders": ["g1"]}
SUITE: dict[str, Any] = {"version": "1.1.0", "id": "s1", "graders": [GRADER], "test_cases": [TESTCASE]}
GR_OK = {"grader_id": "g1", "type": "exact_match", "score": 1.0, "passed": True}
GR_NULL = {"grader_id": "g2", "type": "llm_judge", "score": None, "passed": False}
ROW: dict[str, Any] = {"test_case_id": "tc1", "grader_results": [GR_OK], "passed": True}
RESULTSET: dict[str, Any] = {
    "version": "1.1.0",
    "suite_id": "s1",
    "run_id": "r1",
    "started_at": "2026-11-30T09:15:00Z",
    "results": [ROW],
}
PACK: dict[str, Any] = {
    "id": "support",
    "name": "Support",
    "version": "1.0.0",
    "template_engine": {"version": "v1", "syntax": "{{variable}}"},
    "prompts": {"main": {"id": "main", "name": "Main", "version": "1.0.0", "system_template": "Hello {{name}}"}},
}
BASE = {"grader": GRADER, "testcase": TESTCASE, "suite": SUITE, "resultset": RESULTSET, "pack": PACK}


class Twin:
    """``bad`` = base with ``bad_changes``; ``good`` = base with ``good_changes`` (defaults to the base)."""

    def __init__(self, tid: str, kind: str, expect: str, bad: dict[str, Any], good: dict[str, Any] | None = None, base: Any = None) -> None:
        self.id, self.kind, self.expect = tid, kind, expect
        root = BASE[kind] if base is None else base
        self.bad = patched(root, bad)
        self.good = patched(root, good or {})
        assert json.dumps(self.bad, sort_keys=True) != json.dumps(self.good, sort_keys=True)  # True == 1.0 in Python

    def __repr__(self) -> str:
        return self.id


def _grader(gtype: str, bad_params: Any, good_params: Any, rule: str, tid: str) -> Twin:
    """A grader of ``gtype`` with ``bad_params`` (``DELETE``: no params at all) against one with ``good_params``."""
    return Twin(tid, "grader", rule, {"/type": gtype, "/params": bad_params}, {"/type": gtype, "/params": good_params})


def _row(bad: dict[str, Any], good: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return {f"/results/0{k}": v for k, v in bad.items()}, {f"/results/0{k}": v for k, v in good.items()}


JUDGE_OK = {"model": "gpt-4.1", "prompt": "Grade this answer: {output}"}
CV_TRUE = {"id": "rbac_scope", "type": "authorization", "invalidates_result": True}
CV_FALSE = {"id": "pii_notice", "type": "privacy", "invalidates_result": False}
ERR = {"type": "provider_error", "message": "503 from upstream"}

TWINS: list[Twin] = [
    # ---- GRADER_PARAMS_INVALID, per well-known type
    _grader("contains", DELETE, {"substring": "4"}, "rule:GRADER_PARAMS_INVALID", "contains-needs-params"),
    _grader("contains", {}, {"substring": "4"}, "rule:GRADER_PARAMS_INVALID", "contains-needs-substring"),
    _grader("contains", {"substring": ""}, {"substring": "4"}, "rule:GRADER_PARAMS_INVALID", "contains-substring-nonempty"),
    _grader("regex", {"flags": "i"}, {"flags": "i", "pattern": "\\b4\\b"}, "rule:GRADER_PARAMS_INVALID", "regex-needs-pattern"),
    _grader("semantic_similarity", {"threshold": 1.5}, {"threshold": 0.8}, "rule:GRADER_PARAMS_INVALID", "similarity-threshold-range"),
    _grader("semantic_similarity", {}, {"threshold": 0.8}, "rule:GRADER_PARAMS_INVALID", "similarity-needs-threshold"),
    _grader("llm_judge", {"prompt": "Grade {output}"}, JUDGE_OK, "rule:GRADER_PARAMS_INVALID", "llm-judge-needs-model"),
    _grader("llm_judge", {"model": "gpt-4.1"}, JUDGE_OK, "rule:GRADER_PARAMS_INVALID", "llm-judge-needs-prompt"),
    _grader("llm_judge", dict(JUDGE_OK, temperature=3), JUDGE_OK, "rule:GRADER_PARAMS_INVALID", "llm-judge-temperature-range"),
    _grader("model graded", DELETE, JUDGE_OK, "rule:GRADER_PARAMS_INVALID", "model-graded-needs-params"),
    _grader("model graded", {"model": "gpt-4.1"}, JUDGE_OK, "rule:GRADER_PARAMS_INVALID", "model-graded-needs-prompt"),
    _grader("model graded", {"prompt": "Grade {output}"}, JUDGE_OK, "rule:GRADER_PARAMS_INVALID", "model-graded-needs-model"),
    _grader("json_schema", {"schema": "object"}, {"schema": {"type": "object"}}, "rule:GRADER_PARAMS_INVALID", "json-schema-schema-object"),
    _grader(
        "json_path", {"path": "$.total"}, {"path": "$.total", "expected": 42}, "rule:GRADER_PARAMS_INVALID", "json-path-expected-number"
    ),
    _grader(
        "json_path",
        {"path": "$.ok", "expected": True, "operator": "is"},
        {"path": "$.ok", "expected": True, "operator": "eq"},
        "rule:GRADER_PARAMS_INVALID",
        "json-path-operator-enum",
    ),
    _grader(
        "code",
        {"language": "ruby", "source": "score = 1"},
        {"language": "python", "source": "score = 1"},
        "rule:GRADER_PARAMS_INVALID",
        "code-language-enum",
    ),
    _grader(
        "code",
        {"language": "python", "source": "score = 1", "timeout_ms": 50},
        {"language": "python", "source": "score = 1", "timeout_ms": 500},
        "rule:GRADER_PARAMS_INVALID",
        "code-timeout-min",
    ),
    _grader("exact_match", {"ignore_case": "yes"}, {"ignore_case": True}, "rule:GRADER_PARAMS_INVALID", "exact-match-flag-type"),
    _grader("human", {"instructions": 5}, {"instructions": "Rate 1-5."}, "rule:GRADER_PARAMS_INVALID", "human-instructions-type"),
    Twin(
        "testcase-inline-grader-params",
        "testcase",
        "rule:GRADER_PARAMS_INVALID",
        {"/graders/0": {"id": "g9", "type": "contains", "params": {}}},
        {"/graders/0": {"id": "g9", "type": "contains", "params": {"substring": "4"}}},
    ),
    Twin(
        "suite-grader-params",
        "suite",
        "rule:GRADER_PARAMS_INVALID",
        {"/graders/0": {"id": "g1", "type": "regex"}},
        {"/graders/0": {"id": "g1", "type": "regex", "params": {"pattern": "4"}}},
    ),
    # ---- JUDGE_PROMPT_PLACEHOLDER
    _grader(
        "llm_judge",
        {"model": "gpt-4.1", "prompt": "Is this grounded in {context}?"},
        {"model": "gpt-4.1", "prompt": "Is {output} grounded in {context}?"},
        "rule:JUDGE_PROMPT_PLACEHOLDER",
        "judge-context-only",
    ),
    _grader(
        "model graded",
        {"model": "gpt-4.1", "prompt": "Rate the answer from 0 to 1."},
        {"model": "gpt-4.1", "prompt": "Rate the answer {output} to {input} from 0 to 1."},
        "rule:JUDGE_PROMPT_PLACEHOLDER",
        "model-graded-no-placeholder",
    ),
    _grader(
        "llm_judge",
        {"model": "gpt-4.1", "prompt": "Compare to {expected_output}"},
        {"model": "gpt-4.1", "prompt": "Compare to {expected}"},
        "rule:JUDGE_PROMPT_PLACEHOLDER",
        "judge-placeholder-exact",
    ),
    # ---- CUSTOM_GRADER_HANDLER
    _grader("custom", DELETE, {"handler": "acme.graders:score"}, "rule:CUSTOM_GRADER_HANDLER", "custom-needs-params"),
    _grader(
        "custom",
        {"threshold": 0.5},
        {"threshold": 0.5, "handler": "acme.graders:score"},
        "rule:CUSTOM_GRADER_HANDLER",
        "custom-needs-handler",
    ),
    _grader(
        "trulens_feedback", DELETE, {"handler": "trulens_adapter:feedback"}, "rule:CUSTOM_GRADER_HANDLER", "unknown-type-needs-handler"
    ),
    _grader("trulens_feedback", {"handler": ""}, {"handler": "trulens_adapter:feedback"}, "rule:CUSTOM_GRADER_HANDLER", "handler-nonempty"),
    # ---- SUITE_TEST_CASES_SOURCE
    Twin(
        "suite-both-sources",
        "suite",
        "rule:SUITE_TEST_CASES_SOURCE",
        {"/test_cases_file": "cases.jsonl"},
        {"/test_cases_file": "cases.jsonl", "/test_cases": DELETE},
    ),
    Twin(
        "suite-neither-source",
        "suite",
        "rule:SUITE_TEST_CASES_SOURCE",
        {"/test_cases": DELETE},
        {"/test_cases": DELETE, "/test_cases_file": "cases.jsonl"},
    ),
    Twin("suite-test-cases-nonempty", "suite", "kw:minItems", {"/test_cases": []}),
    Twin(
        "suite-file-nonempty",
        "suite",
        "kw:minLength",
        {"/test_cases": DELETE, "/test_cases_file": ""},
        {"/test_cases": DELETE, "/test_cases_file": "cases.jsonl"},
    ),
    # ---- CONSTRAINT_INVALIDATES_PASS / UNSCORED_RESULT_PASSED / ERRORED_RESULT_PASSED / NULL_SCORE_PASSED
    Twin(
        "constraint-invalidates-pass",
        "resultset",
        "rule:CONSTRAINT_INVALIDATES_PASS",
        *_row({"/constraint_violations": [CV_TRUE]}, {"/constraint_violations": [CV_TRUE], "/passed": False}),
    ),
    Twin(
        "unscored-result-passed",
        "resultset",
        "rule:UNSCORED_RESULT_PASSED",
        *_row({"/grader_results": [GR_NULL]}, {"/grader_results": [GR_NULL], "/passed": False}),
    ),
    Twin(
        "errored-result-passed",
        "resultset",
        "rule:ERRORED_RESULT_PASSED",
        *_row({"/error": ERR, "/grader_results": []}, {"/error": ERR, "/grader_results": [], "/passed": False}),
    ),
    Twin(
        "null-score-passed",
        "resultset",
        "rule:NULL_SCORE_PASSED",
        *_row({"/grader_results/-": dict(GR_NULL, passed=True)}, {"/grader_results/-": GR_NULL}),
    ),
    # ---- RESERVED_METADATA_KEY
    Twin(
        "reserved-metadata-key",
        "resultset",
        "rule:RESERVED_METADATA_KEY",
        {"/metadata": {"evalschema.invented": True}},
        {"/metadata": {"evalschema.skip_reason": "no handler"}},
    ),
    # ---- constraint violation shape
    Twin(
        "violation-needs-invalidates",
        "resultset",
        "kw:required",
        *_row(
            {"/constraint_violations": [{"id": "rbac_scope"}]},
            {"/constraint_violations": [{"id": "rbac_scope", "invalidates_result": False}]},
        ),
    ),
    Twin(
        "violation-id-nonempty",
        "resultset",
        "kw:minLength",
        *_row({"/constraint_violations": [dict(CV_FALSE, id="")]}, {"/constraint_violations": [CV_FALSE]}),
    ),
    Twin(
        "violation-invalidates-boolean",
        "resultset",
        "kw:type",
        *_row({"/constraint_violations": [dict(CV_FALSE, invalidates_result="no")]}, {"/constraint_violations": [CV_FALSE]}),
    ),
    # ---- semver version
    Twin("suite-version-semver", "suite", "rule:INVALID_VERSION", {"/version": "1.1"}),
    Twin("suite-version-leading-zero", "suite", "rule:INVALID_VERSION", {"/version": "01.1.0"}),
    Twin("resultset-version-no-v-prefix", "resultset", "rule:INVALID_VERSION", {"/version": "v1.1.0"}),
    Twin(
        "resultset-version-prerelease-ok",
        "resultset",
        "rule:INVALID_VERSION",
        {"/version": "1.1.0-rc..1"},
        {"/version": "1.1.0-rc.1+build.5"},
    ),
    Twin("pack-version-semver", "pack", "rule:INVALID_VERSION", {"/version": "2.3"}, {"/version": "v2.3.0"}),
    Twin("prompt-version-semver", "pack", "rule:INVALID_VERSION", {"/prompts/main/version": "latest"}, {"/prompts/main/version": "v1.0.0"}),
    # ---- error.type enum
    Twin(
        "error-type-enum",
        "resultset",
        "kw:enum",
        *_row({"/error": dict(ERR, type="crash"), "/passed": False}, {"/error": dict(ERR, type="runner_error"), "/passed": False}),
    ),
    Twin(
        "error-code-type",
        "resultset",
        "kw:type",
        *_row({"/error": dict(ERR, code=503.5), "/passed": False}, {"/error": dict(ERR, code=503), "/passed": False}),
    ),
    # ---- score range and type
    Twin("score-above-1", "resultset", "kw:maximum", *_row({"/grader_results/0/score": 1.5}, {"/grader_results/0/score": 1})),
    Twin("score-below-0", "resultset", "kw:minimum", *_row({"/grader_results/0/score": -0.1}, {"/grader_results/0/score": 0})),
    Twin("score-boolean-true", "resultset", "kw:type", *_row({"/grader_results/0/score": True}, {"/grader_results/0/score": 1.0})),
    Twin(
        "score-boolean-false",
        "resultset",
        "kw:type",
        *_row(
            {"/grader_results/0/score": False, "/grader_results/0/passed": False},
            {"/grader_results/0/score": 0.0, "/grader_results/0/passed": False},
        ),
    ),
    Twin(
        "score-required",
        "resultset",
        "kw:required",
        *_row({"/grader_results/0/score": DELETE}, {"/grader_results/0/score": None, "/grader_results/0/passed": False, "/passed": False}),
    ),
    Twin("summary-pass-rate-range", "resultset", "kw:maximum", {"/summary": {"pass_rate": 1.2}}, {"/summary": {"pass_rate": None}}),
    # ---- date-time / date formats
    Twin("started-at-date-only", "resultset", "kw:format", {"/started_at": "2026-01-01"}, {"/started_at": "2026-01-01T00:00:00Z"}),
    Twin("started-at-words", "resultset", "kw:format", {"/started_at": "yesterday"}),
    Twin(
        "started-at-no-offset",
        "resultset",
        "kw:format",
        {"/started_at": "2026-11-30T09:15:00"},
        {"/started_at": "2026-11-30T09:15:00+01:00"},
    ),
    Twin(
        "result-completed-at-format",
        "resultset",
        "kw:format",
        *_row({"/completed_at": "2026-11-30 09:15"}, {"/completed_at": "2026-11-30T09:15:00.250Z"}),
    ),
    Twin(
        "tested-model-date-format",
        "pack",
        "kw:format",
        {"/prompts/main/tested_models": [{"provider": "openai", "model": "gpt-4.1", "date": "2026-02-30"}]},
        {"/prompts/main/tested_models": [{"provider": "openai", "model": "gpt-4.1", "date": "2026-02-28"}]},
    ),
    # ---- attempt, group
    Twin("attempt-zero", "resultset", "kw:minimum", *_row({"/attempt": 0}, {"/attempt": 1})),
    Twin("attempt-integer", "resultset", "kw:type", *_row({"/attempt": 1.5}, {"/attempt": 2})),
    Twin(
        "group-needs-group-id",
        "resultset",
        "kw:required",
        {"/group": {"role": "baseline", "parent_group_id": "campaign-1"}},
        {"/group": {"role": "baseline", "parent_group_id": "campaign-1", "group_id": "sweep-1"}},
    ),
    Twin("group-id-nonempty", "resultset", "kw:minLength", {"/group": {"group_id": ""}}, {"/group": {"group_id": "sweep-1"}}),
    Twin(
        "group-sequence-min",
        "resultset",
        "kw:minimum",
        {"/group": {"group_id": "g", "sequence": -1}},
        {"/group": {"group_id": "g", "sequence": 0}},
    ),
    # ---- optional but not nullable
    Twin("actual-output-not-null", "resultset", "kw:type", *_row({"/actual_output": None}, {"/actual_output": "4"})),
    Twin("result-completed-at-not-null", "resultset", "kw:type", *_row({"/completed_at": None}, {"/completed_at": "2026-11-30T09:15:03Z"})),
    Twin("error-not-null", "resultset", "kw:type", *_row({"/error": None, "/passed": False}, {"/error": ERR, "/passed": False})),
    Twin("constraint-violations-not-null", "resultset", "kw:type", *_row({"/constraint_violations": None}, {"/constraint_violations": []})),
    Twin("expected-output-not-null", "testcase", "kw:type", {"/expected_output": None}, {"/expected_output": "4"}),
    Twin("grader-description-not-null", "grader", "kw:type", {"/description": None}, {"/description": "Exact answer."}),
    Twin(
        "validator-enabled-not-null",
        "pack",
        "kw:type",
        {"/prompts/main/validators": [{"type": "banned_words", "enabled": None}]},
        {"/prompts/main/validators": [{"type": "banned_words", "enabled": False}]},
    ),
    # ---- identifiers, input, graders
    Twin("testcase-id-nonempty", "testcase", "kw:minLength", {"/id": ""}),
    Twin("input-string-nonempty", "testcase", "kw:oneOf", {"/input": ""}),
    Twin("input-list-nonempty", "testcase", "kw:oneOf", {"/input": []}, {"/input": ["system: be brief", "What is 2 + 2?"]}),
    Twin("graders-nonempty", "testcase", "kw:minItems", {"/graders": []}),
    Twin("grader-ref-nonempty", "testcase", "kw:oneOf", {"/graders/0": ""}),
    Twin(
        "grader-result-id-nonempty",
        "resultset",
        "kw:minLength",
        *_row({"/grader_results/0/grader_id": ""}, {"/grader_results/0/grader_id": "g1"}),
    ),
    Twin("testcase-weight-min", "testcase", "kw:minimum", {"/weight": -1}, {"/weight": 0}),
    Twin("suite-parallel-min", "suite", "kw:minimum", {"/config": {"parallel": 0}}, {"/config": {"parallel": 1}}),
    Twin(
        "suite-retry-backoff-min",
        "suite",
        "kw:minimum",
        {"/config": {"retry": {"backoff_ms": 10}}},
        {"/config": {"retry": {"backoff_ms": 100}}},
    ),
    # ---- the suite digest (SPEC §12.6): `sha256:` and 64 lowercase hex digits, nothing after them (not even the
    # final newline a bare `$` lets through in Python's re)
    Twin(
        "suite-digest-pattern", "resultset", "kw:pattern", {"/suite_digest": "sha256:" + "A" * 64}, {"/suite_digest": "sha256:" + "a" * 64}
    ),
    Twin("suite-digest-short", "resultset", "kw:pattern", {"/suite_digest": "sha256:" + "a" * 63}),
    Twin("suite-digest-nothing-after", "resultset", "kw:maxLength", {"/suite_digest": "sha256:" + "a" * 64 + "\n"}),
    # ---- pack patterns and enums
    Twin("pack-id-pattern", "pack", "kw:pattern", {"/id": "Support_Pack"}, {"/id": "support-pack"}),
    Twin("prompt-id-pattern", "pack", "kw:pattern", {"/prompts/main/id": "Main"}),
    # a character outside the alphabet fails the dialect-proof `not: {pattern: "[^…]"}` (SPEC §3.1)
    Twin(
        "variable-name-pattern",
        "pack",
        "kw:not",
        {"/prompts/main/variables": [{"name": "user-name", "type": "string", "required": True}]},
        {"/prompts/main/variables": [{"name": "user_name", "type": "string", "required": True}]},
    ),
    Twin(
        "validator-id-pattern",
        "pack",
        "kw:pattern",
        {"/prompts/main/validators": [{"id": "No-Cards", "type": "regex_match"}]},
        {"/prompts/main/validators": [{"id": "no_cards", "type": "regex_match"}]},
    ),
    Twin(
        "metric-type-enum",
        "pack",
        "kw:enum",
        {"/evals": [{"id": "e1", "type": "contains", "trigger": "every_turn", "metric": {"name": "m", "type": "summary"}}]},
        {"/evals": [{"id": "e1", "type": "contains", "trigger": "every_turn", "metric": {"name": "m", "type": "gauge"}}]},
    ),
    Twin(
        "metric-name-pattern",
        "pack",
        "kw:not",
        {"/evals": [{"id": "e1", "type": "contains", "trigger": "every_turn", "metric": {"name": "support-score", "type": "gauge"}}]},
        {"/evals": [{"id": "e1", "type": "contains", "trigger": "every_turn", "metric": {"name": "support_score", "type": "gauge"}}]},
    ),
    Twin(
        "eval-threshold-value-number",
        "pack",
        "kw:type",
        {"/evals": [{"id": "e1", "type": "contains", "trigger": "every_turn", "threshold": {"operator": "gte", "value": "0.9"}}]},
        {"/evals": [{"id": "e1", "type": "contains", "trigger": "every_turn", "threshold": {"operator": "gte", "value": 0.9}}]},
    ),
    Twin(
        "eval-needs-trigger",
        "pack",
        "kw:required",
        {"/evals": [{"id": "e1", "type": "contains"}]},
        {"/evals": [{"id": "e1", "type": "contains", "trigger": "every_turn"}]},
    ),
    Twin(
        "tool-choice-enum",
        "pack",
        "kw:enum",
        {"/prompts/main/tool_policy": {"tool_choice": "always"}},
        {"/prompts/main/tool_policy": {"tool_choice": "required"}},
    ),
    Twin(
        "temperature-range",
        "pack",
        "kw:maximum",
        {"/prompts/main/parameters": {"temperature": 2.5}},
        {"/prompts/main/parameters": {"temperature": 1.5}},
    ),
    Twin("template-engine-required", "pack", "kw:required", {"/template_engine": {"version": "v1"}}),
    Twin(
        "fail-on-violation-boolean",
        "pack",
        "kw:type",
        {"/prompts/main/validators": [{"type": "banned_words", "fail_on_violation": "yes"}]},
        {"/prompts/main/validators": [{"type": "banned_words", "fail_on_violation": False}]},
    ),
]

# `$schema` is allowed on every kind (and must be a non-empty string).
TWINS += [Twin(f"{kind}-$schema-allowed", kind, "kw:minLength", {"/$schema": ""}, {"/$schema": schema_uri(kind)}) for kind in KINDS]

# Closed objects reject an unknown property: (example file, JSON Pointer of a closed object in it).
CLOSED_SITES = [
    ("grader-llm-judge.json", ""),
    ("testcase-rag-answer.json", ""),
    ("testcase-rag-answer.json", "/graders/2"),
    ("suite-qa-basic.json", ""),
    ("suite-qa-basic.json", "/graders/0"),
    ("suite-qa-basic.json", "/test_cases/0"),
    ("suite-qa-basic.json", "/config"),
    ("suite-qa-basic.json", "/config/provider"),
    ("suite-qa-basic.json", "/config/defaults"),
    ("suite-qa-basic.json", "/config/retry"),
    ("resultset-aobench-rbac.json", ""),
    ("resultset-aobench-rbac.json", "/runner"),
    ("resultset-aobench-rbac.json", "/provider"),
    ("resultset-aobench-rbac.json", "/results/0"),
    ("resultset-aobench-rbac.json", "/results/0/grader_results/0"),
    ("resultset-aobench-rbac.json", "/results/0/constraint_violations/0"),
    ("resultset-aobench-rbac.json", "/results/2/error"),
    ("resultset-aobench-rbac.json", "/summary"),
    ("resultset-aobench-rbac.json", "/summary/by_grader/outcome"),
    ("resultset-grouped-sweep.json", "/group"),
    ("pack-support-guardrails.json", ""),
    ("pack-support-guardrails.json", "/template_engine"),
    ("pack-support-guardrails.json", "/tools/lookup_order"),
    ("pack-support-guardrails.json", "/prompts/order_help"),
    ("pack-support-guardrails.json", "/prompts/order_help/variables/0"),
    ("pack-support-guardrails.json", "/prompts/order_help/tool_policy"),
    ("pack-support-guardrails.json", "/prompts/order_help/pipeline"),
    ("pack-support-guardrails.json", "/prompts/order_help/pipeline/middleware/0"),
    ("pack-support-guardrails.json", "/prompts/order_help/parameters"),
    ("pack-support-guardrails.json", "/prompts/order_help/validators/0"),
    ("pack-support-guardrails.json", "/prompts/order_help/evals/0"),
    ("pack-support-guardrails.json", "/prompts/order_help/evals/0/threshold"),
    ("pack-support-guardrails.json", "/prompts/order_help/evals/0/metric/range"),
    ("pack-support-guardrails.json", "/prompts/order_help/tested_models/0"),
    ("pack-support-guardrails.json", "/prompts/order_help/model_overrides/claude-sonnet-4-5"),
]
TWINS += [
    Twin(
        f"closed:{file.removesuffix('.json')}{ptr or '/'}",
        file.split("-", 1)[0],
        "kw:additionalProperties",
        {f"{ptr}/x_unknown": "surprise"},
        base=example(file),
    )
    for file, ptr in CLOSED_SITES
]

# Extension points accept unknown properties (the negative control of the closed-object twins):
# (example file, JSON Pointer of a new member to add).
OPEN_SITES = [
    ("testcase-rag-answer.json", "/metadata/com.example.reviewer"),
    ("testcase-rag-answer.json", "/params"),
    ("testcase-rag-answer.json", "/graders/2/params/com.example.locale"),
    ("suite-qa-basic.json", "/config/provider/extra"),
    ("resultset-aobench-rbac.json", "/results/0/grader_results/0/metadata"),
    ("resultset-aobench-rbac.json", "/metadata/com.example.anything"),
    ("pack-support-guardrails.json", "/prompts/order_help/evals/0/metric/labels"),
    ("pack-support-guardrails.json", "/prompts/order_help/evals/0/params/com.example.rubric"),
    ("pack-support-guardrails.json", "/prompts/order_help/evals/0/when"),
    ("pack-support-guardrails.json", "/prompts/order_help/evals/0/extensions"),
    ("pack-support-guardrails.json", "/prompts/order_help/validators/0/params/com.example.locale"),
    ("pack-support-guardrails.json", "/prompts/order_help/validators/0/extensions"),
    ("pack-support-guardrails.json", "/prompts/order_help/variables/2/binding/com.example.ttl"),
    ("pack-support-guardrails.json", "/tools/lookup_order/parameters/$comment"),
    ("pack-support-guardrails.json", "/prompts/order_help/pipeline/middleware/0/config/com.example.mode"),
    ("pack-support-guardrails.json", "/compilation"),
    ("pack-support-guardrails.json", "/extensions"),
]


@pytest.mark.parametrize("twin", TWINS, ids=repr)
def test_rule_twin(validator_for: Validators, registry: referencing.Registry[Any], twin: Twin) -> None:
    bad_errors = errors_of(validator_for, twin.kind, twin.bad)
    assert bad_errors, f"{twin.id}: the schema accepts the violating document"
    what, _, name = twin.expect.partition(":")
    if what == "rule":
        rules = rules_of_errors(registry, twin.kind, bad_errors)
        assert name in rules, f"{twin.id}: rejected, but not by {name} ({rules or 'no rule'}): {describe(bad_errors)}"
    else:
        assert name in keywords_of_errors(bad_errors), f"{twin.id}: no `{name}` error: {describe(bad_errors)}"
    good_errors = errors_of(validator_for, twin.kind, twin.good)
    assert good_errors == [], f"{twin.id}: the fixed twin is rejected: {describe(good_errors)}"


@pytest.mark.parametrize("site", OPEN_SITES, ids=lambda s: f"{s[0].removesuffix('.json')}{s[1]}")
def test_extension_points_accept_unknown_properties(validator_for: Validators, site: tuple[str, str]) -> None:
    file, ptr = site
    doc = patched(example(file), {ptr: {"com.example.nested": [1, "two", {"three": 3.0}]}})
    assert doc != example(file)
    errors = errors_of(validator_for, file.split("-", 1)[0], doc)
    assert errors == [], describe(errors)


def test_every_schema_rule_has_a_rejecting_twin(schemas: dict[str, Any]) -> None:
    covered = {t.expect.removeprefix("rule:") for t in TWINS if t.expect.startswith("rule:")}
    assert set(_x_rules(schemas)) <= covered, f"x-rules without a twin: {set(_x_rules(schemas)) - covered}"


# ---- truth tables ----------------------------------------------------------------------------------------


def _resultset_with_row(**row: Any) -> dict[str, Any]:
    document: dict[str, Any] = patched(RESULTSET, {"/results/0": {**ROW, **row}})
    return document


CONSTRAINT_TABLE = [
    ("no-violations-passed", {"passed": True}, True),
    ("one-non-invalidating-passed", {"constraint_violations": [CV_FALSE], "passed": True}, True),
    ("invalidating-passed", {"constraint_violations": [CV_TRUE], "passed": True}, False),
    ("invalidating-failed", {"constraint_violations": [CV_TRUE], "passed": False}, True),
    ("mixed-passed", {"constraint_violations": [CV_FALSE, CV_TRUE], "passed": True}, False),
    ("empty-array-passed", {"constraint_violations": [], "passed": True}, True),
]
NULL_SCORE_TABLE = [
    ("null-score-passed", {"grader_results": [GR_OK, dict(GR_NULL, passed=True)], "passed": True}, False),
    ("null-score-failed", {"grader_results": [GR_OK, GR_NULL], "passed": True}, True),
    ("zero-score-failed", {"grader_results": [GR_OK, dict(GR_NULL, score=0.0)], "passed": False}, True),
]
UNSCORED_TABLE = [
    ("all-null-passed", {"grader_results": [GR_NULL, dict(GR_NULL, grader_id="g3")], "passed": True}, False),
    ("all-null-failed", {"grader_results": [GR_NULL, dict(GR_NULL, grader_id="g3")], "passed": False}, True),
    ("one-non-null-passed", {"grader_results": [GR_NULL, GR_OK], "passed": True}, True),
    ("empty-grader-results-passed", {"grader_results": [], "passed": True}, False),
    ("empty-grader-results-failed", {"grader_results": [], "passed": False}, True),
]
ERRORED_TABLE = [
    ("error-passed", {"error": ERR, "grader_results": [], "passed": True}, False),
    ("error-failed", {"error": ERR, "grader_results": [], "passed": False}, True),
    ("error-with-graded-rows-passed", {"error": {"type": "timeout"}, "passed": True}, False),
    ("empty-error-object-passed", {"error": {}, "passed": True}, False),
]


@pytest.mark.parametrize(
    ("rule", "row", "valid"),
    [pytest.param("CONSTRAINT_INVALIDATES_PASS", r, v, id=f"CONSTRAINT_INVALIDATES_PASS:{i}") for i, r, v in CONSTRAINT_TABLE]
    + [pytest.param("NULL_SCORE_PASSED", r, v, id=f"NULL_SCORE_PASSED:{i}") for i, r, v in NULL_SCORE_TABLE]
    + [pytest.param("UNSCORED_RESULT_PASSED", r, v, id=f"UNSCORED_RESULT_PASSED:{i}") for i, r, v in UNSCORED_TABLE]
    + [pytest.param("ERRORED_RESULT_PASSED", r, v, id=f"ERRORED_RESULT_PASSED:{i}") for i, r, v in ERRORED_TABLE],
)
def test_result_rule_truth_table(
    validator_for: Validators, registry: referencing.Registry[Any], rule: str, row: dict[str, Any], valid: bool
) -> None:
    errors = errors_of(validator_for, "resultset", _resultset_with_row(**row))
    if valid:
        assert errors == [], describe(errors)
    else:
        rules = rules_of_errors(registry, "resultset", errors)
        assert rule in rules, f"expected {rule}, got {rules}: {describe(errors)}"


def test_suite_source_truth_table(validator_for: Validators) -> None:
    both = patched(SUITE, {"/test_cases_file": "cases.jsonl"})
    neither = patched(SUITE, {"/test_cases": DELETE})
    file_only = patched(neither, {"/test_cases_file": "cases.jsonl"})
    inline_only = SUITE
    verdicts = {
        n: validator_for("suite").is_valid(d)
        for n, d in [("both", both), ("neither", neither), ("file_only", file_only), ("inline_only", inline_only)]
    }
    assert verdicts == {"both": False, "neither": False, "file_only": True, "inline_only": True}
