"""Tables derived from the schemas are generated (evalschema_models._deprecations, generated/typescript/_deprecations.ts)
and the SDKs report from them: one message per deprecated location, the same as the models' warnings."""

from __future__ import annotations

import json
from pathlib import Path

from evalschema import validate
from evalschema_models._deprecations import DEPRECATIONS

ROOT = Path(__file__).resolve().parents[1]
LOCATION = "pack.json#/$defs/Validator/properties/fail_on_violation"


def test_every_deprecated_location_of_the_schemas_has_a_generated_message() -> None:
    """Each ``deprecated: true`` subschema of schemas/ is a key of the table (its x-deprecation reason in its text)."""
    found = {}
    for path in sorted((ROOT / "schemas").glob("*.json")):
        stack: list[tuple[object, str]] = [(json.loads(path.read_text(encoding="utf-8")), "")]
        while stack:
            node, at = stack.pop()
            if isinstance(node, dict):
                if node.get("deprecated") is True:
                    found[f"{path.name}#{at}"] = node.get("x-deprecation", {}).get("reason", "")
                stack.extend((v, f"{at}/{k.replace('~', '~0').replace('/', '~1')}") for k, v in node.items())
            elif isinstance(node, list):
                stack.extend((v, f"{at}/{i}") for i, v in enumerate(node))
    assert set(found) == set(DEPRECATIONS) and LOCATION in found
    for location, reason in found.items():
        assert DEPRECATIONS[location].endswith(reason)


def test_the_python_sdk_warns_with_the_generated_message() -> None:
    fixture = json.loads((ROOT / "spec" / "conformance" / "validator_fail_open__both_values.json").read_text(encoding="utf-8"))
    report = validate(fixture["document"], kind="pack")
    messages = {f.code: f.message for f in report.warnings}
    assert messages["DEPRECATED_FIELD"] == f'"fail_on_violation" is deprecated: {DEPRECATIONS[LOCATION]}'
    assert messages["VALIDATOR_FAIL_OPEN"].endswith(f'"fail_on_violation" is deprecated: {DEPRECATIONS[LOCATION]}')
