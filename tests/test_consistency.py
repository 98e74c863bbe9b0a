"""The consistency suite: every validation path agrees, and the ledger says truthfully who enforces what.

Paths: the full validator (``evalschema.validate``), the schema path alone (``evalschema.schema_path``), plain
python-jsonschema with no mapping, and the generated pydantic models. The ledger's ``models`` field records,
per rule, whether the generated models enforce it — measured here on the conformance fixtures, not guessed.
"""

from __future__ import annotations

import ast
import copy
import json
import re
import sys
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from schema_helpers import value_paths

import evalschema_models
import evalschema_models.constants
from evalschema import summarize, validate
from evalschema.engine import schema_path
from evalschema.pipeline import rule_messages
from evalschema.schemas.registry import current

ROOT = Path(__file__).resolve().parents[1]
LEDGER = {rule["id"]: rule for rule in json.loads((ROOT / "spec" / "ledger.json").read_text())["rules"]}
FIXTURES = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "spec" / "conformance").glob("*.json"))}
EXAMPLES = {p.stem: json.loads(p.read_text()) for p in sorted((ROOT / "spec" / "examples").glob("*.json"))}
MODELS: dict[str, type[pydantic.BaseModel]] = {
    "testcase": evalschema_models.TestCase,
    "grader": evalschema_models.Grader,
    "suite": evalschema_models.Suite,
    "resultset": evalschema_models.ResultSet,
    "pack": evalschema_models.Pack,
}
SCHEMA_RULES = {rule_id for rule_id, rule in LEDGER.items() if rule["enforced_by"] == "schema"}


def _kind(fixture: dict[str, Any]) -> str | None:
    return fixture["kind"] or validate(fixture["document"]).kind


def _pairs(findings: Any) -> set[tuple[str, str]]:
    return {(f["code"], f["pointer"]) if isinstance(f, dict) else (f.code, f.pointer) for f in findings}


@cache
def _plain_validator(kind: str) -> Draft202012Validator:
    schemas = current()
    return Draft202012Validator(schemas.roots[kind], registry=schemas.registry, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _model_accepts(kind: str, document: Any) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            MODELS[kind].model_validate(document)
        except pydantic.ValidationError:
            return False
    return True


# --- the SDK emits only ledger codes ----------------------------------------------------------------------


_CODE_LIKE = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
# environment variables, exported constants (the limits, named in their module's docs) and an os flag: not rule codes
_NOT_CODES = {
    "NO_COLOR",
    "STREAM_THRESHOLD",
    "EVALSCHEMA_MAX_INPUT_BYTES",
    "O_NONBLOCK",
    "RESOURCE_EXHAUSTION",  # the yaml package's error code for a parser out of stack (js/src/yaml.ts)
    "MAX_INPUT_BYTES",
    "MAX_INPUT_BYTES_CEILING",
    "MAX_FINDINGS",
    "MAX_VALUE_CHARS",
    "MAX_LISTED",
    "O_CLOEXEC",  # an os flag, as O_NONBLOCK
    # names a module exports (its ``__all__``): exit statuses, the stream choices, -j's ranges per process
    "EXIT_OK",
    "EXIT_INVALID",
    "EXIT_UNREADABLE",
    "STREAM_CHOICES",
    "RANGES_PER_JOB",
    # the tables that bind the ledger's rules to their units (generated, and each SDK's binding of them)
    "RULES_BY_UNIT",
    "RULES_REGISTRY",
    "RULE_UNITS",
}


def _python_codes() -> set[str]:
    """Every ``codes.X`` and every code-like string literal (``"INVALID_JSON"``) in the Python SDK."""
    named: set[str] = set()
    # the validating SDK, every layer of it; not the features with codes of their own (interop's IMPORT_* and the
    # commands that import, compare)
    features = {"compare", "interop", "interopcmd.py", "columnar.py", "columnarcmd.py"}
    for path in (p for p in (ROOT / "evalschema").rglob("*.py") if not features & set(p.relative_to(ROOT / "evalschema").parts)):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "codes":
                named.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _CODE_LIKE.fullmatch(node.value):
                named.add(node.value)
    return named - _NOT_CODES


def _typescript_codes() -> set[str]:
    """Every ``codes.X`` and every code-like string literal in the TypeScript SDK's sources."""
    named: set[str] = set()
    for path in sorted(p for p in (ROOT / "js" / "src").rglob("*.ts") if "generated" not in p.parts):
        text = path.read_text()
        named |= set(re.findall(r"\bcodes\.([A-Z][A-Z0-9_]*)", text))
        named |= {m for m in re.findall(r"[\"'`]([A-Z][A-Z0-9_]*)[\"'`]", text) if _CODE_LIKE.fullmatch(m)}
    return named - _NOT_CODES


def test_every_code_the_sdks_name_is_in_the_ledger() -> None:
    """Every code either SDK names — as ``codes.X`` or as a string literal — is a ledger rule."""
    python, typescript = _python_codes(), _typescript_codes()
    assert python and typescript, "an SDK names no codes: this test would prove nothing"
    assert python - set(LEDGER) == set()
    assert typescript - set(LEDGER) == set()


def test_keyword_codes_name_schema_rules_only() -> None:
    """The keyword → code table (generated from spec/constants.json; both SDKs import it: tests/test_limits.py)
    names schema rules only, and the read-error codes are file-scope rules."""
    assert schema_path.KEYWORD_CODES and set(schema_path.KEYWORD_CODES.values()) <= SCHEMA_RULES
    file_scope = {rule_id for rule_id, rule in LEDGER.items() if rule.get("scope") == "file"}
    assert set(evalschema_models.constants.UNREADABLE_CODES) <= file_scope


def test_every_ledger_rule_is_emitted_somewhere() -> None:
    emitted = {code for f in FIXTURES.values() for code, _ in _pairs(f["expect"]["errors"] + f["expect"]["warnings"])}
    file_scope = {
        rule_id for rule_id, rule in LEDGER.items() if rule.get("scope") in ("file", "comparison")
    }  # comparison: tests/test_compare.py
    assert set(LEDGER) - file_scope - emitted == set()


# The schema path against plain python-jsonschema and five other validators: tests/test_oracles.py.


# --- the generated models against the same fixtures ------------------------------------------------------


def _valid_documents() -> list[tuple[str, str, Any]]:
    out = []
    for name, fixture in sorted(FIXTURES.items()):
        kind = _kind(fixture)
        # unknown fields allowed by the forward-compatible mode are not in the models (they are closed)
        if fixture["expect"]["valid"] and kind is not None and not fixture.get("options", {}).get("allow_unknown"):
            out.append((name, kind, fixture["document"]))
    return out


@pytest.mark.parametrize(("name", "kind", "document"), _valid_documents(), ids=[n for n, _, _ in _valid_documents()])
def test_valid_documents_round_trip_through_the_models(name: str, kind: str, document: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model = MODELS[kind].model_validate(document)
    assert model.model_dump(mode="json", exclude_unset=True, by_alias=True) == document


def measured_model_enforcement() -> dict[str, str]:
    """Per rule: does the generated model reject the fixtures whose only expected errors are that rule?"""
    verdicts: dict[str, set[bool]] = {}
    for fixture in FIXTURES.values():
        codes = {code for code, _ in _pairs(fixture["expect"]["errors"])}
        kind = _kind(fixture)
        if len(codes) != 1 or kind is None or fixture["expect"]["warnings"]:
            continue
        (code,) = codes
        verdicts.setdefault(code, set()).add(not _model_accepts(kind, fixture["document"]))
    return {
        code: "enforced" if seen == {True} else "not_enforced" if seen == {False} else "partial" for code, seen in sorted(verdicts.items())
    }


def test_ledger_records_what_the_models_enforce() -> None:
    measured = measured_model_enforcement()
    recorded = {rule_id: rule.get("models") for rule_id, rule in LEDGER.items() if rule_id in measured}
    assert recorded == measured, "update `models` in spec/ledger.json to:\n" + json.dumps(measured, indent=1)


def test_deprecated_field_access_warns_with_the_replacement() -> None:
    validator = evalschema_models.pack.Validator.model_validate({"type": "max_length", "fail_on_violation": False})
    with pytest.warns(DeprecationWarning, match="an eval on the same prompt"):
        assert validator.fail_on_violation is False


# --- property-based: mutated real documents ---------------------------------------------------------------

CORPUS = [(kind, doc) for name, kind, doc in _valid_documents()]


REPLACEMENTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-1.5, 2.5, allow_nan=False),
    st.sampled_from(["", "x", "2026-13-01", "("]),
    st.just([]),
    st.just({}),
    st.just({"unexpected": 1}),
)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, Any]:
    kind, document = draw(st.sampled_from(CORPUS))
    document = copy.deepcopy(document)
    for _ in range(draw(st.integers(1, 3))):
        paths = value_paths(document)
        path = draw(st.sampled_from(paths))
        if not path:
            continue
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = copy.deepcopy(draw(REPLACEMENTS))
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent[path[-1]], dict):
            parent[path[-1]][draw(st.sampled_from(["extra", "passed", "score", "attempt", "id"]))] = copy.deepcopy(draw(REPLACEMENTS))
    return kind, document


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_documents_every_path_agrees(case: tuple[str, Any]) -> None:
    kind, document = case
    report = validate(document, kind)  # never raises, whatever the input
    reference = validate(document, kind, engine="reference")
    assert _pairs(report.errors) == _pairs(reference.errors) and _pairs(report.warnings) == _pairs(reference.warnings)
    mapped = schema_path.check(document, kind, rule_messages(), "reference").findings
    # the verdict against plain python-jsonschema and five other validators: tests/test_oracles.py
    schema_found = {(f.code, f.pointer) for f in report.errors if f.code in SCHEMA_RULES}
    assert schema_found == {(f.code, f.pointer) for f in mapped}
    if not mapped:
        # the models are looser than the schema (they drop conditionals), never stricter
        assert _model_accepts(kind, document)


def test_ledger_matches_its_format() -> None:
    ledger = json.loads((ROOT / "spec" / "ledger.json").read_text())
    schema = json.loads((ROOT / "spec" / "ledger.schema.json").read_text())
    errors = [f"{e.json_path}: {e.message}" for e in Draft202012Validator(schema).iter_errors(ledger)]
    assert errors == []
    assert len({rule["id"] for rule in ledger["rules"]}) == len(ledger["rules"]), "duplicate rule ids"


# --- property-based: generated valid documents ------------------------------------------------------------

sys.path.insert(0, str(ROOT / "benchmarks"))
import synthetic  # noqa: E402  (the seeded generator the benchmarks use)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rows=st.integers(0, 40), attempts=st.integers(1, 4))
def test_generated_result_sets_are_valid_on_every_path(seed: int, rows: int, attempts: int) -> None:
    """Generated result sets (attempts, violations, errors, null scores) are accepted by every path."""
    document = synthetic.resultset(rows, seed=seed, attempts=attempts)
    assert validate(document).findings == ()
    assert validate(document, engine="reference").findings == ()
    assert _plain_validator("resultset").is_valid(document)
    assert _model_accepts("resultset", document)
    document["summary"] = summarize(document).to_dict()  # the reference summary agrees with itself
    assert validate(document).findings == ()
