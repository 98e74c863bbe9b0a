"""YAML is read with the YAML 1.2 core schema (issue 14, item 8): ``yes``/``no``/``on``/``off`` stay strings, so a
boolean field holding one is a TYPE_MISMATCH instead of a silent ``true``; and a prompt's ``id`` must be its key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evalschema.io.loader import parse_yaml

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "yaml"
SCRIPT = Path(sys.executable).with_name("evalschema")


def findings(path: Path) -> list[tuple[str, str, int]]:
    proc = subprocess.run([str(SCRIPT), "validate", "--format", "json", str(path)], capture_output=True, text=True, timeout=120)
    (entry,) = json.loads(proc.stdout)["files"]
    return [(f["code"], f["pointer"], f["line"]) for f in entry["errors"]]


@pytest.mark.parametrize(
    "text, value",
    [
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("n", "n"),
        ("Yes", "Yes"),
        ("OFF", "OFF"),
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("false", False),
        ("FALSE", False),
        ("null", None),
        ("Null", None),
        ("~", None),
        ("", None),
        ("012", 12),
        ("0o17", 15),
        ("0x1F", 31),
        ("-3", -3),
        ("1_000", "1_000"),
        ("1:20", "1:20"),
        ("0b101", "0b101"),
        ("1e3", 1000.0),
        (".5", 0.5),
        ("-2.5", -2.5),
        ("2026-11-30", "2026-11-30"),
        ("2026-11-30T09:00:00Z", "2026-11-30T09:00:00Z"),
    ],
)
def test_plain_scalars_resolve_by_the_yaml_1_2_core_schema(text: str, value: object) -> None:
    (loaded,) = parse_yaml(f"x: {text}\n")
    assert loaded.problem is None
    assert loaded.document == {"x": value} and type(loaded.document["x"]) is type(value)


def test_yaml_1_1_words_in_boolean_fields_are_type_mismatches() -> None:
    assert findings(DATA / "pack-yaml11-words.yaml") == [
        ("TYPE_MISMATCH", "/prompts/support/variables/0/required", 15),
        ("TYPE_MISMATCH", "/prompts/support/validators/0/enabled", 18),
    ]
    assert findings(DATA / "pack-core-booleans.yaml") == []


def test_a_prompt_id_that_differs_from_its_key_is_reported() -> None:
    assert findings(DATA / "pack-prompt-key-vs-id.yaml") == [("PROMPT_ID_MISMATCH", "/prompts/support/id", 7)]
