"""Tables derived from the schemas are generated (evalschema_models._deprecations, generated/typescript/_deprecations.ts)
and the SDKs report from them: for each deprecated location, the ledger's DEPRECATED_FIELD variant and parameters, taken
from the same annotation the models' warnings are written from."""

from __future__ import annotations

import json
import re
from pathlib import Path

from evalschema import validate
from evalschema.core.messages import render
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
        assert DEPRECATIONS[location].get("reason", "") == " ".join(reason.split())


def test_every_variant_of_the_table_is_a_ledger_template_with_its_parameters() -> None:
    from evalschema.core.messages import template

    for params in DEPRECATIONS.values():
        text = template("DEPRECATED_FIELD", params["variant"])
        assert {*params} - {"variant"} == set(re.findall(r"\{([a-z_]+)\}", text)) - {"name"}, (params, text)


def test_the_python_sdk_warns_with_the_generated_message() -> None:
    fixture = json.loads((ROOT / "spec" / "conformance" / "validator_fail_open__both_values.json").read_text(encoding="utf-8"))
    report = validate(fixture["document"], kind="pack")
    messages = {f.code: f.message for f in report.warnings}
    expected = (
        '"fail_on_violation" is deprecated since 1.1.0 and will be removed in 2.0.0 (not before 2027-11-30); use `enabled: '
        "false` to turn a validator off, or an eval on the same prompt to observe without enforcing instead. Validators "
        "always enforce and the value is ignored; `fail_on_violation: false` made a guardrail that silently did nothing."
    )
    assert messages["DEPRECATED_FIELD"] == expected == render("DEPRECATED_FIELD", "reason", name="fail_on_violation", **_params(LOCATION))
    assert messages["VALIDATOR_FAIL_OPEN"] == render("VALIDATOR_FAIL_OPEN", detail=expected)


def _params(location: str) -> dict[str, str]:
    return {key: value for key, value in DEPRECATIONS[location].items() if key != "variant"}


def test_a_location_no_longer_deprecated_gets_the_plain_variant() -> None:
    from evalschema.engine.deprecations import describe
    from evalschema.engine.schema_path import DeprecatedUse

    assert describe(DeprecatedUse("/x/old", "old", None, "pack.json#/nowhere")) == '"old" is deprecated.'
