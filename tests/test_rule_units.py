"""Code rules are units bound to their ledger ids: scripts/rule_units.py finds a unit for every kind of every
ledger rule enforced by code, and a ledger rule for every unit — and it finds each gap when there is one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools import load_script

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
    from evalschema import pipeline
    from evalschema.rules.registry import stage_factories

    del pipeline  # imported to register the units
    # INVALID_REGEX and UNKNOWN_GRADER_PARAM: one hand-written pass; DUPLICATE_ID and DANGLING_REFERENCE: the
    # generated one (x-unique, x-references)
    assert [f.__qualname__ for f in stage_factories("suite")] == ["DocumentPass(suite_rules)", "_annotated"]
    # own fields, rows, the generated rules (DUPLICATE_ATTEMPT, CONSTRAINT_GRADER_UNKNOWN), against a suite
    assert len(list(stage_factories("resultset"))) == 4
