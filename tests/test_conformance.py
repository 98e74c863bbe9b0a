"""Runs the language-neutral conformance fixtures of ``spec/conformance/`` against the Python SDK.

Each fixture is one JSON file (format: ``spec/conformance/README.md``). Besides running every fixture, this
module checks the fixture set itself: the format, the codes against ``spec/ledger.json``, coverage of every
ledger rule (a triggering fixture and a valid twin), every example of ``spec/examples/`` being a fixture, and
the schema-vs-code split (schema rules are caught by the schemas alone; code rules are accepted by them).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE_DIR = ROOT / "spec" / "conformance"
EXAMPLES_DIR = ROOT / "spec" / "examples"
LEDGER_PATH = ROOT / "spec" / "ledger.json"
SCHEMAS_DIR = ROOT / "schemas"
KINDS = ("testcase", "grader", "suite", "resultset", "pack")

from evalschema import validate  # noqa: E402  (after the constants the imports below rely on)

# The format of a fixture file (README, "Conformance fixtures").
FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["code", "pointer"],
    "properties": {
        "code": {"type": "string", "pattern": "^[A-Z][A-Z0-9_]*$"},
        "pointer": {"type": "string", "pattern": "^(/([^~]|~[01])*)*$"},
    },
}
FIXTURE_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["description", "kind", "document", "expect"],
    "properties": {
        "description": {"type": "string", "minLength": 1},
        "kind": {"enum": [None, *KINDS]},
        "document": {},
        "suite": {"type": "object"},
        "options": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"strict": {"type": "boolean"}, "allow_unknown": {"type": "boolean"}},
        },
        "expect": {
            "type": "object",
            "additionalProperties": False,
            "required": ["valid", "errors", "warnings"],
            "properties": {
                "valid": {"type": "boolean"},
                "errors": {"type": "array", "items": FINDING_SCHEMA, "uniqueItems": True},
                "warnings": {"type": "array", "items": FINDING_SCHEMA, "uniqueItems": True},
            },
        },
    },
}
FILE_NAME = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*__[a-z0-9]+([_-][a-z0-9]+)*\.json$")

# Identification rules: they decide what is validated at all, so the schema-alone check does not apply.
IDENTIFICATION_CODES = {"VERSION_UNSUPPORTED", "UNKNOWN_KIND"}


def _load(path: Path) -> Any:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


FIXTURE_PATHS = sorted(CONFORMANCE_DIR.glob("*.json"))
FIXTURES: dict[str, dict[str, Any]] = {p.stem: _load(p) for p in FIXTURE_PATHS}
LEDGER: dict[str, dict[str, Any]] = {rule["id"]: rule for rule in _load(LEDGER_PATH)["rules"]}
# Rules about two compared result sets (`"scope": "comparison"`, tested by tests/test_compare.py) and rules about reading an input file (`"scope": "file"`: FILE_UNREADABLE, INVALID_JSON, DUPLICATE_KEY) concern bytes
# before there is a document; a fixture's `document` is already-parsed JSON and cannot express them.
DOCUMENT_RULES = {rule_id: rule for rule_id, rule in LEDGER.items() if rule.get("scope", "document") == "document"}


def _pairs(findings: Any) -> list[tuple[str, str]]:
    """(code, pointer) of every finding, sorted: equal lists, duplicates included."""
    return sorted((f.code, f.pointer) if hasattr(f, "code") else (f["code"], f["pointer"]) for f in findings)


# ------------------------------------------------------------------------------------------------------------
# Kind detection as SPEC.md section 2.2 states it (used to know which kind a `kind: null` fixture is).

_OURS = re.compile(r"^https://evalschema\.org/schema/[^/]+/(?P<kind>[a-z]+)\.json$")
_EVALPORT = re.compile(r"^https://evalport\.org/schema/(?:[^/]+/)?(?P<kind>testcase|grader|suite|resultset)\.json$")
_PROMPTPACK = re.compile(r"^https://promptpack\.org/schema/[^/]+/promptpack\.schema\.json$")


def effective_kind(fixture: dict[str, Any]) -> str | None:
    if fixture["kind"] is not None:
        return str(fixture["kind"])
    document = fixture["document"]
    if not isinstance(document, dict):
        return None
    declared = document.get("$schema")
    if isinstance(declared, str):
        for pattern in (_OURS, _EVALPORT):
            match = pattern.match(declared)
            if match and match["kind"] in KINDS:
                return match["kind"]
        if _PROMPTPACK.match(declared):
            return "pack"
    shape = (
        (("prompts", "template_engine"), "pack"),
        (("results", "run_id"), "resultset"),
        (("test_cases", "test_cases_file"), "suite"),
        (("input",), "testcase"),
        (("type",), "grader"),
    )
    for keys, kind in shape:
        if any(k in document for k in keys):
            return kind
    return None


# ------------------------------------------------------------------------------------------------------------
# The fixtures, run against the SDK


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture(name: str, engine: str) -> None:
    fixture = FIXTURES[name]
    options = fixture.get("options", {})
    report = validate(
        fixture["document"],
        fixture["kind"],
        strict=bool(options.get("strict", False)),
        allow_unknown=bool(options.get("allow_unknown", False)),
        suite=fixture.get("suite"),
        engine=engine,  # type: ignore[arg-type]
    )
    expect = fixture["expect"]
    got = {"valid": report.valid, "errors": _pairs(report.errors), "warnings": _pairs(report.warnings)}
    want = {"valid": expect["valid"], "errors": _pairs(expect["errors"]), "warnings": _pairs(expect["warnings"])}
    assert got == want, f"{name}: {fixture['description']}"


# ------------------------------------------------------------------------------------------------------------
# The fixture set itself


def test_fixtures_exist() -> None:
    assert FIXTURES, f"no fixtures in {CONFORMANCE_DIR}"


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_fixture_format(name: str) -> None:
    fixture = FIXTURES[name]
    errors = sorted(Draft202012Validator(FIXTURE_SCHEMA).iter_errors(fixture), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]
    assert FILE_NAME.match(f"{name}.json"), f"{name}.json: expected <rule-or-topic>__<what>.json in lower snake case"
    expect = fixture["expect"]
    assert expect["valid"] is (not expect["errors"]), "`valid` is true exactly when `errors` is empty"


def test_fixture_codes_are_ledger_rules() -> None:
    unknown = {
        f"{name}: {finding['code']}"
        for name, fixture in FIXTURES.items()
        for finding in fixture["expect"]["errors"] + fixture["expect"]["warnings"]
        if finding["code"] not in LEDGER
    }
    assert not unknown, sorted(unknown)


def test_every_rule_is_triggered() -> None:
    expected_codes = {
        finding["code"] for fixture in FIXTURES.values() for finding in fixture["expect"]["errors"] + fixture["expect"]["warnings"]
    }
    missing = sorted(set(DOCUMENT_RULES) - expected_codes)
    assert not missing, f"ledger rules with no fixture that triggers them: {missing}"


def test_every_rule_has_a_valid_twin() -> None:
    """Each rule has a fixture named after it that is valid, free of the rule, and of a kind the rule applies to."""
    lacking = []
    for rule_id, rule in DOCUMENT_RULES.items():
        prefix = rule_id.lower() + "__"
        twins = [
            name
            for name, fixture in FIXTURES.items()
            if name.startswith(prefix)
            and fixture["expect"]["valid"]
            and rule_id not in {f["code"] for f in fixture["expect"]["errors"] + fixture["expect"]["warnings"]}
            and effective_kind(fixture) in rule["kinds"]
        ]
        if not twins:
            lacking.append(rule_id)
    assert not lacking, f"ledger rules with no valid fixed-twin fixture (named <rule>__…): {lacking}"


def test_fixture_names_name_a_rule_or_topic() -> None:
    """A fixture named after a rule (its prefix is a lower-cased rule id) is about that rule."""
    lower = {rule_id.lower(): rule_id for rule_id in LEDGER}
    wrong = []
    for name, fixture in FIXTURES.items():
        prefix = name.split("__", 1)[0]
        rule_id = lower.get(prefix)
        if rule_id is None:
            continue
        kind = effective_kind(fixture)
        codes = {f["code"] for f in fixture["expect"]["errors"] + fixture["expect"]["warnings"]}
        if rule_id not in codes and kind is not None and kind not in LEDGER[rule_id]["kinds"] and rule_id != "UNKNOWN_KIND":
            wrong.append(f"{name}: kind {kind} is not one of {rule_id}'s kinds")
    assert not wrong, wrong


EXAMPLE_PATHS = sorted(EXAMPLES_DIR.glob("*.json"))


@pytest.mark.parametrize("path", EXAMPLE_PATHS, ids=[p.stem for p in EXAMPLE_PATHS])
def test_every_example_is_a_fixture(path: Path) -> None:
    example = _load(path)
    assert any(fixture["document"] == example for fixture in FIXTURES.values()), (
        f"no fixture has spec/examples/{path.name} as its document (add example__{path.stem.replace('-', '_')}.json)"
    )


# The schema-vs-code split (a fixture expecting a schema rule is rejected by the schemas alone, one expecting
# only code rules is accepted) is checked by tests/test_oracles.py, by six independent validators at once.
