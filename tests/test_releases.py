"""Releases (immutable, manifests), the classified diff (every rule ID, both directions), the version policy,
the deprecation lifecycle rehearsal, the changelog drift check and the single source of versions."""

from __future__ import annotations

import argparse
import contextlib
import copy
import datetime as dt
import hashlib
import importlib.metadata
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from referencing import Registry

from codegen import changelog, policy
from codegen.__main__ import main as codegen_main
from codegen.diff import RULE_IDS, DiffReport, Finding, diff, diff_sets
from codegen.load import SchemaError, load
from evalschema import __version__, validate
from evalschema.cli import diffcmd
from evalschema.schemas import registry, releases

REPO = Path(__file__).resolve().parent.parent
RELEASES = REPO / "spec" / "releases"
SCHEMAS = REPO / "schemas"
DIALECT = "https://json-schema.org/draft/2020-12/schema"

# The sha256 of every published manifest. A manifest lists its files' hashes, so this pins every byte of every
# release: changing a released file needs a new manifest, which fails here. Add a line only for a NEW release.
PUBLISHED = {
    "1.0.0": "7613e35edaa5b15e9ffe149b874bd8b0011a1098ed76fc32a9581d5a3478c627",
    "1.1.0": "1b4d232c3f4a1bfe8be599668f09e7f60da0c00664582eaf93fbf85c538b8e6f",
    "1.2.0": "f518b88bc0ab1c63b8f07181352c88315a78ae90441a15b050f788ff10e4f689",
    "1.3.0": "dd0d9f5f67bb06b513fce9d801aad22128975a664713b631c34bcef0f236cbcd",
    "1.4.0": "0ff35b5e495adadbec317cc713979fe2ea10e149f63a300fa4be6b45a66e7e22",
}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------------------ releases


def test_published_releases_are_pinned() -> None:
    found = {r.version: sha(r.path / "manifest.json") for r in policy.releases(RELEASES)}
    assert found == PUBLISHED, "a published release changed, or a new one is not pinned here (add it, never edit one)"


@pytest.mark.parametrize("version", sorted(PUBLISHED))
def test_manifest_lists_exactly_the_files_with_their_hashes(version: str) -> None:
    folder = RELEASES / version
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest) == ["version", "date", "files"]
    assert manifest["version"] == version
    dt.date.fromisoformat(manifest["date"])
    present = sorted(p.name for p in folder.iterdir() if p.name != "manifest.json")
    assert sorted(manifest["files"]) == present
    for name, digest in manifest["files"].items():
        assert sha(folder / name) == digest, f"{version}/{name} changed after release"
    for name in present:
        assert json.loads((folder / name).read_text(encoding="utf-8"))["$id"] == f"https://evalschema.org/schema/{version}/{name}"
    assert policy.verify_release(policy.Release(version, manifest["date"], folder)) == []


def test_release_dates() -> None:
    assert [(r.version, r.date) for r in policy.releases(RELEASES)] == [
        ("1.0.0", "2026-10-15"),
        ("1.1.0", "2026-11-30"),
        ("1.2.0", "2026-11-30"),
        ("1.3.0", "2026-12-07"),
        ("1.4.0", "2026-12-07"),
    ]


def test_1_0_0_has_fail_on_violation_live_and_no_constraint_violations() -> None:
    pack = json.loads((RELEASES / "1.0.0" / "pack.json").read_text(encoding="utf-8"))
    field = pack["$defs"]["Validator"]["properties"]["fail_on_violation"]
    assert field == {
        "type": "boolean",
        "default": False,
        "description": "If true, validation failures cause an error; if false, violations are logged but allowed.",
    }
    text = (RELEASES / "1.0.0" / "resultset.json").read_text(encoding="utf-8")
    assert "constraint_violations" not in text and "ConstraintViolation" not in text and "CONSTRAINT_INVALIDATES_PASS" not in text
    assert "/1.1.0/" not in "".join(p.read_text(encoding="utf-8") for p in (RELEASES / "1.0.0").glob("*.json"))


def test_working_schemas_equal_the_latest_release_while_they_carry_its_version() -> None:
    latest = policy.releases(RELEASES)[-1]
    version, problems = policy.folder_version(load(SCHEMAS))
    assert problems == []
    if version == latest.version:
        assert sorted(p.name for p in SCHEMAS.glob("*.json")) == sorted(json.loads((latest.path / "manifest.json").read_text())["files"])
        for path in SCHEMAS.glob("*.json"):
            # the same bytes, or the same once codegen's rule annotations (x-unique, x-references) are taken out
            assert policy.same_release_text(latest.path / path.name, path), f"{path.name} differs from release {version}: bump the version"


@pytest.mark.parametrize("damage", ["edit", "extra", "missing", "manifest-extra"])
def test_verify_release_catches_any_change(tmp_path: Path, damage: str) -> None:
    folder = tmp_path / "1.1.0"
    shutil.copytree(RELEASES / "1.1.0", folder)
    if damage == "edit":
        data = (folder / "pack.json").read_bytes()
        (folder / "pack.json").write_bytes(data[:-1] + b" " + data[-1:])
        expected = "RELEASE_MODIFIED"
    elif damage == "extra":
        (folder / "notes.txt").write_text("x")
        expected = "RELEASE_FILE_UNLISTED"
    elif damage == "missing":
        (folder / "suite.json").unlink()
        expected = "RELEASE_FILE_MISSING"
    else:
        manifest = json.loads((folder / "manifest.json").read_text())
        manifest["files"]["other.json"] = "0" * 64
        (folder / "manifest.json").write_text(json.dumps(manifest))
        expected = "RELEASE_FILE_MISSING"
    assert [p.code for p in policy.verify_release(policy.Release("1.1.0", "2026-11-30", folder))] == [expected]


def test_release_command_refuses_to_overwrite(tmp_path: Path) -> None:
    rel = tmp_path / "releases"
    shutil.copytree(RELEASES, rel)
    version = json.loads((SCHEMAS / "common.json").read_text())["$id"].split("/")[-2]
    if not (rel / version).is_dir():  # the working version is not released yet: release it once
        assert _codegen("release", "--schemas", str(SCHEMAS), "--releases", str(rel), "--date", "2026-12-01").returncode == 0
    before = {p: p.read_bytes() for p in rel.rglob("*") if p.is_file()}
    run = _codegen("release", "--schemas", str(SCHEMAS), "--releases", str(rel), "--date", "2026-12-01")
    assert run.returncode == 2 and "never changes" in run.stderr
    assert {p: p.read_bytes() for p in rel.rglob("*") if p.is_file()} == before


def test_release_command_cuts_a_new_release(tmp_path: Path) -> None:
    rel = tmp_path / "releases"
    shutil.copytree(RELEASES, rel)
    work = _working(tmp_path / "work", "1.5.0", add_optional=True)
    run = _codegen("release", "--schemas", str(work), "--releases", str(rel), "--date", "2027-01-15")
    assert run.returncode == 0, run.stdout + run.stderr
    new = policy.releases(rel)[-1]
    assert (new.version, new.date) == ("1.5.0", "2027-01-15")
    assert policy.verify_release(new) == []
    # a working set that the policy refuses is not released
    bad = _working(tmp_path / "bad", "1.4.1", remove_deprecated=True)
    run = _codegen("release", "--schemas", str(bad), "--releases", str(rel), "--date", "2027-02-01")
    assert run.returncode == 1 and not (rel / "1.4.1").exists()


# ------------------------------------------------------------------------------------------ diff rules


def _write(folder: Path, schemas: dict[str, dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, schema in schemas.items():
        (folder / name).write_text(json.dumps({"$schema": DIALECT, "$id": f"https://example.org/s/{name}", **schema}, indent=2))
    return folder


def _run(tmp_path: Path, old: dict[str, Any], new: dict[str, Any], today: str = "2026-11-30") -> DiffReport:
    """Diff one-file folders ``doc.json`` holding ``old`` and ``new``."""
    a = _write(tmp_path / "old", {"doc.json": old})
    b = _write(tmp_path / "new", {"doc.json": new})
    return diff_sets(load(a), load(b), dt.date.fromisoformat(today))


def obj(props: dict[str, Any], required: tuple[str, ...] = (), closed: bool = True, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props, "required": list(required)}
    if closed:
        out["additionalProperties"] = False
    out.update(extra)
    return out


RULE = {"x-rule": "B_NEEDS_A", "if": {"required": ["b"]}, "then": {"required": ["a"]}}
DEP = {"since": "1.1.0", "removal": "2.0.0", "date": "2026-11-30", "replacement": "a"}
S = {"type": "string"}

# (name, old, new, rule old->new, rule new->old or None when the reverse is the same rule / not meaningful)
CASES: list[tuple[str, dict[str, Any], dict[str, Any], str, str | None]] = [
    ("optional", obj({"a": S}), obj({"a": S, "b": S}), "PROPERTY_ADDED_OPTIONAL", "PROPERTY_REMOVED"),
    ("required", obj({"a": S}), obj({"a": S, "b": S}, ("b",)), "PROPERTY_ADDED_REQUIRED", "PROPERTY_REMOVED"),
    ("became-required", obj({"a": S}), obj({"a": S}, ("a",)), "BECAME_REQUIRED", "BECAME_OPTIONAL"),
    ("number-integer", obj({"a": {"type": "number"}}), obj({"a": {"type": "integer"}}), "TYPE_NARROWED", "TYPE_WIDENED"),
    ("union", obj({"a": {"type": ["string", "integer"]}}), obj({"a": S}), "TYPE_NARROWED", "TYPE_WIDENED"),
    ("enum-to-string", obj({"a": {"enum": ["x", "y"]}}), obj({"a": S}), "TYPE_WIDENED", "TYPE_NARROWED"),
    (
        "array-items",
        obj({"a": {"type": "array", "items": {"type": "number"}}}),
        obj({"a": {"type": "array", "items": {"type": "integer"}}}),
        "TYPE_NARROWED",
        "TYPE_WIDENED",
    ),
    ("nullable", obj({"a": {"type": ["string", "null"]}}), obj({"a": S}), "NULLABLE_REMOVED", "NULLABLE_ADDED"),
    ("enum", obj({"a": {"enum": ["x", "y", "z"]}}), obj({"a": {"enum": ["x", "y"]}}), "ENUM_VALUE_REMOVED", "ENUM_VALUE_ADDED"),
    (
        "named-enum",
        {"$defs": {"E": {"enum": ["x", "y"]}}, **obj({"e": {"$ref": "#/$defs/E"}})},
        {"$defs": {"E": {"enum": ["x"]}}, **obj({"e": {"$ref": "#/$defs/E"}})},
        "ENUM_VALUE_REMOVED",
        "ENUM_VALUE_ADDED",
    ),
    ("const", obj({"a": {"const": "x"}}), obj({"a": {"const": "y"}}), "CONST_CHANGED", "CONST_CHANGED"),
    (
        "minimum",
        obj({"a": {"type": "integer", "minimum": 0}}),
        obj({"a": {"type": "integer", "minimum": 1}}),
        "CONSTRAINT_TIGHTENED",
        "CONSTRAINT_LOOSENED",
    ),
    (
        "maximum",
        obj({"a": {"type": "integer", "maximum": 10}}),
        obj({"a": {"type": "integer", "maximum": 5}}),
        "CONSTRAINT_TIGHTENED",
        "CONSTRAINT_LOOSENED",
    ),
    ("minLength-added", obj({"a": S}), obj({"a": {"type": "string", "minLength": 1}}), "CONSTRAINT_TIGHTENED", "CONSTRAINT_LOOSENED"),
    (
        "minItems",
        obj({"a": {"type": "array", "minItems": 1}}),
        obj({"a": {"type": "array", "minItems": 2}}),
        "CONSTRAINT_TIGHTENED",
        "CONSTRAINT_LOOSENED",
    ),
    ("pattern-added", obj({"a": S}), obj({"a": {"type": "string", "pattern": "^x"}}), "CONSTRAINT_TIGHTENED", "CONSTRAINT_LOOSENED"),
    (
        "pattern-changed",
        obj({"a": {"type": "string", "pattern": "^x"}}),
        obj({"a": {"type": "string", "pattern": "^y"}}),
        "CONSTRAINT_TIGHTENED",
        "CONSTRAINT_TIGHTENED",
    ),
    ("format-added", obj({"a": S}), obj({"a": {"type": "string", "format": "date"}}), "CONSTRAINT_TIGHTENED", "CONSTRAINT_LOOSENED"),
    (
        "alias-constraint",
        {"$defs": {"Id": {"type": "string"}}, **obj({"id": {"$ref": "#/$defs/Id"}})},
        {"$defs": {"Id": {"type": "string", "maxLength": 9}}, **obj({"id": {"$ref": "#/$defs/Id"}})},
        "CONSTRAINT_TIGHTENED",
        "CONSTRAINT_LOOSENED",
    ),
    ("closed", obj({"a": S}, closed=False), obj({"a": S}), "OPEN_OBJECT_CLOSED", "CLOSED_OBJECT_OPENED"),
    ("typedef", {"$defs": {"A": S}}, {"$defs": {"A": S, "B": S}}, "TYPE_DEFINITION_ADDED", "TYPE_DEFINITION_REMOVED"),
    (
        "typedef-used",
        {"$defs": {"A": S, "B": S}, **obj({"b": {"$ref": "#/$defs/B"}})},
        {"$defs": {"A": S}, **obj({"b": {"$ref": "#/$defs/A"}})},
        "TYPE_DEFINITION_REMOVED",
        None,
    ),
    ("version-pin", obj({"v": {"const": "1.0.0"}}), obj({"v": {"const": "1.1.0"}}), "VERSION_PIN_CHANGED", "VERSION_PIN_CHANGED"),
    ("any-of-to-one-of", {"anyOf": [S, {"minLength": 1}]}, {"oneOf": [S, {"minLength": 1}]}, "DOCUMENT_REJECTED", None),
    ("rule", obj({"a": S, "b": S}), obj({"a": S, "b": S}, allOf=[RULE]), "RULE_ADDED", "RULE_REMOVED"),
    (
        "rule-changed",
        obj({"a": S, "b": S}, allOf=[RULE]),
        obj({"a": S, "b": S}, allOf=[{**RULE, "then": {"required": ["a", "b"]}}]),
        "RULE_CHANGED",
        "RULE_CHANGED",
    ),
    (
        "default",
        obj({"a": {"type": "boolean", "default": False}}),
        obj({"a": {"type": "boolean", "default": True}}),
        "DEFAULT_CHANGED",
        "DEFAULT_CHANGED",
    ),
    (
        "deprecation",
        obj({"a": S}),
        obj({"a": {"type": "string", "deprecated": True, "x-deprecation": DEP}}),
        "DEPRECATION_ADDED",
        "DEPRECATION_REMOVED",
    ),
    (
        "deprecation-changed",
        obj({"a": {"type": "string", "deprecated": True, "x-deprecation": DEP}}),
        obj({"a": {"type": "string", "deprecated": True, "x-deprecation": {**DEP, "removal": "3.0.0"}}}),
        "DEPRECATION_CHANGED",
        "DEPRECATION_CHANGED",
    ),
    (
        "description",
        obj({"a": {"type": "string", "description": "one"}}),
        obj({"a": {"type": "string", "description": "two"}}),
        "DESCRIPTION_CHANGED",
        "DESCRIPTION_CHANGED",
    ),
]


@pytest.mark.parametrize(("name", "old", "new", "forward", "backward"), CASES, ids=[c[0] for c in CASES])
def test_diff_rule_both_directions(
    tmp_path: Path, name: str, old: dict[str, Any], new: dict[str, Any], forward: str, backward: str | None
) -> None:
    assert _run(tmp_path / "f", old, new).rules() == [forward]
    if backward is not None:
        assert _run(tmp_path / "b", new, old).rules() == [backward]
    assert _run(tmp_path / "same", old, copy.deepcopy(old)).findings == ()


def test_every_rule_id_has_a_case() -> None:
    covered = {c[3] for c in CASES} | {c[4] for c in CASES if c[4]}
    assert covered == set(RULE_IDS)


CLASSES = {
    "PROPERTY_ADDED_OPTIONAL": ("info", "consumers", "minor"),
    "PROPERTY_REMOVED": ("breaking", "producers", "major"),
    "PROPERTY_ADDED_REQUIRED": ("breaking", "producers", "major"),
    "BECAME_REQUIRED": ("breaking", "producers", "major"),
    "BECAME_OPTIONAL": ("info", "consumers", "minor"),
    "TYPE_NARROWED": ("breaking", "producers", "major"),
    "TYPE_WIDENED": ("info", "consumers", "minor"),
    "NULLABLE_REMOVED": ("breaking", "producers", "major"),
    "NULLABLE_ADDED": ("info", "consumers", "minor"),
    "ENUM_VALUE_REMOVED": ("breaking", "producers", "major"),
    "ENUM_VALUE_ADDED": ("info", "consumers", "minor"),
    "CONST_CHANGED": ("breaking", "producers", "major"),
    "CONSTRAINT_TIGHTENED": ("breaking", "producers", "major"),
    "CONSTRAINT_LOOSENED": ("info", "consumers", "minor"),
    "OPEN_OBJECT_CLOSED": ("breaking", "producers", "major"),
    "CLOSED_OBJECT_OPENED": ("info", "consumers", "minor"),
    "TYPE_DEFINITION_ADDED": ("info", "none", "minor"),
    # issue 42: a finding without a witness (no document valid before is invalid now) is a warning, bump minor; a
    # removed definition is info: its uses are compared where they are (a rename compares the content there)
    "TYPE_DEFINITION_REMOVED": ("info", "none", "minor"),
    "VERSION_PIN_CHANGED": ("breaking", "producers", "major"),
    "DOCUMENT_REJECTED": ("breaking", "producers", "major"),
    "RULE_ADDED": ("breaking", "producers", "major"),
    "RULE_REMOVED": ("info", "consumers", "minor"),
    "RULE_CHANGED": ("warning", "producers", "minor"),  # "rule-changed" only restates what the rule required: no witness
    "DEFAULT_CHANGED": ("warning", "producers", "minor"),  # an annotation: no document changes validity
    "DEPRECATION_ADDED": ("info", "none", "minor"),
    "DEPRECATION_REMOVED": ("info", "none", "minor"),
    "DEPRECATION_CHANGED": ("info", "none", "patch"),
    "DESCRIPTION_CHANGED": ("info", "none", "patch"),
}


@pytest.mark.parametrize(("name", "old", "new", "forward", "backward"), CASES, ids=[c[0] for c in CASES])
def test_diff_classification(
    tmp_path: Path, name: str, old: dict[str, Any], new: dict[str, Any], forward: str, backward: str | None
) -> None:
    (finding,) = _run(tmp_path, old, new).findings
    assert (finding.level, finding.direction, finding.bump) == CLASSES[forward]
    assert finding.location.startswith("doc.json#")


def test_removing_a_property_from_an_open_object_breaks_consumers(tmp_path: Path) -> None:
    (f,) = _run(tmp_path, obj({"a": S, "b": S}, closed=False), obj({"a": S}, closed=False)).findings
    assert (f.rule, f.level, f.direction) == ("PROPERTY_REMOVED", "breaking", "consumers")


def test_removing_a_deprecated_property_is_expected_only_after_its_window(tmp_path: Path) -> None:
    old = obj({"a": S, "b": {"type": "string", "deprecated": True, "x-deprecation": DEP}})
    early = _run(tmp_path / "early", old, obj({"a": S}), today="2027-11-29").findings
    late = _run(tmp_path / "late", old, obj({"a": S}), today="2027-11-30").findings
    assert [(f.rule, f.level, f.bump) for f in early] == [("PROPERTY_REMOVED", "breaking", "major")]
    assert [(f.rule, f.level, f.bump) for f in late] == [("PROPERTY_REMOVED", "warning", "major")]
    assert "expected removal" in late[0].message


SAME_STRINGS = {"bump": "patch", "reason": "the pattern accepts exactly the same strings in ECMA-262"}


def test_x_compatibility_reclassifies_the_findings_below_it_for_one_step(tmp_path: Path) -> None:
    old = obj({"a": {"type": "string", "pattern": "^[a-z]+$"}})
    rewritten = {"type": "string", "pattern": "^[a-z]", "not": {"pattern": "[^a-z]"}}
    strict = _run(tmp_path / "strict", old, obj({"a": rewritten}))
    # issue 42: the rewrite accepts the same strings, so no witness exists and neither finding is breaking
    assert sorted((f.rule, f.level, f.bump) for f in strict.findings) == [
        ("CONSTRAINT_TIGHTENED", "warning", "minor"),
        ("RULE_ADDED", "warning", "minor"),
    ]
    annotated = obj({"a": {**rewritten, "x-compatibility": SAME_STRINGS}})
    accepted = _run(tmp_path / "accepted", old, annotated)
    assert sorted((f.rule, f.level, f.bump) for f in accepted.findings) == [
        ("CONSTRAINT_TIGHTENED", "info", "patch"),
        ("RULE_ADDED", "info", "patch"),
    ]
    assert accepted.bump == "patch"
    assert all(f"x-compatibility at doc.json#/properties/a: {SAME_STRINGS['reason']}" in f.message for f in accepted.findings)
    # the next step does not inherit it: a later tightening at the same place is breaking again
    tighter = obj({"a": {**rewritten, "maxLength": 3, "x-compatibility": SAME_STRINGS}})
    assert [(f.rule, f.level) for f in _run(tmp_path / "next", annotated, tighter).findings] == [("CONSTRAINT_TIGHTENED", "breaking")]
    # an annotation elsewhere covers nothing here
    beside = obj({"a": rewritten, "b": {"type": "string", "x-compatibility": SAME_STRINGS}})
    assert {f.level for f in _run(tmp_path / "beside", obj({"a": old["properties"]["a"], "b": S}), beside).findings} == {"warning"}


def test_x_compatibility_is_checked_by_the_annotation_meta_schema(tmp_path: Path) -> None:
    folder = _write(tmp_path / "bad", {"doc.json": obj({"a": {"type": "string", "x-compatibility": {"bump": "major"}}})})
    with pytest.raises(SchemaError, match="annotation meta-schema"):
        load(folder)


def test_rule_gated_on_a_new_property_is_a_minor_addition(tmp_path: Path) -> None:
    report = _run(tmp_path, obj({"a": S}), obj({"a": S, "b": S}, allOf=[RULE]))
    assert sorted((f.rule, f.level, f.bump) for f in report.findings) == [
        ("PROPERTY_ADDED_OPTIONAL", "info", "minor"),
        ("RULE_ADDED", "info", "minor"),
    ]
    assert report.bump == "minor"


def test_rule_inside_a_new_property_is_a_minor_addition(tmp_path: Path) -> None:
    """1.4.0's trace ids: a `not` inside a property a closed object gains judges only that property's values, which
    no document valid before had; the same rule inside a property the object had already may break documents."""
    hex_id = {"type": "string", "pattern": "^[0-9a-f]{4}", "not": {"pattern": "^0{4}"}}
    report = _run(tmp_path, obj({"a": S}), obj({"a": S, "b/c": hex_id}))
    assert sorted((f.rule, f.level, f.bump) for f in report.findings) == [
        ("PROPERTY_ADDED_OPTIONAL", "info", "minor"),
        ("RULE_ADDED", "info", "minor"),
    ]
    assert "only applies to documents using a property that is new" in next(f.message for f in report.findings if f.rule == "RULE_ADDED")
    kept = _run(tmp_path / "kept", obj({"a": S, "b/c": S}), obj({"a": S, "b/c": hex_id}))
    assert ("RULE_ADDED", "info") not in {(f.rule, f.level) for f in kept.findings}
    opened = _run(tmp_path / "open", obj({"a": S}, closed=False), obj({"a": S, "b/c": hex_id}, closed=False))
    assert ("RULE_ADDED", "info") not in {(f.rule, f.level) for f in opened.findings}


def test_rules_without_an_id_are_matched_by_location(tmp_path: Path) -> None:
    plain = {"if": {"required": ["b"]}, "then": {"required": ["a"]}}
    assert _run(tmp_path, obj({"a": S, "b": S}, allOf=[plain]), obj({"a": S, "b": S}, allOf=[plain])).findings == ()
    assert _run(tmp_path / "x", obj({"a": S, "b": S}), obj({"a": S, "b": S}, allOf=[plain])).rules() == ["RULE_ADDED"]


def test_report_bump_and_formats(tmp_path: Path) -> None:
    report = _run(tmp_path, obj({"a": S}), obj({"a": {"type": "string", "description": "d"}, "b": S}, ("b",)))
    assert report.bump == "major" and len(report.breaking) == 1
    data = json.loads(report.to_json())
    assert data["bump"] == "major" and data["breaking"] == 1
    assert set(data["findings"][0]) == {"rule", "level", "direction", "location", "message", "bump", "witness"}
    assert report.to_text().splitlines()[-1].endswith("required version bump: major")
    assert DiffReport(()).bump == "none"


# ------------------------------------------------------------------------------------------ real releases


def test_diff_1_0_0_to_1_1_0() -> None:
    report = diff(RELEASES / "1.0.0", RELEASES / "1.1.0", dt.date(2026, 11, 30))
    by_rule = {(f.rule, f.location) for f in report.findings}
    assert ("PROPERTY_ADDED_OPTIONAL", "resultset.json#/$defs/Result/properties/constraint_violations") in by_rule
    assert ("TYPE_DEFINITION_ADDED", "resultset.json#/$defs/ConstraintViolation") in by_rule
    assert ("DEPRECATION_ADDED", "pack.json#/$defs/Validator/properties/fail_on_violation") in by_rule
    rule_added = [f for f in report.findings if f.rule == "RULE_ADDED"]
    assert len(rule_added) == 1 and "CONSTRAINT_INVALIDATES_PASS" in rule_added[0].message
    assert report.breaking == () and report.bump == "minor"


def test_policy_holds_for_the_repository() -> None:
    assert policy.check(RELEASES, SCHEMAS, dt.date(2026, 11, 30)) == []
    assert policy.check(RELEASES, SCHEMAS) == []  # today's date


def test_policy_cli_on_the_repository() -> None:
    run = _codegen_process("policy", "--releases", str(RELEASES), "--schemas", str(SCHEMAS), "--today", "2026-11-30")
    assert run.returncode == 0, run.stdout + run.stderr


# ------------------------------------------------------------------------------------------ lifecycle rehearsal


def _working(folder: Path, version: str, *, remove_deprecated: bool = False, add_optional: bool = False, edit_text: bool = False) -> Path:
    """A working schema folder derived from the latest release, with its ``$id``s at ``version``."""
    latest = policy.releases(RELEASES)[-1].version
    folder.mkdir(parents=True)
    for path in sorted((RELEASES / latest).glob("*.json")):
        if path.name == "manifest.json":
            continue
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["$id"] = doc["$id"].replace(f"/{latest}/", f"/{version}/")
        if path.name == "pack.json" and remove_deprecated:
            del doc["$defs"]["Validator"]["properties"]["fail_on_violation"]
        if path.name == "resultset.json" and add_optional:
            doc["$defs"]["Runner"]["properties"]["host"] = {"type": "string", "description": "Machine the runner ran on."}
        if path.name == "suite.json" and edit_text:
            doc["description"] += " Edited."
        (folder / path.name).write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return folder


def _codes(tmp: Path, work: Path, today: str) -> list[str]:
    return sorted({p.code for p in policy.check(RELEASES, work, dt.date.fromisoformat(today))})


def test_rehearsal_removal_in_2_0_0_waits_for_the_window(tmp_path: Path) -> None:
    work = _working(tmp_path / "w", "2.0.0", remove_deprecated=True)
    assert _codes(tmp_path, work, "2027-06-01") == ["REMOVAL_BEFORE_WINDOW"]
    assert _codes(tmp_path, work, "2027-11-29") == ["REMOVAL_BEFORE_WINDOW"]
    assert _codes(tmp_path, work, "2027-12-01") == []
    run = _codegen("policy", "--releases", str(RELEASES), "--schemas", str(work), "--today", "2027-06-01")
    assert run.returncode == 1 and "REMOVAL_BEFORE_WINDOW" in run.stdout and "2027-11-30" in run.stdout
    assert _codegen("policy", "--releases", str(RELEASES), "--schemas", str(work), "--today", "2027-12-01").returncode == 0


@pytest.mark.parametrize("today", ["2027-06-01", "2027-12-01", "2031-01-01"])
def test_rehearsal_removal_in_a_minor_is_refused_at_any_date(tmp_path: Path, today: str) -> None:
    work = _working(tmp_path / "w", "1.5.0", remove_deprecated=True)
    codes = _codes(tmp_path, work, today)
    assert "VERSION_MISMATCH" in codes and "REMOVAL_NOT_IN_MAJOR" in codes


def test_rehearsal_additions_need_a_minor(tmp_path: Path) -> None:
    assert _codes(tmp_path, _working(tmp_path / "minor", "1.5.0", add_optional=True), "2026-12-15") == []
    assert _codes(tmp_path, _working(tmp_path / "patch", "1.4.1", add_optional=True), "2026-12-15") == ["VERSION_MISMATCH"]
    assert _codes(tmp_path, _working(tmp_path / "major", "2.0.0", add_optional=True), "2026-12-15") == ["VERSION_MISMATCH"]


def test_rehearsal_text_edits_need_a_patch_and_any_change_needs_a_bump(tmp_path: Path) -> None:
    assert _codes(tmp_path, _working(tmp_path / "p", "1.4.1", edit_text=True), "2026-12-15") == []
    assert _codes(tmp_path, _working(tmp_path / "same", "1.4.0", edit_text=True), "2026-12-15") == ["VERSION_NOT_BUMPED"]
    assert _codes(tmp_path, _working(tmp_path / "idonly", "1.4.1"), "2026-12-15") == []


def test_policy_requires_complete_deprecations(tmp_path: Path) -> None:
    work = _working(tmp_path / "w", "1.5.0", add_optional=True)
    doc = json.loads((work / "resultset.json").read_text())
    doc["$defs"]["Runner"]["properties"]["name"]["deprecated"] = True
    (work / "resultset.json").write_text(json.dumps(doc, indent=2))
    assert "DEPRECATION_INCOMPLETE" in _codes(tmp_path, work, "2026-12-15")


# ------------------------------------------------------------------------------------------ commands never write


def _codegen(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    """``python -m codegen ARGS`` in-process (fast); :func:`_codegen_process` runs the real command."""
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = codegen_main(list(args))
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def _codegen_process(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "codegen", *args], cwd=cwd, capture_output=True, text=True, check=False)


def _tree(root: Path) -> dict[str, tuple[int, str]]:
    return {str(p.relative_to(root)): (p.stat().st_mtime_ns, sha(p)) for p in sorted(root.rglob("*")) if p.is_file()}


def _evalschema_diff(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="evalschema")
    diffcmd.add_parser(parser.add_subparsers(dest="command", required=True))
    try:
        args = parser.parse_args(["diff", *argv])
    except SystemExit as exc:
        return int(exc.code or 0)
    return int(args.handler(args))


def test_diff_policy_changelog_check_never_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(RELEASES, tmp_path / "spec" / "releases")
    shutil.copytree(SCHEMAS, tmp_path / "schemas")
    shutil.copyfile(REPO / "spec" / "CHANGELOG.md", tmp_path / "spec" / "CHANGELOG.md")
    before = _tree(tmp_path)
    assert _codegen_process("diff", "spec/releases/1.0.0", "spec/releases/1.1.0", cwd=tmp_path).returncode == 0
    assert _codegen("diff", "spec/releases/1.1.0", "schemas", "--format", "json", cwd=tmp_path).returncode == 0
    assert _codegen("diff", "spec/releases/1.1.0", "spec/releases/1.0.0", cwd=tmp_path).returncode == 1
    assert _codegen("policy", "--releases", "spec/releases", "--schemas", "schemas", cwd=tmp_path).returncode == 0
    assert _codegen("changelog", "--releases", "spec/releases", "--out", "spec/CHANGELOG.md", "--check", cwd=tmp_path).returncode == 0
    base = str(tmp_path / "spec" / "releases")
    assert _evalschema_diff([f"{base}/1.0.0", f"{base}/1.1.0"]) == 0
    assert _evalschema_diff([f"{base}/1.1.0", f"{base}/1.0.0", "--format", "json"]) == 1
    assert _evalschema_diff([f"{base}/1.0.0", str(tmp_path / "schemas")]) == 0
    assert _tree(tmp_path) == before


def test_evalschema_diff_output_and_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert _evalschema_diff(["1.0.0", "1.1.0", "--format", "json", "--today", "2026-11-30"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bump"] == "minor" and data["breaking"] == 0
    assert {"PROPERTY_ADDED_OPTIONAL", "RULE_ADDED", "DEPRECATION_ADDED"} <= {f["rule"] for f in data["findings"]}
    assert _evalschema_diff([str(RELEASES / "1.1.0"), str(RELEASES / "1.0.0")]) == 1
    out = capsys.readouterr().out
    assert "breaking PROPERTY_REMOVED [producers, major] resultset.json#/$defs/Result/properties/constraint_violations" in out
    assert _evalschema_diff(["9.9.9", "1.1.0"]) == 2
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "a.json").write_text("{")
    assert _evalschema_diff([str(tmp_path / "broken"), "1.1.0"]) == 2
    assert "error: a.json" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ changelog, versions


def test_changelog_is_up_to_date() -> None:
    assert (REPO / "spec" / "CHANGELOG.md").read_text(encoding="utf-8") == changelog.render(RELEASES), (
        "spec/CHANGELOG.md is stale; run: python -m codegen changelog --releases spec/releases --out spec/CHANGELOG.md"
    )


def test_changelog_names_the_deprecation_window() -> None:
    text = changelog.render(RELEASES)
    assert "## 1.1.0 — 2026-11-30" in text and "## 1.0.0 — 2026-10-15" in text
    assert "Window: 2026-11-30 → 2027-11-30." in text


def _hatch_version(pyproject: Path) -> str:
    """The version hatchling derives for a distribution, by its own ``[tool.hatch.version]`` rule."""
    rule = tomllib.loads(pyproject.read_text())["tool"]["hatch"]["version"]
    match = re.search(rule["pattern"], (pyproject.parent / rule["path"]).read_text())
    assert match is not None, f"{pyproject}: the version pattern matches nothing in {rule['path']}"
    return str(match["version"])


def test_versions_agree() -> None:
    """One source: the working schemas' $id. The distributions derive it, npm's package.json restates it."""
    ids = {re.search(r"/schema/([^/]+)/", json.loads(p.read_text())["$id"])[1] for p in SCHEMAS.glob("*.json")}  # type: ignore[index]
    for pyproject in (REPO / "pyproject.toml", REPO / "codegen" / "pyproject.toml"):
        assert "version" in tomllib.loads(pyproject.read_text())["project"]["dynamic"], pyproject
    derived = {_hatch_version(REPO / "pyproject.toml"), _hatch_version(REPO / "codegen" / "pyproject.toml")}
    package_json = json.loads((REPO / "js" / "package.json").read_text())["version"]
    installed = importlib.metadata.version("evalschema")
    assert ids == derived == {__version__} == {package_json} == {installed}


def test_no_version_is_written_by_hand_in_the_sources() -> None:
    """Neither SDK restates the version: Python reads it from the schemas, TypeScript from a generated module."""
    (version,) = {re.search(r"/schema/([^/]+)/", json.loads(p.read_text())["$id"])[1] for p in SCHEMAS.glob("*.json")}  # type: ignore[index]
    literal = re.compile(rf"[\"']{re.escape(version)}[\"']")
    sources = [
        *(REPO / "evalschema").rglob("*.py"),
        *(REPO / "codegen").rglob("*.py"),
        *(p for p in (REPO / "js" / "src").rglob("*.ts") if "generated" not in p.parts),
    ]
    written = [str(p.relative_to(REPO)) for p in sources if literal.search(p.read_text(encoding="utf-8"))]
    assert written == []


# ------------------------------------------------------------------------------------------ offline lookup


def _resultset(version: str, violations: bool) -> dict[str, Any]:
    row: dict[str, Any] = {
        "test_case_id": "t1",
        "grader_results": [{"grader_id": "g", "type": "contains", "score": 1, "passed": True}],
        "passed": True,
    }
    if violations:
        row["constraint_violations"] = [{"id": "rbac_scope", "invalidates_result": False}]
    return {"version": version, "suite_id": "s", "run_id": "r1", "started_at": "2026-10-15T09:00:00Z", "results": [row]}


def test_release_lookup_registry() -> None:
    assert releases.available()[:2] == ["1.0.0", "1.1.0"]
    assert releases.manifest("1.0.0")["date"] == "2026-10-15"
    assert validate(_resultset("1.0.0", False), spec_version="1.0.0").errors == ()
    (finding,) = validate(_resultset("1.0.0", True), spec_version="1.0.0").errors
    assert (finding.code, finding.pointer) == ("UNKNOWN_FIELD", "/results/0/constraint_violations")
    assert validate(_resultset("1.1.0", True), spec_version="1.1.0").errors == ()
    assert validate(_resultset("1.1.0", True)).errors == ()
    with pytest.raises(LookupError):
        registry.load("0.9.0")
    assert isinstance(registry.load("1.0.0").registry, Registry)


def test_finding_is_frozen() -> None:
    f = Finding("X", "info", "none", "a#", "m", "patch")
    with pytest.raises(AttributeError):
        f.rule = "Y"  # type: ignore[misc]


def _optional_properties_added(old: str, new: str) -> set[str]:
    """``evalschema diff old new`` of two bundled releases, which must be a minor bump with nothing breaking and only
    minor findings: the locations of the optional properties it found added."""
    run = subprocess.run(
        [sys.executable, "-m", "evalschema", "diff", old, new, "--format", "json"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert (report["bump"], report["breaking"]) == ("minor", 0)
    assert {finding["bump"] for finding in report["findings"]} == {"minor"}
    return {finding["location"] for finding in report["findings"] if finding["rule"] == "PROPERTY_ADDED_OPTIONAL"}


def test_1_3_0_is_a_minor_of_1_2_0() -> None:
    """Issues 40 and 43: raw values, scales, reducers, the per-test-case view and compare's power are compatible additions, and
    ``evalschema diff`` says so for the bundled releases by version (RFC 0004)."""
    assert _optional_properties_added("1.2.0", "1.3.0") == {
        "grader.json#/properties/scale",
        "grader.json#/properties/reducer",
        "resultset.json#/$defs/GraderProvenance/properties/scale",
        "resultset.json#/$defs/GraderProvenance/properties/reducer",
        "resultset.json#/$defs/GraderResult/properties/raw_score",
        "resultset.json#/$defs/GraderSummary/properties/avg_raw_score",
        "resultset.json#/$defs/GraderSummary/properties/per_test_case",
        "comparison.json#/properties/power",  # issue 43: compare states its power in JSON too
    }


def test_1_4_0_is_a_minor_of_1_3_0() -> None:
    """Issue 40: compare's per-test-case view and a row's trace, span and response ids are compatible additions,
    and ``evalschema diff`` says so for the bundled releases by version (RFC 0005)."""
    assert _optional_properties_added("1.3.0", "1.4.0") == {
        "comparison.json#/$defs/GraderDelta/properties/base_per_test_case",
        "comparison.json#/$defs/GraderDelta/properties/new_per_test_case",
        "comparison.json#/$defs/GraderDelta/properties/per_test_case_difference",
        "resultset.json#/$defs/Result/properties/trace_id",
        "resultset.json#/$defs/Result/properties/span_id",
        "resultset.json#/$defs/Result/properties/response_id",
    }
