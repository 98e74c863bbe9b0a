"""codegen's generic rules (x-unique / x-references): where the walk places them, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegen.annotated import check_bindings, collect, pattern_text, table
from codegen.load import SchemaError, load

UNIQUE = {"rule": "DUP", "items": "items/*", "key": [{"member": "id", "type": "string", "param": "name"}]}


def _folder(tmp_path: Path, files: dict[str, Any]) -> Path:
    for name, schema in files.items():
        (tmp_path / name).write_text(json.dumps(schema), encoding="utf-8")
    return tmp_path


def _doc(annotated_def: dict[str, Any]) -> dict[str, Any]:
    """A document whose map ``groups`` and array ``list`` both reach ``$defs/Group`` (which recurses)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "groups": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Group"}},
            "list": {"type": "array", "items": {"$ref": "#/$defs/Group"}},
        },
        "$defs": {
            "Group": {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}}}},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Group"}},
                },
                **annotated_def,
            }
        },
    }


def test_an_annotation_is_placed_wherever_its_subschema_is_reached(tmp_path: Path) -> None:
    found = collect(load(_folder(tmp_path, {"doc.json": _doc({"x-unique": [UNIQUE]})})))
    assert [(a.file, pattern_text(a.scope), pattern_text(a.items)) for a in found] == [
        ("doc.json", "/groups/~*", "/items/*"),
        ("doc.json", "/list/*", "/items/*"),
    ]  # the recursion through children stops at the subschema already on the path
    assert table(found)["doc.json"][0] == {
        "keyword": "x-unique",
        "rule": "DUP",
        "variant": "default",
        "scope": ["groups", "~*"],
        "items": ["items", "*"],
        "key": [{"member": "id", "type": "string", "param": "name"}],
    }


def test_a_path_the_schema_does_not_reach_fails_generation(tmp_path: Path) -> None:
    ref = {"rule": "DANGLING", "source": "items/*/id", "target": "nowhere/*/id", "param": "name"}
    with pytest.raises(SchemaError, match="names no location"):
        collect(load(_folder(tmp_path, {"doc.json": _doc({"x-references": [ref]})})))


def test_an_unknown_rule_id_or_variant_fails_generation(tmp_path: Path) -> None:
    found = collect(load(_folder(tmp_path, {"doc.json": _doc({"x-unique": [UNIQUE, {**UNIQUE, "variant": "other"}]})})))
    with pytest.raises(SchemaError, match="unknown rule id 'DUP'"):
        check_bindings(found, {"OTHER": ()})
    with pytest.raises(SchemaError, match="no variant 'other'"):
        check_bindings(found, {"DUP": ("default",)})
    assert len(check_bindings(found, {"DUP": ("default", "other")})) == 4


def test_the_meta_schema_checks_the_keywords(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match="annotation meta-schema"):
        load(_folder(tmp_path, {"doc.json": _doc({"x-unique": [{**UNIQUE, "key": [{"member": "id", "type": "number", "param": "n"}]}]})}))


def test_a_regex_constant_gets_pythons_named_group_syntax() -> None:
    from codegen.targets.catalogs import python_regex

    assert python_regex(r"^(?<a>x)(?<=y)(?<!z)\(?<b>(?:c)$") == r"^(?P<a>x)(?<=y)(?<!z)\(?<b>(?:c)$"
