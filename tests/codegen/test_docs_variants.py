"""Docs: a conditional parameter set (``if`` one property has a value, ``then`` properties) is one table per variant;
other conditionals stay in the list of rules."""

from __future__ import annotations

import json
from pathlib import Path

from codegen.ir import build
from codegen.load import load
from codegen.targets import docs

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Thing",
    "type": "object",
    "properties": {"kind": {"type": "string"}, "options": {"type": "object"}},
    "allOf": [
        {
            "$comment": "per kind",
            "if": {"required": ["kind"], "properties": {"kind": {"const": "a"}}},
            "then": {
                "required": ["options"],
                "properties": {"options": {"required": ["size"], "properties": {"size": {"type": "integer", "minimum": 1, "default": 2}}}},
            },
        },
        {
            "if": {"properties": {"kind": {"not": {"enum": ["a", "b"]}}}},
            "then": {"properties": {"options": {"properties": {"name": {"enum": ["x", "y"], "description": "which"}}}}},
        },
        {"if": {"properties": {"kind": {"const": "c"}}}, "then": {"minProperties": 2}},
    ],
}


def _page(tmp_path: Path) -> str:
    (tmp_path / "thing.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    schemas = load(tmp_path)
    return docs.render(build(schemas), schemas)["thing.md"].decode("utf-8")


def test_each_variant_is_one_table(tmp_path: Path) -> None:
    page = _page(tmp_path)
    first = page.split('### When `kind` is `"a"`\n\n', 1)[1].split("\n\n###", 1)[0]
    assert first.splitlines() == [
        "Source: `thing.json#/allOf/0/if` · requires `options` — $comment: per kind",
        "",
        "| Property | Type | Required | Default | Constraints | Description |",
        "| --- | --- | --- | --- | --- | --- |",
        "| `options.size` | `integer` | yes | `2` | minimum: `1` |  |",
    ]
    second = page.split('### When `kind` is none of `"a"`, `"b"`\n\n', 1)[1].split("\n\n###", 1)[0]
    assert second.splitlines()[-1] == '| `options.name` | `"x"` \\| `"y"` | no |  |  | which |'


def test_a_conditional_that_is_no_parameter_set_stays_a_rule(tmp_path: Path) -> None:
    page = _page(tmp_path)
    rules = page.split("### Rules not enforced by the generated types\n\n", 1)[1].strip().splitlines()
    assert [line.split(" — ")[0].split(": ")[0] for line in rules] == ["- `if` at `thing.json#/allOf/2/if`"]
