"""The msgspec target: deterministic, importable, and never accepting what a schema rejects for the keywords its
types claim (every other keyword is listed in ``RESIDUAL``).

- the official JSON-Schema-Test-Suite (``msgspec_suite``): no false accept in a group whose types list nothing as
  residual, and the figures by keyword are exactly those recorded here (a change either way is seen);
- the corpus sets (``tests/codegen/corpus``): generated twice, the same bytes; the package imports and every
  instance (each valid) decodes with the root type of its set;
- small schemas: what each mapping claims is checked while decoding, and what it cannot say is listed.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec_suite import Outcome, run_all
from test_corpus import CORPUS, SETS, instances, root_file

from codegen.ir import build
from codegen.load import load
from codegen.targets import msgspec as target

# (agree, false accept, left unchecked, false reject, no model) by keyword, as measured when the target was written
FIGURES: dict[str, tuple[int, int, int, int, int]] = {
    "type": (79, 0, 0, 1, 0),
    "properties": (17, 0, 7, 4, 0),
    "required": (8, 0, 5, 3, 0),
    "additionalProperties": (15, 0, 6, 0, 0),
    "enum": (30, 0, 13, 2, 0),
    "const": (28, 0, 19, 3, 0),
    "items": (19, 0, 10, 0, 0),
    "prefixItems": (9, 0, 2, 0, 0),
    "minimum": (8, 0, 3, 0, 0),
    "maximum": (6, 0, 2, 0, 0),
    "exclusiveMinimum": (2, 0, 2, 0, 0),
    "exclusiveMaximum": (2, 0, 2, 0, 0),
    "minLength": (4, 0, 3, 0, 0),
    "maxLength": (5, 0, 2, 0, 0),
    "pattern": (8, 0, 1, 0, 0),
    "allOf": (17, 0, 13, 0, 0),
    "anyOf": (13, 0, 5, 0, 0),
    "oneOf": (13, 0, 14, 0, 0),
    # a $ref to the meta-schema resolves to the copy codegen ships (codegen.load): those 4 tests have types now
    "ref": (58, 0, 16, 3, 0),
    "defs": (1, 0, 1, 0, 0),
    "default": (7, 0, 0, 0, 0),
    "minItems": (4, 0, 2, 0, 0),
    "maxItems": (4, 0, 2, 0, 0),
    "multipleOf": (7, 0, 3, 0, 0),
    "uniqueItems": (50, 0, 19, 0, 0),
    "patternProperties": (13, 0, 10, 0, 0),
    "boolean_schema": (9, 0, 9, 0, 0),
}


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    return run_all()


def test_no_false_accept_where_the_types_claim_every_keyword(outcomes: dict[str, Outcome]) -> None:
    assert [(c.keyword, c.group, c.test) for o in outcomes.values() for c in o.false_accept] == []


def test_the_figures_by_keyword(outcomes: dict[str, Outcome]) -> None:
    assert {k: tuple(o.counts().values()) for k, o in outcomes.items()} == FIGURES


def _package(folder: Path, work: Path, name: str) -> Any:
    schemas = load(folder)
    files = target.render(build(schemas), schemas)
    again = load(folder)
    assert target.render(build(again), again) == files  # deterministic
    (work / name).mkdir()
    for file, content in files.items():
        (work / name / file).write_bytes(content)
    return importlib.import_module(name)


@pytest.fixture
def work(tmp_path: Path) -> Any:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_corpus_sets(name: str, work: Path) -> None:
    module = _package(CORPUS / name / "schemas", work, f"msgspec_corpus_{name}")
    decoder = msgspec.json.Decoder(module.ROOTS[root_file(name)])
    rejected = []
    for file, instance in instances(name):
        try:
            decoder.decode(json.dumps(instance).encode())
        except msgspec.ValidationError as exc:
            rejected.append((file, str(exc)))
    assert rejected == []


def _one(work: Path, schema: dict[str, Any], name: str) -> Any:
    folder = work / f"{name}_schemas"
    folder.mkdir()
    (folder / "schema.json").write_text(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}), encoding="utf-8")
    return _package(folder, work, name)


def _accepts(module: Any, value: Any) -> bool:
    try:
        msgspec.json.decode(json.dumps(value).encode(), type=module.ROOTS["schema.json"])
    except msgspec.ValidationError:
        return False
    return True


CLOSED = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "kind"],
    "properties": {
        "id": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
        "kind": {"enum": ["a", "b"]},
        "count": {"type": "integer", "minimum": 0, "maximum": 9},
        "note": {"type": ["string", "null"]},
        "when": {"type": "string", "format": "date-time"},
    },
}


@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ({"id": "x", "kind": "a"}, True),
        ({"id": "x", "kind": "a", "count": 9, "note": None, "when": "anything"}, True),  # format: residual
        ({"id": "x", "kind": "a", "other": 1}, False),  # closed
        ({"id": "", "kind": "a"}, False),  # minLength
        ({"id": "X", "kind": "a"}, False),  # pattern
        ({"id": "x\n", "kind": "a"}, False),  # pattern's "$": Python's would match before a final newline
        ({"id": "x", "kind": "c"}, False),  # enum
        ({"id": "x", "kind": "a", "count": 10}, False),  # maximum
        ({"id": "x", "kind": "a", "count": True}, False),  # a boolean is no integer
        ({"kind": "a"}, False),  # required
        ({"id": "x", "kind": "a", "note": 1}, False),  # type
    ],
)
def test_what_a_closed_object_claims(work: Path, value: Any, accepted: bool) -> None:
    module = _one(work, CLOSED, "msgspec_closed")
    assert _accepts(module, value) is accepted
    assert [row[:4] for row in module.RESIDUAL] == [("Schema", "when", "format", "schema.json#/properties/when/format")]


def test_a_tagged_union(work: Path) -> None:
    branch = {"type": "object", "required": ["kind"], "additionalProperties": False}
    schema = {
        "$defs": {
            "Cat": {**branch, "properties": {"kind": {"const": "cat"}, "purrs": {"type": "boolean"}}},
            "Dog": {**branch, "properties": {"kind": {"const": "dog"}, "barks": {"type": "boolean"}}},
        },
        "type": "object",
        "required": ["pet"],
        "properties": {"pet": {"oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]}},
    }
    module = _one(work, schema, "msgspec_tagged")
    assert module.RESIDUAL == ()
    assert _accepts(module, {"pet": {"kind": "cat", "purrs": True}})
    assert not _accepts(module, {"pet": {"kind": "cat", "barks": True}})
    assert not _accepts(module, {"pet": {"kind": "cow"}})
    assert not _accepts(module, {"pet": {"purrs": True}})


def test_what_no_type_says_is_listed(work: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "either": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
            "digits": {"type": "string", "pattern": "^\\d+$"},
        },
        "additionalProperties": False,  # closed: a Struct (an open object with a rule is a dict, its keys kept)
        "if": {"required": ["tags"]},
        "then": {"required": ["either"]},
    }
    module = _one(work, schema, "msgspec_residual")
    assert sorted((row[2], row[3]) for row in module.RESIDUAL) == [
        ("if", "schema.json#/if"),
        ("oneOf", "schema.json#/properties/either/oneOf"),
        ("pattern", "schema.json#/properties/digits/pattern"),
        ("uniqueItems", "schema.json#/properties/tags/uniqueItems"),
    ]
    assert _accepts(module, {"tags": ["a", "a"], "either": 1.0, "digits": "x"})  # all left to the caller


def test_an_open_object_with_a_rule_keeps_its_keys(work: Path) -> None:
    schema = {"type": "object", "properties": {"id": {"type": "string"}}, "propertyNames": {"maxLength": 3}}
    module = _one(work, schema, "msgspec_open_rule")
    assert module.ROOTS["schema.json"] == dict[str, Any]
    assert sorted((row[2], row[3]) for row in module.RESIDUAL) == [
        ("properties", "schema.json#/properties"),
        ("propertyNames", "schema.json#/propertyNames"),
    ]
