"""Issue 42: the defects of the breaking-change classifier, each shown with a document (reconstructed excerpts of
the cases the issue names: AsyncAPI's title version, Biome's rename into $defs, EvalPort's conditional, CycloneDX
1.4->1.5's ``version: 0``, a draft-04 pair, a 2019-09 $recursiveRef tree)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from codegen import policy
from codegen.__main__ import main as codegen_main
from codegen.diff import diff
from evalschema.cli import diffcmd

D = "https://json-schema.org/draft/2020-12/schema"
G = {
    "type": "object",
    "required": ["id", "type"],
    "properties": {"id": {"type": "string"}, "type": {"enum": ["exact", "custom"]}, "params": {"type": "object"}},
}
CASES: list[tuple[str, dict[str, Any], dict[str, Any], bool, Any]] = [
    # (name, old, new, breaking?, the witness expected for the breaking finding)
    (
        "asyncapi-title",
        {"$schema": D, "title": "A 2.5.0", "type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False},
        {"$schema": D, "title": "A 2.6.0", "type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False},
        True,
        {"a": "a"},
    ),
    (
        "biome-rename-into-defs",
        {"$schema": D, "type": "object", "properties": {"a": {"$ref": "#/$defs/Old"}}, "$defs": {"Old": {"enum": ["x", "y"]}}},
        {"$schema": D, "type": "object", "properties": {"a": {"$ref": "#/$defs/New"}}, "$defs": {"New": {"enum": ["x", "y", "z"]}}},
        False,
        None,
    ),
    (
        # a real tightening of a URI: python-jsonschema checks `uri` only with rfc3986-validator installed
        # (a codegen dependency); without it the witness is not confirmed and the break stays a warning
        "uri-reference-to-uri",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri-reference"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri"}}},
        True,
        {"a": "a"},
    ),
    (
        # an IRI that is no URI (python-jsonschema checks `iri` with rfc3987-syntax, a codegen dependency; without
        # it the format passes anything and the narrowing stays a warning)
        "iri-to-uri",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri"}}},
        True,
        {"a": "https://example.org/\u00e9"},
    ),
    (
        "iri-reference-to-uri-reference",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri-reference"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri-reference"}}},
        True,
        {"a": "\u00e9"},
    ),
    (
        # a relative reference is an IRI reference and no IRI
        "iri-reference-to-iri",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri-reference"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri"}}},
        True,
        {"a": "a"},
    ),
    (
        # every URI is an IRI, every IRI an IRI reference (RFC 3987 §2.2, JSON Schema Validation §7.3.5)
        "uri-to-iri",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri"}}},
        False,
        None,
    ),
    (
        "uri-reference-to-iri-reference",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri-reference"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri-reference"}}},
        False,
        None,
    ),
    (
        "iri-to-iri-reference",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "iri-reference"}}},
        False,
        None,
    ),
    (
        # no common word matches these expressions: the witness comes from a string drawn from the old one (rstr)
        "pattern-tightened",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2,}$"}}},
        True,
        {"a": "SZY-4"},
    ),
    (
        "enum-to-minLength",
        {"$schema": D, "type": "object", "properties": {"a": {"enum": ["x", "y"]}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "minLength": 1}}},
        False,
        None,
    ),
    (
        "all-types-to-none",
        {"$schema": D, "type": "object", "properties": {"a": {"type": ["null", "boolean", "object", "array", "number", "string"]}}},
        {"$schema": D, "type": "object", "properties": {"a": {}}},
        False,
        None,
    ),
    (
        "uri-to-uri-reference",
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri"}}},
        {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "format": "uri-reference"}}},
        False,
        None,
    ),
    (
        "unused-definitions-removed",
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "definitions": {"X": {"type": "string"}}},
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
        False,
        None,
    ),
    (
        "unused-defs-removed",
        {"$schema": D, "type": "object", "$defs": {"X": {"type": "string"}}},
        {"$schema": D, "type": "object"},
        False,
        None,
    ),
    (
        "evalport-conditional-required",
        {"$schema": D, **G},
        {"$schema": D, **G, "allOf": [{"if": {"properties": {"type": {"const": "custom"}}}, "then": {"required": ["params"]}}]},
        True,
        {"id": "a", "type": "custom"},
    ),
    (
        "cyclonedx-version-0",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "required": ["bomFormat", "specVersion"],
            "properties": {
                "bomFormat": {"enum": ["CycloneDX"]},
                "specVersion": {"type": "string"},
                "version": {"type": "integer", "minimum": 0},
            },
        },
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "required": ["bomFormat", "specVersion"],
            "properties": {
                "bomFormat": {"enum": ["CycloneDX"]},
                "specVersion": {"type": "string"},
                "version": {"type": "integer", "minimum": 1},
            },
        },
        True,
        {"bomFormat": "CycloneDX", "specVersion": "a", "version": 0},
    ),
    (
        "draft-04-exclusive-maximum",
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "id": "https://example.org/a.json",
            "type": "object",
            "properties": {"n": {"type": "number", "maximum": 10}},
        },
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "id": "https://example.org/a.json",
            "type": "object",
            "properties": {"n": {"type": "number", "maximum": 10, "exclusiveMaximum": True}},
        },
        True,
        {"n": 10},
    ),
    (
        "recursive-ref-2019-09",
        {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$recursiveAnchor": True,
            "type": "object",
            "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$recursiveRef": "#"}}},
        },
        {
            "$schema": "https://json-schema.org/draft/2019-09/schema",
            "$recursiveAnchor": True,
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$recursiveRef": "#", "required": ["name"]}},
            },
        },
        True,
        {"children": [{}]},
    ),
]


def _pair(tmp_path: Path, old: dict[str, Any], new: dict[str, Any]) -> tuple[Path, Path]:
    for side, doc in (("old", old), ("new", new)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "doc.json").write_text(json.dumps(doc), encoding="utf-8")
    return tmp_path / "old", tmp_path / "new"


# every finding of each case (rule, level): what the fix for each defect changed is visible here, so that
# undoing any fix fails this test even where the verdict alone would survive it
FINDINGS = {
    # the root is compared although its title (its type's name) changed
    "asyncapi-title": [("TYPE_NARROWED", "breaking"), ("TYPE_WIDENED", "info")],
    # the renamed type accepts more: the reference widened, the old definition's removal is no break
    "biome-rename-into-defs": [("TYPE_WIDENED", "info"), ("TYPE_DEFINITION_REMOVED", "info"), ("TYPE_DEFINITION_ADDED", "info")],
    # minLength 1 admits every old value: no tightening
    "enum-to-minLength": [("TYPE_WIDENED", "info")],
    # null is valid in both: no NULLABLE_REMOVED
    "all-types-to-none": [("TYPE_WIDENED", "info")],
    "uri-to-uri-reference": [("CONSTRAINT_LOOSENED", "info")],
    "uri-reference-to-uri": [("CONSTRAINT_TIGHTENED", "breaking")],
    "iri-to-uri": [("CONSTRAINT_TIGHTENED", "breaking")],
    "iri-reference-to-uri-reference": [("CONSTRAINT_TIGHTENED", "breaking")],
    "iri-reference-to-iri": [("CONSTRAINT_TIGHTENED", "breaking")],
    "uri-to-iri": [("CONSTRAINT_LOOSENED", "info")],
    "uri-reference-to-iri-reference": [("CONSTRAINT_LOOSENED", "info")],
    "iri-to-iri-reference": [("CONSTRAINT_LOOSENED", "info")],
    "pattern-tightened": [("CONSTRAINT_TIGHTENED", "breaking")],
    "unused-defs-removed": [("TYPE_DEFINITION_REMOVED", "info")],
    "unused-definitions-removed": [],
    "evalport-conditional-required": [("RULE_ADDED", "breaking")],
    "cyclonedx-version-0": [("CONSTRAINT_TIGHTENED", "breaking")],
    # read as draft-07 (maximum 10 + exclusiveMaximum true -> exclusiveMaximum 10)
    "draft-04-exclusive-maximum": [("CONSTRAINT_LOOSENED", "info"), ("CONSTRAINT_TIGHTENED", "breaking")],
    # invisible to the field-level comparison: found by the walk through $recursiveRef
    "recursive-ref-2019-09": [("DOCUMENT_REJECTED", "breaking")],
}


def test_every_case_has_its_findings() -> None:
    assert sorted(FINDINGS) == sorted(c[0] for c in CASES)


@pytest.mark.parametrize(("name", "old", "new", "breaking", "witness"), CASES, ids=[c[0] for c in CASES])
def test_issue_42_defects(tmp_path: Path, name: str, old: dict[str, Any], new: dict[str, Any], breaking: bool, witness: Any) -> None:
    report = diff(*_pair(tmp_path, old, new), dt.date(2026, 12, 1))
    assert [(f.rule, f.level) for f in report.findings] == FINDINGS[name], report.to_text()
    assert bool(report.breaking) is breaking
    assert all(f.witness is not None for f in report.breaking)
    if witness is not None:
        assert [f.witness.document for f in report.breaking if f.witness] == [witness]


def test_version_pin_is_its_own_rule_and_can_be_expected(tmp_path: Path) -> None:
    old = {"$schema": D, "type": "object", "properties": {"asyncapi": {"const": "2.5.0"}}}
    new = {"$schema": D, "type": "object", "properties": {"asyncapi": {"const": "2.6.0"}}}
    folders = _pair(tmp_path, old, new)
    assert [(f.rule, f.level) for f in diff(*folders, dt.date(2026, 12, 1)).findings] == [("VERSION_PIN_CHANGED", "breaking")]
    expected = diff(*folders, dt.date(2026, 12, 1), expect_version_pins=True)
    assert [(f.rule, f.level) for f in expected.findings] == [("VERSION_PIN_CHANGED", "info")] and expected.breaking == ()


def _evalschema_diff(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalschema")
    diffcmd.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["diff", *argv])
    return int(args.handler(args))


def test_cli_shows_the_witness_and_expects_version_pins_on_request(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = {"$schema": D, "type": "object", "properties": {"asyncapi": {"const": "2.5.0"}, "n": {"type": "integer", "maximum": 9}}}
    new = {"$schema": D, "type": "object", "properties": {"asyncapi": {"const": "2.6.0"}, "n": {"type": "integer", "maximum": 5}}}
    a, b = _pair(tmp_path, old, new)
    assert codegen_main(["diff", str(a), str(b), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    witnesses = {f["rule"]: f["witness"] for f in data["findings"]}
    assert witnesses == {
        "VERSION_PIN_CHANGED": {"file": "doc.json", "document": {"asyncapi": "2.5.0"}},
        "CONSTRAINT_TIGHTENED": {"file": "doc.json", "document": {"n": 9}},
    }
    assert codegen_main(["diff", str(a), str(b)]) == 1
    assert 'witness (valid before, invalid now, doc.json): {"n": 9}' in capsys.readouterr().out
    # the version pin expected: the tightened maximum alone is breaking
    only_max = {"$schema": D, "type": "object", "properties": {"asyncapi": {"const": "2.6.0"}, "n": {"type": "integer", "maximum": 9}}}
    (b / "doc.json").write_text(json.dumps(only_max), encoding="utf-8")
    assert codegen_main(["diff", str(a), str(b)]) == 1
    assert codegen_main(["diff", str(a), str(b), "--expect-version-pins"]) == 0
    capsys.readouterr()
    assert _evalschema_diff([str(a), str(b)]) == 1
    assert _evalschema_diff([str(a), str(b), "--expect-version-pins"]) == 0


def _versioned(folder: Path, version: str, properties: dict[str, Any]) -> Path:
    folder.mkdir(parents=True)
    schema = {"$schema": D, "$id": f"https://example.org/schema/{version}/doc.json", "type": "object", "properties": properties}
    (folder / "doc.json").write_text(json.dumps(schema), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("new_a", "required"),
    [
        ({"type": "string", "minLength": 1}, "1.1.0"),  # every old value still valid: a minor, as diff says
        ({"enum": ["x"]}, "2.0.0"),  # {"a": "y"} valid before, invalid now
    ],
)
def test_policy_requires_the_version_diff_proves(tmp_path: Path, new_a: dict[str, Any], required: str) -> None:
    old = _versioned(tmp_path / "old", "1.0.0", {"a": {"enum": ["x", "y"]}})
    for version in ("1.1.0", "2.0.0"):
        new = _versioned(tmp_path / version, version, {"a": new_a})
        problems, report = policy.check_step(old, "1.0.0", new, dt.date(2026, 12, 1), version)
        assert report is not None and report.to_dict() == diff(old, new, dt.date(2026, 12, 1)).to_dict()
        assert [p.code for p in problems] == ([] if version == required else ["VERSION_MISMATCH"])


def test_x_compatibility_says_when_a_witness_contradicts_it(tmp_path: Path) -> None:
    accepted = {"bump": "patch", "reason": "no producer writes more than 5 characters"}
    old = {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "maxLength": 9}}}
    new = {"$schema": D, "type": "object", "properties": {"a": {"type": "string", "maxLength": 5, "x-compatibility": accepted}}}
    (finding,) = diff(*_pair(tmp_path, old, new), dt.date(2026, 12, 1)).findings
    assert (finding.rule, finding.level, finding.bump) == ("CONSTRAINT_TIGHTENED", "info", "patch")
    assert finding.witness is not None and finding.witness.document == {"a": "aaaaaaaaa"}
    assert finding.message.endswith('contradicted by a witness: {"a": "aaaaaaaaa"} is valid before and invalid now)')
