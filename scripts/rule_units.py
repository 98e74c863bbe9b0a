"""Every code rule of the ledger has a unit, and every unit a ledger rule (issue 17 item 3, issue 38 item 7).

    python scripts/rule_units.py      # lists the rules by unit; exits 1 on a rule without unit or a unit without rule

The registry (``evalschema.rules.units.REGISTRY``) is built from the ledger's table of the rules of each unit and one
function per unit name (``evalschema.rules.registry.build`` refuses a unit without function and a function without
ledger rule). Here: a ledger rule ``enforced_by: "code"`` must be bound for each of its kinds, as a stage of the
pipeline or with the dotted name of what implements it (the reader, identification, the engine, a feature), which
must import; a binding must name a ledger rule enforced by code, for kinds the ledger gives it.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

LEDGER = Path(__file__).resolve().parent.parent / "spec" / "ledger.json"


def resolves(dotted: str) -> bool:
    """Whether a dotted name (``package.module.attribute`` or a module) imports."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False


def problems(ledger: Mapping[str, Iterable[str]], units: Iterable[tuple[str, Iterable[str], bool, str]]) -> list[str]:
    """``ledger``: each code rule's kinds. ``units``: (id, kinds, is a stage, implemented_by) of each unit."""
    out: list[str] = []
    covered: dict[str, set[str]] = {rule_id: set() for rule_id in ledger}
    for rule_id, kinds, is_stage, implemented_by in units:
        kinds = set(kinds)
        if rule_id not in ledger:
            out.append(f"{rule_id}: a unit names no ledger rule enforced by code")
            continue
        if extra := kinds - set(ledger[rule_id]):
            out.append(f"{rule_id}: a unit for kinds the ledger does not give it: {', '.join(sorted(extra))}")
        if not is_stage and not resolves(implemented_by):
            out.append(f"{rule_id}: implemented by {implemented_by or '(nothing)'}, which does not import")
        covered[rule_id] |= kinds
    for rule_id, kinds in ledger.items():
        if missing := set(kinds) - covered[rule_id]:
            out.append(f"{rule_id}: no unit for {', '.join(sorted(missing))}")
    return out


def ledger_code_rules(path: Path = LEDGER) -> dict[str, list[str]]:
    rules = json.loads(path.read_text(encoding="utf-8"))["rules"]
    return {rule["id"]: list(rule["kinds"]) for rule in rules if rule.get("enforced_by") == "code"}


def main() -> int:
    from evalschema.rules.units import REGISTRY  # built from the ledger's units: a gap there fails this import

    registered = REGISTRY.rules
    for unit in registered:
        where = unit.implemented_by if unit.check is None else f"stage {getattr(unit.check, '__qualname__', unit.check)}"
        print(f"{unit.family:<10} {unit.unit:<16} {unit.id:<34} {','.join(unit.kinds):<38} {where}")
    found = problems(ledger_code_rules(), ((u.id, u.kinds, u.check is not None, u.implemented_by) for u in registered))
    for problem in found:
        print(f"error: {problem}", file=sys.stderr)
    print(f"{len(registered)} units, {len(ledger_code_rules())} code rules in the ledger, {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
