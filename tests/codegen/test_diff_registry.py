"""Issue 42 (time budget): the witness search's offline registry (``codegen.compat.folder.read``) crawls only the
files in which a crawl finds something. Whatever it skips, the registry must resolve exactly what a registry
that crawls every file under every name resolves: the same URIs to the same schemas, the same anchors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import referencing
import referencing.exceptions

from codegen.compat.folder import _SPECS, read

D4 = "http://json-schema.org/draft-04/schema#"
D7 = "http://json-schema.org/draft-07/schema#"
D2020 = "https://json-schema.org/draft/2020-12/schema"

FOLDERS: dict[str, dict[str, Any]] = {
    "no-ids": {"a.json": {"$schema": D2020, "properties": {"x": {"$ref": "b.json"}}}, "b.json": {"$schema": D2020, "type": "string"}},
    "root-id-only": {"a.json": {"$schema": D2020, "$id": "https://example.org/a.json", "properties": {"x": {"type": "string"}}}},
    "embedded-id-in-dependent-schemas": {
        "a.json": {
            "$schema": D2020,
            "$id": "https://example.org/a.json",
            "dependentSchemas": {"x": {"$id": "inner.json", "type": "string"}},
        }
    },
    "embedded-id-without-root-id": {"a.json": {"$schema": D2020, "$defs": {"x": {"$id": "https://example.org/x.json", "type": "string"}}}},
    "anchor-below": {"a.json": {"$schema": D2020, "$defs": {"x": {"$anchor": "here", "type": "string"}}}},
    "dynamic-anchor-at-root": {"a.json": {"$schema": D2020, "$id": "https://example.org/a.json", "$dynamicAnchor": "meta"}},
    "relative-root-id-only": {"a.json": {"$schema": D2020, "$id": "schemas/a.json", "type": "object"}},
    "relative-root-id": {"a.json": {"$schema": D2020, "$id": "a.json", "properties": {"x": {"$id": "x.json"}}}},
    "draft-04-id-below": {"a.json": {"$schema": D4, "id": "http://example.org/a.json", "definitions": {"x": {"id": "x.json"}}}},
    "draft-07-root-id-beside-ref": {"a.json": {"$schema": D7, "$id": "http://example.org/a.json", "$ref": "#/definitions/x"}},
    "draft-07-anchor-in-id": {"a.json": {"$schema": D7, "definitions": {"x": {"$id": "#here", "type": "string"}}}},
    "other-dialect-below": {"a.json": {"$schema": D2020, "$defs": {"x": {"$schema": D7, "$id": "https://example.org/x.json"}}}},
}


def _write(tmp_path: Path, files: dict[str, Any]) -> Path:
    for name, contents in files.items():
        (tmp_path / name).write_text(json.dumps(contents), encoding="utf-8")
    return tmp_path


def _crawled_everything(folder: Any) -> referencing.Registry[Any]:
    """The registry as the witness search built it before: every file under its URI and its name, all crawled."""
    resources = [(name, _SPECS[folder.dialects[name]].create_resource(contents)) for name, contents in folder.files.items()]
    pairs = [(folder.uris[name], r) for name, r in resources] + [(f"urn:codegen-compat:{name}", r) for name, r in resources]
    return referencing.Registry().with_resources(pairs).crawl()


def _anchors(files: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for contents in files.values():
        text = json.dumps(contents)
        out += [word for word in ("here", "meta") if f'"{word}"' in text or f'"#{word}"' in text]
    return out


@pytest.mark.parametrize("case", sorted(FOLDERS))
def test_registry_resolves_what_a_full_crawl_resolves(tmp_path: Path, case: str) -> None:
    folder = read(_write(tmp_path, FOLDERS[case]))
    full = _crawled_everything(folder)
    # the same URIs, each to the same schema (by where it stands in the folder)
    assert sorted(folder.registry) == sorted(full)
    for uri in full:
        assert folder.where.get(id(folder.registry[uri].contents)) == folder.where.get(id(full[uri].contents)), uri
    # the same anchors, looked up from every registered URI
    for uri in full:
        for anchor in _anchors(FOLDERS[case]):
            try:
                expected = full.resolver(uri).lookup(f"#{anchor}").contents
            except referencing.exceptions.Unresolvable:
                expected = None
            try:
                got = folder.registry.resolver(uri).lookup(f"#{anchor}").contents
            except referencing.exceptions.Unresolvable:
                got = None
            assert (got is None) == (expected is None), (uri, anchor)
            if got is not None:
                assert folder.where.get(id(got)) == folder.where.get(id(expected)), (uri, anchor)
