"""Issue 42: ``diff`` on real consecutive schema versions agrees with the verdict established by hand and by
witnesses (origins in ``tests/codegen/histories/README.md``). Every breaking finding's witness is checked again
here by jsonschema-rs, a validator independent of the one the witness search uses."""

from __future__ import annotations

import datetime as dt
import importlib.resources
import itertools
import json
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jsonschema_rs  # type: ignore[import-not-found,unused-ignore]
import jsonschema_specifications  # type: ignore[import-untyped,unused-ignore]
import pytest

from codegen.compat.folder import read as read_folder
from codegen.diff import DiffReport, diff

HERE = Path(__file__).parent
HISTORIES = HERE / "histories"
RELEASES = HERE.parent.parent / "spec" / "releases"
TODAY = dt.date(2026, 12, 1)
META_DRAFTS = ("draft4", "draft6", "draft7", "draft201909", "draft202012")


def _meta_folder(tmp_path: Path, draft: str) -> Path:
    """The meta-schema of ``draft`` and its vocabularies as a schema folder (``schema.json`` + ``<vocabulary>.json``)."""
    source = importlib.resources.files(jsonschema_specifications) / "schemas" / draft
    folder = tmp_path / draft
    folder.mkdir()
    (folder / "schema.json").write_text((source / "metaschema.json").read_text(encoding="utf-8"), encoding="utf-8")
    vocabularies = source / "vocabularies"
    if vocabularies.is_dir():
        for vocabulary in vocabularies.iterdir():
            (folder / f"{vocabulary.name}.json").write_text(vocabulary.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def _independently_checked(folder: Path, file: str, document: Any) -> bool:
    """jsonschema-rs's verdict on ``document`` against ``folder``'s ``file``, every file of the folder registered."""
    schemas = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json") if p.name != "manifest.json"}

    def uri(name: str, schema: dict[str, Any]) -> str:
        declared = schema.get("$id") or schema.get("id")
        return str(declared).rstrip("#") if declared else f"urn:test:{name}"

    # each file also under its name beside the referring file's $id (CycloneDX refers to "spdx.SNAPSHOT.schema.json")
    by_name = [(urljoin(uri(file, schemas[file]), n), s) for n, s in schemas.items() if n != file]
    registry = jsonschema_rs.Registry([(uri(n, s), s) for n, s in schemas.items()] + by_name)
    validator = jsonschema_rs.validator_for(schemas[file], registry=registry, base_uri=uri(file, schemas[file]))
    return bool(validator.is_valid(document))


def _check_witnesses(report: DiffReport, old: Path, new: Path) -> None:
    for finding in report.breaking:
        assert finding.witness is not None, finding
        document = finding.witness.document
        assert _independently_checked(old, finding.witness.file, document), finding
        assert not _independently_checked(new, finding.witness.file, document), finding


def test_cyclonedx_1_4_to_1_5() -> None:
    old, new = HISTORIES / "cyclonedx_1_4", HISTORIES / "cyclonedx_1_5"
    report = diff(old, new, TODAY)
    _check_witnesses(report, old, new)
    assert report.bump == "major"
    assert sorted(f.location for f in report.breaking) == sorted(
        f"bom.schema.json#{pointer}"
        for pointer in (
            "/properties/version",
            "/definitions/refType",
            "/definitions/dependency/properties/ref",
            "/definitions/dependency/properties/dependsOn",
            "/definitions/compositions/properties/assemblies",
            "/definitions/vulnerability/properties/affects/items/properties/ref",
        )
    )
    (version,) = [f for f in report.breaking if f.location == "bom.schema.json#/properties/version"]
    assert version.witness is not None and version.witness.document == {"bomFormat": "CycloneDX", "specVersion": "", "version": 0}


# each step's breaks, as the (schema file, witness) a reader checks by hand against the two meta-schemas
META_BREAKS = {
    # draft-06 requires $schema to be a URI (format uri, checked by rfc3986-validator); draft-04 took any string
    ("draft4", "draft6"): [("schema.json", {"$schema": "a"})],
    ("draft6", "draft7"): [("schema.json", {"$comment": None})],
    ("draft7", "draft201909"): [("schema.json", {"$anchor": None})],
    ("draft201909", "draft202012"): [
        ("applicator.json", {"prefixItems": None}),
        ("schema.json", {"$recursiveAnchor": False}),
        ("core.json", {"$dynamicRef": None}),
    ],
}


@pytest.mark.parametrize(("old_draft", "new_draft"), list(itertools.pairwise(META_DRAFTS)))
def test_meta_schema_history(tmp_path: Path, old_draft: str, new_draft: str) -> None:
    old, new = _meta_folder(tmp_path, old_draft), _meta_folder(tmp_path, new_draft)
    report = diff(old, new, TODAY)
    _check_witnesses(report, old, new)
    assert report.bump == "major"
    assert [(f.witness.file, f.witness.document) for f in report.breaking if f.witness] == META_BREAKS[(old_draft, new_draft)]


@pytest.mark.parametrize(("old_version", "new_version"), [("1.0.0", "1.1.0"), ("1.1.0", "1.2.0")])
def test_our_releases(old_version: str, new_version: str) -> None:
    report = diff(RELEASES / old_version, RELEASES / new_version, TODAY)
    assert report.breaking == () and report.bump == "minor"


@pytest.mark.parametrize("bundle", ["", "_without_id"])
def test_asyncapi_2_5_0_to_2_6_0_in_either_bundle(bundle: str) -> None:
    """The same step gives the same verdict from the $id-keyed bundle and from the one without $ids (the issue
    measured 55 breaking findings against 2): the version pin, and message trait examples that must now be
    objects with payload or headers (a break shipped in a minor)."""
    old, new = HISTORIES / f"asyncapi_2.5.0{bundle}", HISTORIES / f"asyncapi_2.6.0{bundle}"
    report = diff(old, new, TODAY)
    _check_witnesses(report, old, new)
    base = {"asyncapi": "2.5.0", "info": {"version": "a", "title": "a"}, "channels": {}}
    assert [(f.rule, f.witness.document) for f in report.breaking if f.witness] == [
        ("VERSION_PIN_CHANGED", base),
        ("TYPE_NARROWED", {**base, "components": {"messageTraits": {"x-witness": {"examples": [{}]}}}}),
    ]
    assert (len(report.findings), sum(f.level == "warning" for f in report.findings)) == (115, 2)
    expected = diff(old, new, TODAY, expect_version_pins=True)
    assert [f.rule for f in expected.breaking] == ["TYPE_NARROWED"]


def test_asyncapi_2_0_0_to_2_1_0_draft_07() -> None:
    """A draft-07 history (the issue's refused class): the version pin and three breaks shipped in a minor, each
    checked by hand against both files — trait and message examples must now hold payload or headers, and the
    new schemaFormat values of 2.1.0 make the payload a schema (null was any payload before: the condition did
    not match). The Sasl security schemes (new oneOf branches whose types no old branch took) and ibmmq (a
    property of an open object) break nothing."""
    old, new = HISTORIES / "asyncapi_2.0.0_without_id", HISTORIES / "asyncapi_2.1.0_without_id"
    report = diff(old, new, TODAY)
    _check_witnesses(report, old, new)
    base = {"asyncapi": "2.0.0", "info": {"version": "a", "title": "a"}, "channels": {}}
    payload = {"schemaFormat": "application/vnd.aai.asyncapi;version=2.1.0", "payload": None}
    assert [(f.rule, f.witness.document) for f in report.breaking if f.witness] == [
        ("VERSION_PIN_CHANGED", base),
        ("TYPE_NARROWED", {**base, "components": {"messageTraits": {"x-witness": {"examples": [{}]}}}}),
        ("RULE_CHANGED", {**base, "components": {"messages": {"x-witness": payload}}}),
        ("RULE_ADDED", {**base, "components": {"messages": {"x-witness": {"examples": [{}]}}}}),
    ]
    assert (len(report.findings), sum(f.level == "warning" for f in report.findings)) == (9, 0)
    expected = diff(old, new, TODAY, expect_version_pins=True)
    assert [f.rule for f in expected.breaking] == ["TYPE_NARROWED", "RULE_CHANGED", "RULE_ADDED"]


@pytest.mark.parametrize(("old_version", "new_version"), [("1.0.0", "1.1.0"), ("1.1.0", "1.2.0")])
def test_asyncapi_1_x_draft_04(old_version: str, new_version: str) -> None:
    """A draft-04 history whose definitions carry absolute ``id``s (``http://asyncapi.com/definitions/1.0.0/info.json``)
    that every ``$ref`` names: read with draft-04 ``id`` semantics (referencing's DRAFT4), both versions accept a
    minimal document of the old one and each refuses a broken one, so that no proof is missed for want of a
    resolved reference. Released as minors, and nothing breaks (checked by hand): 1.1.0's operations are a ``oneOf`` of
    the old message and an object that requires ``oneOf`` (which no message may hold), 1.2.0's root ``oneOf`` of
    ``topics``/``stream``/``events`` is met once by any 1.1.0 document (``stream``/``events`` were not allowed)."""
    old, new = HISTORIES / f"asyncapi_{old_version}", HISTORIES / f"asyncapi_{new_version}"
    document = {"asyncapi": old_version, "info": {"title": "a", "version": "1"}, "topics": {"a": {"publish": {"payload": {}}}}}
    for folder in (old, new):
        valid = {**document, "asyncapi": "1.0.0"}  # every 1.x version accepts 1.0.0 documents
        assert _independently_checked(folder, "asyncapi.json", valid)
        assert not _independently_checked(folder, "asyncapi.json", {**valid, "info": {"title": 1, "version": "1"}})
    report = diff(old, new, TODAY)
    assert report.breaking == () and report.bump == "minor", report.to_text()
    assert sorted((f.rule, f.level) for f in report.findings if f.level != "info") == (
        [("TYPE_NARROWED", "warning")] * 2 if old_version == "1.0.0" else [("RULE_ADDED", "warning")]
    )
    # the proof reads the files as published: a document of the old version is valid under the new one
    published = read_folder(new)
    assert published.accepts("asyncapi.json", {**document, "asyncapi": old_version})
    assert not published.accepts("asyncapi.json", {**document, "info": {"title": 1, "version": "1"}})


def test_biome_2_0_6_to_2_1_0() -> None:
    """Renamed rule configurations (313 breaking findings in the issue) compare their content: noAccessKey's new
    type accepts more; the breaks left are proven (options that were null or open, a rule's fix on a plain rule)."""
    old, new = HISTORIES / "biome_2.0.6", HISTORIES / "biome_2.1.0"
    report = diff(old, new, TODAY)
    _check_witnesses(report, old, new)
    at = {f.location.split("#")[1]: f for f in report.findings}
    assert (at["/definitions/A11y/properties/noAccessKey"].rule, at["/definitions/A11y/properties/noAccessKey"].level) == (
        "TYPE_WIDENED",
        "info",
    )
    assert sorted(f.location.split("#")[1] for f in report.breaking) == [
        "/definitions/NoUndeclaredVariablesOptions/additionalProperties",
        "/definitions/RulePlainConfiguration/oneOf",
        "/definitions/Source/properties/useSortedAttributes",
        "/definitions/Source/properties/useSortedKeys",
        "/definitions/Source/properties/useSortedProperties",
        "/definitions/UseSortedAttributesOptions/type",
    ]
    assert sum(f.level == "warning" for f in report.findings) == 16
