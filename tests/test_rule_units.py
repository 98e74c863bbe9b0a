"""Code rules are units bound to their ledger ids: scripts/rule_units.py finds a unit for every kind of every
ledger rule enforced by code, and a ledger rule for every unit — and it finds each gap when there is one."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from tools import load_script

from evalschema import pipeline
from evalschema.core.findings import Finding
from evalschema.rules.annotated import rules_of
from evalschema.rules.registry import Batch, Context, UnitError, build
from evalschema.rules.units import REGISTRY, UNITS
from evalschema_models import constants
from evalschema_models.rules import RULES, RULES_BY_UNIT

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "rule_units.py"


def test_every_code_rule_has_a_unit_and_every_unit_a_rule() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith(", 0 problems")


def test_the_check_finds_a_rule_without_unit_and_a_unit_without_rule() -> None:
    units = load_script(SCRIPT)
    ledger = {"DUPLICATE_ID": ["suite"], "INVALID_REGEX": ["grader", "suite"], "INVALID_JSON": ["pack"]}
    complete = [
        ("DUPLICATE_ID", ["suite"], True, ""),
        ("INVALID_REGEX", ["grader"], True, ""),
        ("INVALID_REGEX", ["suite"], True, ""),
        ("INVALID_JSON", ["pack"], False, "evalschema.io.loader.load_path"),
    ]
    assert units.problems(ledger, complete) == []
    assert units.problems(ledger, complete[1:]) == ["DUPLICATE_ID: no unit for suite"]
    assert units.problems(ledger, complete[:2] + complete[3:]) == ["INVALID_REGEX: no unit for suite"]
    assert units.problems(ledger, [*complete, ("NO_SUCH_RULE", ["suite"], True, "")]) == [
        "NO_SUCH_RULE: a unit names no ledger rule enforced by code"
    ]
    assert units.problems(ledger, [*complete, ("DUPLICATE_ID", ["pack"], True, "")]) == [
        "DUPLICATE_ID: a unit for kinds the ledger does not give it: pack"
    ]
    gone = [*complete[:3], ("INVALID_JSON", ["pack"], False, "evalschema.io.loader.no_such_function")]
    assert units.problems(ledger, gone) == ["INVALID_JSON: implemented by evalschema.io.loader.no_such_function, which does not import"]


def test_the_registry_gives_each_stage_once_per_document() -> None:
    # INVALID_REGEX and UNKNOWN_GRADER_PARAM: the suite's hand-written pass; DUPLICATE_ID and DANGLING_REFERENCE: the
    # generated one (x-unique, x-references)
    assert [f.__qualname__ for f in REGISTRY.stage_factories("suite")] == ["_document_rules", "_annotated"]
    # own fields, rows, against a suite, the generated rules (DUPLICATE_ATTEMPT, CONSTRAINT_GRADER_UNKNOWN)
    assert [f.__qualname__ for f in REGISTRY.stage_factories("resultset")] == ["_document_rules", "_rows", "_against_suite", "_annotated"]


def test_the_registry_is_the_ledger_units_table_bound_to_one_function_per_unit() -> None:
    """Every code rule of the ledger is bound to the function of the unit the ledger names for it: the registry is
    the generated table, not a table of rule ids of its own."""
    bound = {(rule.id, rule.unit) for rule in REGISTRY.rules}
    assert bound == {(rule_id, rule["unit"]) for rule_id, rule in RULES.items() if rule["enforced_by"] == "code"}
    assert set(UNITS) == set(RULES_BY_UNIT)
    for rule in REGISTRY.rules:
        assert rule.kinds == tuple(RULES[rule.id]["kinds"]), rule.id
        assert (rule.check if rule.check is not None else UNITS[rule.unit]) is UNITS[rule.unit], rule.id


def test_the_annotated_unit_checks_exactly_the_rules_the_schemas_declare() -> None:
    """The ledger's unit ``annotated`` and the generated table of x-unique / x-references annotations name the same
    rules for the same kinds: the generic stage is bound to no rule it does not check, and checks no rule unbound."""
    declared = {(rule.rule, kind) for kind in constants.KINDS for rule in rules_of(kind)}
    assert declared == {(rule_id, kind) for rule_id in RULES_BY_UNIT["annotated"] for kind in RULES[rule_id]["kinds"]}


def test_a_ledger_unit_without_function_and_a_function_without_ledger_unit_are_refused() -> None:
    without = {name: unit for name, unit in UNITS.items() if name != "result_rows"}
    with pytest.raises(UnitError) as refused:
        build(without)
    assert str(refused.value) == "ERROR_WITH_INVALIDATING_VIOLATION: the ledger's unit 'result_rows' has no function (give one for it)"
    with pytest.raises(UnitError) as refused:
        build({**UNITS, "no_such_unit": UNITS["result_rows"]})
    assert str(refused.value) == "no_such_unit: a function is given for unit 'no_such_unit', which no ledger rule names"


def test_a_new_code_rule_is_a_ledger_entry_and_one_function_passed_to_the_pipeline() -> None:
    """Adding a code rule: a ledger entry naming its unit (here a table standing for the regenerated ledger), one
    function for the unit, and the registry built from them given to ``validate`` as a value."""

    class NoTodo:
        def envelope(self, members: dict[str, Any]) -> Iterable[Finding]:
            if "TODO" in str(members.get("name", "")):
                yield Finding("/name", "NO_TODO", "warning", "a TODO in the name")

        def rows(self, batch: Batch) -> Iterable[Finding]:
            return ()

        def part(self, items: list[Any]) -> None:
            return None

        def join(self, part: None, batch: Batch) -> Iterable[Finding]:
            return ()

        def finish(self) -> Iterable[Finding]:
            return ()

    def no_todo(context: Context) -> NoTodo:
        return NoTodo()

    ledger = {**RULES, "NO_TODO": {"id": "NO_TODO", "kinds": ["suite"], "severity": "warning", "enforced_by": "code", "unit": "no_todo"}}
    registry = build({**UNITS, "no_todo": no_todo}, {**RULES_BY_UNIT, "no_todo": ("NO_TODO",)}, ledger)
    suite = {"suite_id": "s", "name": "TODO", "test_cases": [{"id": "a", "input": "x"}]}
    assert [f.code for f in pipeline.validate(suite, "suite", registry=registry).warnings] == ["NO_TODO"]
    assert [f.code for f in pipeline.validate(suite, "suite").warnings] == []  # the default registry: the ledger's


ROOT = SCRIPT.parent.parent
BINDING_MODULES = ("evalschema/rules/registry.py", "evalschema/rules/units.py", "js/src/rules/registry.ts", "js/src/summary/mismatch.ts")


def rule_ids_named(path: Path) -> list[str]:
    """The ledger rule ids a module names in its code: ``codes.X`` and string literals that are rule ids (Python:
    read from its syntax tree, docstrings aside; TypeScript: comments aside). ``finding(…, codes.X, …)`` is how a
    unit reports a rule, so a module that only binds names none."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py":
        out = []
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "codes":
                out.append(node.attr)
            elif isinstance(node, ast.Constant) and node.value in RULES:
                out.append(str(node.value))
        return out
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL)
    return re.findall(r"\bcodes\.([A-Z][A-Z0-9_]*)", code) + [m for m in re.findall(r"[\"'`]([A-Z][A-Z0-9_]*)[\"'`]", code) if m in RULES]


@pytest.mark.parametrize("module", BINDING_MODULES)
def test_no_sdk_binds_a_rule_id_by_hand(module: str) -> None:
    """The registries bind unit names, never rule ids: the ids come from the ledger's table alone."""
    named = rule_ids_named(ROOT / module)
    if module == "js/src/summary/mismatch.ts":  # the summary unit itself: it reports its rule, binds none
        named = [name for name in named if name != "SUMMARY_MISMATCH"]
    assert named == []


def test_the_scan_finds_a_hand_binding(tmp_path: Path) -> None:
    python = tmp_path / "old.py"
    python.write_text('bind(codes.SELF_PARENT, "resultset", check)\nregister("INVALID_JSON", reader)\n', encoding="utf-8")
    assert rule_ids_named(python) == ["SELF_PARENT", "INVALID_JSON"]
    typescript = tmp_path / "old.ts"
    typescript.write_text(
        '// codes.NOT_THIS\nnew Registry().register(codes.SELF_PARENT, unit).register("INVALID_JSON", reader);\n', encoding="utf-8"
    )
    assert rule_ids_named(typescript) == ["SELF_PARENT", "INVALID_JSON"]
