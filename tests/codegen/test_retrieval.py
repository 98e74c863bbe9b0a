"""Issue 41: a retrieval map says which file of the schema folder a URI stands for, so that a set whose ``$id``s
are wrong (STAC 1.1.0's ``common.json`` has a typo in its ``$id``) or remote generates offline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from test_defects import import_models, root_model, write

from codegen.__main__ import main as codegen_main

# item.json names common.json by the URL it should have; common.json's own $id has a typo (the STAC case)
URL = "https://example.org/v1/common/common.json"
FILES: dict[str, Any] = {
    "item.json": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.org/v1/item/item.json",
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"$ref": URL + "#/$defs/Name"}},
    },
    "common.json": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://example.org/v1/commmon/common.json",
        "$defs": {"Name": {"type": "string", "minLength": 2}},
    },
}


def _generate(tmp_path: Path, *retrieve: str) -> tuple[int, Path]:
    schemas = write(tmp_path / "schemas", FILES)
    out = tmp_path / "out"
    args = ["generate", "--schemas", str(schemas), "--out", str(out)]
    for entry in retrieve:
        args += ["--retrieve", entry]
    return codegen_main(args), out


def test_without_a_map_the_typo_is_refused_naming_the_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = _generate(tmp_path)
    err = capsys.readouterr().err
    assert rc == 2
    assert "item.json#/properties/name/$ref" in err and URL in err and "retrieval map" in err
    assert not out.exists()


@pytest.mark.parametrize("entry", [f"{URL}=common.json", "https://example.org/v1/common/="])
def test_a_mapped_url_resolves_to_the_file(tmp_path: Path, entry: str) -> None:
    rc, out = _generate(tmp_path, entry)
    assert rc == 0
    item = root_model(import_models(out, f"retrieval{len(entry)}"), "item")
    assert item.model_validate({"name": "ab"}).model_dump(mode="json") == {"name": "ab"}
    with pytest.raises(ValidationError):
        item.model_validate({"name": "a"})  # the minLength of the mapped file applies
    bundled = json.loads((out / "schemas" / "item.json").read_text(encoding="utf-8"))
    assert bundled["properties"]["name"] == {"$ref": "#/$defs/common.json/$defs/Name"}  # the mapped file, embedded


@pytest.mark.parametrize("entry", ["https://example.org/nothing.json=missing.json", "https://example.org/v1/x/=sub/", "no-equals-sign"])
def test_a_map_entry_that_names_no_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], entry: str) -> None:
    rc, _ = _generate(tmp_path, entry)
    assert rc == 2
    assert entry.partition("=")[0] in capsys.readouterr().err
