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


# a schema of schemas: a $ref to a JSON Schema meta-schema resolves offline, to the copy python-jsonschema ships
# (jsonschema_specifications), each meta-schema it reaches a file of the set named after its URI
SCHEMA_OF_SCHEMAS: dict[str, Any] = {
    "plugin.json": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["options"],
        "properties": {"options": {"$ref": "http://json-schema.org/draft-07/schema#"}},
    }
}


def test_a_ref_to_a_metaschema_resolves_to_the_shipped_copy(tmp_path: Path) -> None:
    from codegen.load import load

    schemas = load(write(tmp_path / "schemas", SCHEMA_OF_SCHEMAS))
    assert [(f.name, f.uri) for f in schemas.files] == [
        ("plugin.json", (tmp_path / "schemas" / "plugin.json").as_uri()),
        ("json-schema.org_draft-07_schema.json", "http://json-schema.org/draft-07/schema"),
    ]
    out = tmp_path / "out"
    assert codegen_main(["generate", "--schemas", str(tmp_path / "schemas"), "--out", str(out)]) == 0
    plugin = root_model(import_models(out, "plugin"), "plugin")
    assert plugin.model_validate({"options": {"type": "string", "minLength": 1}}).model_dump(mode="json") == {
        "options": {"type": "string", "minLength": 1}
    }
    with pytest.raises(ValidationError):
        plugin.model_validate({"options": {"type": "text"}})  # no JSON type is called "text"
    with pytest.raises(ValidationError):
        plugin.model_validate({"options": {"minLength": -1}})


def test_a_file_of_the_folder_with_the_metaschema_uri_is_used_instead(tmp_path: Path) -> None:
    from codegen.load import load

    own = {"$schema": "http://json-schema.org/draft-07/schema#", "$id": "http://json-schema.org/draft-07/schema#", "type": "object"}
    schemas = load(write(tmp_path / "schemas", {**SCHEMA_OF_SCHEMAS, "own.json": own}))
    assert [f.name for f in schemas.files] == ["own.json", "plugin.json"]


def _capped() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (3_000_000_000, 3_000_000_000))


def test_the_draft04_metaschema_types_a_document_in_bounded_memory(tmp_path: Path) -> None:
    """draft-04's meta-schema defaults ``additionalItems`` (``anyOf`` boolean or the meta-schema itself) to ``{}``,
    whose own ``additionalItems`` defaults to ``{}``...: pydantic validating that default into the model never ended
    and filled the memory (the Python target drops an object default on a union too). Typed in a child process,
    its address space capped, so that a regression fails here instead of taking the machine."""
    import subprocess
    import sys

    schemas = write(
        tmp_path / "schemas",
        {"schema.json": {"$schema": "http://json-schema.org/draft-04/schema#", "$ref": "http://json-schema.org/draft-04/schema#"}},
    )
    out = tmp_path / "out"
    assert codegen_main(["generate", "--schemas", str(schemas), "--out", str(out)]) == 0
    script = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(out)!r})\n"
        "import python as models\n"
        "(root,) = [getattr(models, n) for n, w in models._EXPORTS.items() if w.partition(':')[0] == 'schema']\n"
        "print(json.dumps(root.model_validate({'minLength': 1, 'items': {'type': 'string'}}).model_dump(mode='json')))\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, preexec_fn=_capped, check=False)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert json.loads(ran.stdout) == {"minLength": 1, "items": {"type": "string"}}
