"""Minimal repros of the defects D1–D10 of issue 18 (each found on a real schema set of tests/codegen/corpus),
and of the input dialects and references codegen reads. Each test writes a small schema folder of its own."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from codegen_helpers import REPO, typescript_runtime
from pydantic import ValidationError
from tools import missing_tool

from codegen.__main__ import main as codegen_main
from codegen.ir import build
from codegen.load import SchemaError, load

TSC = REPO / "js" / "node_modules" / ".bin" / "tsc"


def write(folder: Path, files: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, doc in files.items():
        (folder / name).write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return folder


def generate(tmp_path: Path, files: dict[str, Any], capsys: pytest.CaptureFixture[str] | None = None) -> Path:
    schemas = write(tmp_path / "schemas", files)
    out = tmp_path / "out"
    rc = codegen_main(["generate", "--schemas", str(schemas), "--out", str(out)])
    err = capsys.readouterr().err if capsys is not None else ""
    assert rc == 0, err
    return out


def import_models(out: Path, name: str = "models") -> Any:
    module_name = f"codegen_repro_{name}_{abs(hash(str(out)))}"
    spec = importlib.util.spec_from_file_location(
        module_name, out / "python" / "__init__.py", submodule_search_locations=[str(out / "python")]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def root_model(models: Any, stem: str) -> Any:
    """The root model of schema file ``<stem>.json`` (class names are DCG's)."""
    (name,) = [c for c, m in models._EXPORTS.items() if m.partition(":")[0] == stem]
    return getattr(models, name)


def round_trip(model: Any, document: Any) -> Any:
    return model.model_validate(document).model_dump(mode="json", by_alias=True, exclude_unset=True)


def tsc(folder: Path, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    if not TSC.exists():
        missing_tool("js/node_modules missing: run npm ci --prefix js")
    for name, text in (extra or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    typescript_runtime(folder)
    (folder / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "strict": True,
                    "noEmit": True,
                    "target": "es2022",
                    "module": "nodenext",
                    "moduleResolution": "nodenext",
                    "skipLibCheck": True,
                    "types": ["node"],
                },
                "include": ["*.ts"],
            }
        ),
        encoding="utf-8",
    )
    return subprocess.run([str(TSC), "-p", str(folder)], capture_output=True, text=True, timeout=300)


# ------------------------------------------------------------------------------------------ D1: refs by $id


def test_d1_refs_between_files_by_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A $ref naming another file by its $id (not its file name): DCG used to try to fetch it (traceback, exit 1)."""
    out = generate(
        tmp_path,
        {
            "a.json": {"$id": "https://example.org/schemas/a", "type": "object", "properties": {"b": {"$ref": "b#/$defs/thing"}}},
            "b_file.json": {
                "$id": "https://example.org/schemas/b",
                "$defs": {"thing": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
            },
        },
        capsys,
    )
    models = import_models(out)
    assert round_trip(root_model(models, "a"), {"b": {"n": 1}}) == {"b": {"n": 1}}
    with pytest.raises(ValidationError):
        root_model(models, "a").model_validate({"b": {"n": "x"}})  # the field has the referenced model's type, not Any
    assert codegen_main(["check", "--schemas", str(tmp_path / "schemas"), "--out", str(out)]) == 0


# ------------------------------------------------------------------------------------------ D2: DCG errors


def test_d2_dcg_failure_is_exit_2_with_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any failure inside DCG is exit 2 with file#pointer, for generate and for check (not 1, the drift code)."""
    import datamodel_code_generator

    schemas = write(tmp_path / "schemas", {"a.json": {"type": "object", "properties": {"x": {"type": "string"}}}})

    def broken(*args: Any, **kwargs: Any) -> None:
        raise datamodel_code_generator.Error("Error at schema path 'a.json#/properties/x': something DCG cannot do")

    monkeypatch.setattr(datamodel_code_generator, "generate", broken)
    for command in ("generate", "check"):
        assert codegen_main([command, "--schemas", str(schemas), "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: a.json#/properties/x: the Python target failed inside datamodel-code-generator"), err
        assert "Traceback" not in err


def test_d2_openapi_discriminator_mapping_generates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """snapcraft: an OpenAPI-style ``discriminator`` with an object mapping (an annotation in JSON Schema)."""
    out = generate(
        tmp_path,
        {
            "a.json": {
                "oneOf": [{"$ref": "#/$defs/bare"}, {"$ref": "#/$defs/other"}],
                "discriminator": {
                    "propertyName": "base",
                    "mapping": {"bare": {"$ref": "#/$defs/bare"}, "other": {"$ref": "#/$defs/other"}},
                },
                "$defs": {
                    "bare": {"type": "object", "properties": {"base": {"const": "bare"}}, "required": ["base"]},
                    "other": {"type": "object", "properties": {"base": {"const": "other"}, "x": {"type": "integer"}}, "required": ["base"]},
                },
            }
        },
        capsys,
    )
    models = import_models(out)
    assert round_trip(root_model(models, "a"), {"base": "other", "x": 2}) == {"base": "other", "x": 2}


# ------------------------------------------------------------------------------------------ D3: patternProperties maps


def test_d3_pattern_properties_map_is_typed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """compose ``services``: patternProperties + additionalProperties false is a map of the pattern's type."""
    out = generate(
        tmp_path,
        {
            "compose.json": {
                "type": "object",
                "properties": {
                    "services": {
                        "type": "object",
                        "patternProperties": {"^[a-zA-Z0-9._-]+$": {"$ref": "#/$defs/service"}},
                        "additionalProperties": False,
                    }
                },
                "$defs": {"service": {"type": "object", "properties": {"image": {"type": "string"}}, "additionalProperties": False}},
            }
        },
        capsys,
    )
    ts = (out / "typescript" / "compose.ts").read_text()
    assert "  services?: { [key: string]: service };\n" in ts
    docs = (out / "docs" / "compose.md").read_text()
    assert "| `services` | map of [service](#service) |" in docs
    assert "- `patternProperties` at `compose.json#/properties/services/patternProperties`" in docs  # the key pattern: a rule
    proc = tsc(
        out / "typescript",
        {"check.ts": 'import type { Compose } from "./compose.js";\nexport const c: Compose = {services: {web: {image: "nginx"}}};\n'},
    )
    assert proc.returncode == 0, proc.stdout


# ------------------------------------------------------------------------------------------ D4: $ref beside properties


def test_d4_ref_beside_properties_is_a_base(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenAPI 3.1 root: ``$ref`` + ``properties`` + ``unevaluatedProperties: false``; neither side is dropped."""
    out = generate(
        tmp_path,
        {
            "api.json": {
                "$ref": "#/$defs/extensions",
                "type": "object",
                "properties": {"openapi": {"type": "string"}, "info": {"$ref": "#/$defs/named"}},
                "required": ["openapi"],
                "unevaluatedProperties": False,
                "$defs": {
                    "extensions": {"patternProperties": {"^x-": True}},
                    "named": {"$ref": "#/$defs/base", "properties": {"title": {"type": "string"}}},
                    "base": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
            }
        },
        capsys,
    )
    ir = build(load(tmp_path / "schemas"))
    named = next(t for t in ir.modules[0].types if t.name == "named")
    assert [b.name for b in named.bases] == ["base"] and [f.name for f in named.fields] == ["title"]
    models = import_models(out)
    doc = {"openapi": "3.1.0", "x-internal": {"a": 1}, "info": {"name": "n", "title": "t"}}
    assert round_trip(root_model(models, "api"), doc) == doc
    ts = (out / "typescript" / "api.ts").read_text()
    assert "export interface named extends base {" in ts


# ------------------------------------------------------------------------------------------ D5: reserved words


def test_d5_reserved_words_are_not_type_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """renovate: a ``$defs`` entry named ``extends``."""
    out = generate(
        tmp_path,
        {
            "cfg.json": {
                "type": "object",
                "properties": {"extends": {"$ref": "#/$defs/extends"}},
                "$defs": {"extends": {"type": "array", "items": {"type": "string"}}},
            }
        },
        capsys,
    )
    ts = (out / "typescript" / "cfg.ts").read_text()
    assert "export type Extends = string[];" in ts and "export type extends" not in ts
    proc = tsc(out / "typescript")
    assert proc.returncode == 0, proc.stdout


# ------------------------------------------------------------------------------------------ D6: file names


def test_d6_file_names_that_are_no_identifiers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``2020-12.json`` and ``class.json`` give modules every target can import."""
    out = generate(
        tmp_path,
        {
            "2020-12.json": {"type": "object", "properties": {"c": {"$ref": "class.json"}}},
            "class.json": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
        capsys,
    )
    assert sorted(p.name for p in (out / "python").glob("*.py")) == [
        "__init__.py",
        "_base.py",
        "_deprecations.py",
        "_schemas.py",
        "class_.py",
        "schema_2020_12.py",
    ]
    models = import_models(out)
    assert round_trip(root_model(models, "schema_2020_12"), {"c": {"n": 1}}) == {"c": {"n": 1}}
    ts = (out / "typescript" / "schema_2020_12.ts").read_text()
    assert 'import type * as class_ from "./class_.js";' in ts
    assert tsc(out / "typescript").returncode == 0


# ------------------------------------------------------------------------------------------ D7: recursion


def test_d7_recursion_through_nested_defs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """AsyncAPI: a recursive schema kept in a nested ``$defs`` is a named type, not a refused cycle."""
    out = generate(
        tmp_path,
        {
            "tree.json": {
                "type": "object",
                "properties": {"root": {"$ref": "#/$defs/outer/$defs/node"}},
                "$defs": {
                    "outer": {
                        "type": "object",
                        "$defs": {
                            "node": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/outer/$defs/node"}]}}
                        },
                    }
                },
            }
        },
        capsys,
    )
    ts = (out / "typescript" / "tree.ts").read_text()
    assert "export type node = Array<string | node>;" in ts
    models = import_models(out)
    assert round_trip(root_model(models, "tree"), {"root": ["a", ["b", []]]}) == {"root": ["a", ["b", []]]}


def test_d7_recursion_through_an_unnamed_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A cycle through a schema outside ``$defs`` (``#/properties/...``) names that schema instead of refusing."""
    generate(
        tmp_path,
        {
            "t.json": {
                "type": "object",
                "properties": {"list": {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"$ref": "#/properties/list"}]}}},
            }
        },
        capsys,
    )
    ir = build(load(tmp_path / "schemas"))
    assert [(t.name, t.location.pointer) for t in ir.modules[0].types] == [("T", ""), ("List", "/properties/list")]


# ------------------------------------------------------------------------------------------ D8: formats


def test_d8_formats_keep_json_types(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``format: email`` gave ``EmailStr`` (needs a package the models do not depend on); uri/uuid/... changed the
    value on dump. Every format stays the plain JSON type."""
    out = generate(
        tmp_path,
        {
            "p.json": {
                "type": "object",
                "properties": {
                    "email": {"type": "string", "format": "email"},
                    "url": {"type": "string", "format": "uri"},
                    "id": {"type": "string", "format": "uuid"},
                    "secret": {"type": "string", "format": "password"},
                    "at": {"type": "integer", "format": "unix-time"},
                },
            }
        },
        capsys,
    )
    source = (out / "python" / "p.py").read_text()
    for name in ("EmailStr", "AnyUrl", "UUID", "SecretStr", "datetime"):
        assert name not in source
    models = import_models(out)
    doc = {"email": "a@b.example", "url": "https://x.example", "id": "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "secret": "s", "at": 5}
    assert round_trip(root_model(models, "p"), doc) == doc


# ------------------------------------------------------------------------------------------ D9: models reject valid documents


def test_d9_closed_object_with_extension_patterns_accepts_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """compose/OpenAPI: ``additionalProperties: false`` beside ``^x-`` patternProperties."""
    out = generate(
        tmp_path,
        {
            "c.json": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "patternProperties": {"^x-": {}},
                "additionalProperties": False,
            }
        },
        capsys,
    )
    models = import_models(out)
    assert round_trip(root_model(models, "c"), {"name": "a", "x-foo": [1]}) == {"name": "a", "x-foo": [1]}


def test_d9_matrix_keys_are_not_restricted_by_the_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GitHub workflow ``matrix``: ``include``/``exclude`` by pattern, any other key by ``additionalProperties``;
    the model used to restrict every key to the pattern."""
    out = generate(
        tmp_path,
        {
            "w.json": {
                "type": "object",
                "properties": {
                    "matrix": {
                        "type": "object",
                        "minProperties": 1,
                        "patternProperties": {"^(in|ex)clude$": {"type": "array", "items": {"type": "object"}}},
                        "additionalProperties": {"type": "array", "items": {"type": "string"}},
                    }
                },
            }
        },
        capsys,
    )
    models = import_models(out)
    doc = {"matrix": {"os": ["ubuntu", "macos"], "include": [{"os": "windows"}]}}
    assert round_trip(root_model(models, "w"), doc) == doc


def test_d9_recursive_model_with_object_defaults_validates_quickly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """renovate: every manager config is the whole config again, each with an object default."""
    out = generate(
        tmp_path,
        {
            "cfg.json": {
                "type": "object",
                "properties": {name: {"$ref": "#", "default": {"enabled": False}} for name in ("a", "b", "c", "d", "e", "f")}
                | {"enabled": {"type": "boolean", "default": True}},
            }
        },
        capsys,
    )
    script = (
        "import importlib.util, sys, json\n"
        f"spec = importlib.util.spec_from_file_location('m', {str(out / 'python' / '__init__.py')!r}, submodule_search_locations=[{str(out / 'python')!r}])\n"
        "m = importlib.util.module_from_spec(spec); sys.modules['m'] = m; spec.loader.exec_module(m)\n"
        "doc = {'a': {'enabled': True}, 'enabled': False}\n"
        "(cls,) = [getattr(m, c) for c, mod in m._EXPORTS.items() if mod.partition(':')[0] == 'cfg']\n"
        "print(json.dumps(cls.model_validate(doc).model_dump(mode='json', by_alias=True, exclude_unset=True)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout) == {"a": {"enabled": True}, "enabled": False}


# ------------------------------------------------------------------------------------------ D10: docs


def test_d10_defs_namespace_and_annotation_keywords(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """meltano: ``$defs/plugins/*`` is a namespace of types; renovate/CycloneDX: ``markdownDescription``,
    ``meta:enum`` are annotations, not rules."""
    out = generate(
        tmp_path,
        {
            "m.json": {
                "type": "object",
                "properties": {
                    "extractors": {"type": "array", "items": {"$ref": "#/$defs/plugins/extractor"}},
                    "mode": {"type": "string", "enum": ["a", "b"], "meta:enum": {"a": "A", "b": "B"}, "markdownDescription": "**mode**"},
                },
                "$defs": {"plugins": {"extractor": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}},
            }
        },
        capsys,
    )
    docs = (out / "docs" / "m.md").read_text()
    assert "## extractor\n" in docs and "| `name` | `string` | yes |" in docs
    assert "## plugins" not in docs
    assert "### Rules not enforced" not in docs, docs


# ------------------------------------------------------------------------------------------ inputs


def test_draft07_is_read_as_its_2020_12_equivalent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = generate(
        tmp_path,
        {
            "d7.json": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {
                    "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": False},
                    "thing": {"$ref": "#/definitions/thing", "description": "kept", "type": "string"},
                    "named": {"$ref": "#named"},
                },
                "dependencies": {"pair": ["thing"], "named": {"required": ["pair"]}},
                "definitions": {
                    "thing": {"type": "object", "properties": {"n": {"type": "integer"}}},
                    "other": {"$id": "#named", "type": "boolean"},
                },
            }
        },
        capsys,
    )
    contents = load(tmp_path / "schemas").files[0].contents
    assert contents["properties"]["pair"] == {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False}
    assert contents["properties"]["thing"] == {
        "$ref": "#/definitions/thing",
        "description": "kept",
    }  # siblings of $ref are ignored in draft-07
    assert contents["dependentRequired"] == {"pair": ["thing"]} and contents["dependentSchemas"] == {"named": {"required": ["pair"]}}
    assert contents["definitions"]["other"] == {"$anchor": "named", "type": "boolean"}
    ts = (out / "typescript" / "d7.ts").read_text()
    assert "  pair?: [string, Integer];\n" in ts and "  thing?: thing;\n" in ts and "  named?: other;\n" in ts


def test_2019_09_recursive_ref(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = generate(
        tmp_path,
        {
            "tree.json": {
                "$schema": "https://json-schema.org/draft/2019-09/schema",
                "$recursiveAnchor": True,
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$recursiveRef": "#"}}},
            }
        },
        capsys,
    )
    assert "  children?: Tree[];\n" in (out / "typescript" / "tree.ts").read_text()


def test_default_dialect_and_unsupported_dialect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # no $schema: read as 2020-12, so prefixItems is a tuple
    out = generate(tmp_path / "a", {"t.json": {"type": "array", "prefixItems": [{"type": "string"}]}}, capsys)
    assert "export type T = [string, ...unknown[]];" in (out / "typescript" / "t.ts").read_text()
    schemas = write(tmp_path / "b" / "schemas", {"t.json": {"$schema": "http://json-schema.org/draft-03/schema#", "type": "string"}})
    for command in ("generate", "check"):
        assert codegen_main([command, "--schemas", str(schemas), "--out", str(tmp_path / "b" / "out")]) == 2
        assert capsys.readouterr().err.startswith("error: t.json#/$schema: unsupported dialect 'http://json-schema.org/draft-03/schema#'")


def test_ref_by_relative_path_when_id_does_not_match(tmp_path: Path) -> None:
    """CycloneDX: ``"$ref": "spdx.schema.json"`` from a file whose $id puts it elsewhere; the file is in the folder."""
    write(
        tmp_path,
        {
            "bom.json": {
                "$id": "http://example.org/schema/bom-1.6.schema.json",
                "type": "object",
                "properties": {"license": {"$ref": "spdx.schema.json"}},
            },
            "spdx.schema.json": {"$id": "http://example.org/schema/spdx.schema.json-v2", "type": "string", "enum": ["MIT"]},
        },
    )
    ss = load(tmp_path)
    node = ss.files[0].contents["properties"]["license"]
    assert ss.resolve_ref(node, node["$ref"])[1].file == "spdx.schema.json"


def test_dynamic_ref_bound_statically(tmp_path: Path) -> None:
    """OpenAPI 3.1 / the 2020-12 meta-schema: one outermost $dynamicAnchor, the ref becomes a $ref to it."""
    write(
        tmp_path,
        {
            "s.json": {
                "$id": "https://example.org/s",
                "$defs": {
                    "schema": {"$dynamicAnchor": "meta", "type": ["object", "boolean"], "properties": {"items": {"$dynamicRef": "#meta"}}}
                },
                "$ref": "#/$defs/schema",
            }
        },
    )
    ss = load(tmp_path)
    node = ss.files[0].contents["$defs"]["schema"]["properties"]["items"]
    assert node == {"$ref": "https://example.org/s#/$defs/schema"}


def test_dynamic_ref_ambiguous_is_refused_with_its_pointer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        tmp_path / "schemas",
        {
            "a.json": {
                "$id": "https://example.org/a",
                "$dynamicAnchor": "node",
                "type": "object",
                "properties": {"next": {"$dynamicRef": "#node"}},
            },
            "b.json": {"$id": "https://example.org/b", "$dynamicAnchor": "node", "$ref": "a"},
            "c.json": {"$id": "https://example.org/c", "$dynamicAnchor": "node", "$ref": "a"},
        },
    )
    with pytest.raises(SchemaError) as info:
        load(tmp_path / "schemas")
    assert (info.value.file, info.value.pointer) == ("a.json", "/properties/next/$dynamicRef")
    assert "cannot be resolved statically: 3 schemas declare $dynamicAnchor 'node'" in info.value.message
    assert codegen_main(["generate", "--schemas", str(tmp_path / "schemas"), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.startswith(
        "error: a.json#/properties/next/$dynamicRef: $dynamicRef '#node' cannot be resolved statically"
    )


def test_internal_error_is_exit_2_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import codegen.__main__ as cli

    schemas = write(tmp_path / "schemas", {"a.json": {"type": "string"}})

    def boom(*args: Any, **kwargs: Any) -> None:
        raise KeyError("x")

    monkeypatch.setattr(cli, "render_all", boom)
    assert cli.main(["check", "--schemas", str(schemas), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {schemas}#: internal error in codegen (KeyError") and "Traceback" not in err


def test_go_refuses_a_property_name_no_json_tag_can_spell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Only where additional properties are typed (issue 41, R4: elsewhere the member stays in AdditionalProperties)."""
    schema = {"type": "object", "properties": {"a,b": {"type": "string"}}, "additionalProperties": {"type": "integer"}}
    schemas = write(tmp_path / "schemas", {"a.json": schema})
    assert codegen_main(["generate", "--schemas", str(schemas), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: a.json#/properties/a,b: the Go target cannot represent property name 'a,b'"), err


def test_typescript_index_when_a_root_type_is_named_like_a_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GeoJSON (STAC): ``GeoJSON.json`` whose root type is ``GeoJSON`` — the index re-exports both."""
    out = generate(tmp_path, {"GeoJSON.json": {"title": "GeoJSON", "type": "object", "properties": {"type": {"type": "string"}}}}, capsys)
    index = (out / "typescript" / "index.ts").read_text()
    assert 'export type { GeoJSON } from "./GeoJSON.js";' in index and 'export type * as GeoJSON_module from "./GeoJSON.js";' in index
    assert tsc(out / "typescript").returncode == 0


GO_THING = """type Thing struct {
	// The id.
	Id string `json:"id"`

	Label *string `json:"label,omitempty"`

	Note *string `json:"note"`

	Score Nullable[float64] `json:"score,omitempty"`

	Kind Kind `json:"kind"`

	Value *ThingValue `json:"value,omitempty"`

	// Use kind.
	//
	// Deprecated: Deprecated. Use kind.
	Old *bool `json:"old,omitempty"`

	// AdditionalProperties holds members not declared above (the schema allows none; they are kept, not dropped).
	AdditionalProperties map[string]json.RawMessage `json:"-"`
}
"""


def test_go_shapes_optional_nullable_enum_union_deprecated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Go: required → T, optional → *T, required nullable → *T, optional nullable → Nullable[T], string enum →
    typed constants, union → RawMessage-backed type with accessors, deprecation → // Deprecated:."""
    thing = {
        "title": "Thing",
        "type": "object",
        "required": ["id", "note", "kind"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "description": "The id."},
            "label": {"type": "string"},
            "note": {"type": ["string", "null"]},
            "score": {"type": ["number", "null"]},
            "kind": {"$ref": "#/$defs/Kind"},
            "value": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "old": {"type": "boolean", "deprecated": True, "description": "Use kind."},
        },
        "$defs": {"Kind": {"enum": ["a", "b-c"]}},
    }
    out = generate(tmp_path, {"thing.json": thing}, capsys)
    source = (out / "go" / "thing.gen.go").read_text()
    assert source.startswith("// Code generated by codegen from thing.json; DO NOT EDIT.\n\npackage schemas\n")
    struct = source[source.index("type Thing struct {") :]
    assert struct[: struct.index("\n}\n") + 3] == GO_THING
    assert 'const (\n\tKindA  Kind = "a"\n\tKindBC Kind = "b-c"\n)\n' in source
    assert "type ThingValue struct {\n\tjson.RawMessage\n}\n" in source
    assert (
        "func (u ThingValue) AsInt64() (int64, error) {" in source and "func ThingValueFromString(v string) (ThingValue, error) {" in source
    )


def test_a_document_the_types_cannot_hold_is_held_as_it_is(tmp_path: Path) -> None:
    """A schema with object keywords and no "type" accepts non-objects: the model accepts them too (as the schema
    does), the instance holds the document (``_base.held``) and dumps it back; an object is typed as before."""
    out = generate(
        tmp_path,
        {
            "node.json": {
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "properties": {"size": {"type": "integer"}, "child": {"$ref": "#"}},
                "required": ["size"],
            },
            "row.json": {"$schema": "https://json-schema.org/draft/2020-12/schema", "items": {"type": "integer"}},
        },
    )
    models = import_models(out, "held")
    base = importlib.import_module(models.__name__ + "._base")
    node, row = root_model(models, "node"), root_model(models, "row")
    for document in (12, "text", [1, 2], None, {"size": 1, "child": False}, {"size": 1, "child": {"size": 2, "child": 3}}):
        for built in (node.model_validate(document), node.model_validate_json(json.dumps(document))):
            assert base.is_held(built) and base.held(built) == document
            assert built.model_dump(mode="json") == document
            assert built.model_fields_set == set()
    typed = node.model_validate({"size": 1, "child": {"size": 2}})
    assert not base.is_held(typed) and typed.child.size == 2
    with pytest.raises(ValueError):
        base.held(typed)
    assert typed.model_dump(mode="json") == {"size": 1, "child": {"size": 2}}
    assert not base.is_held(node(size=1, child={"size": 2}))
    held = node(size=1, child=7)  # construction in code: the schema accepts a number as the child
    assert base.held(held) == {"size": 1, "child": 7} and held.model_dump(mode="json") == {"size": 1, "child": 7}
    for refused in ({"size": "1"}, {"child": {"size": 1}}, {"size": 1, "child": {"size": 1.5}}):
        with pytest.raises(ValidationError):
            node.model_validate(refused)
    with pytest.raises(ValidationError):
        node(size="1")
    assert not base.is_held(row.model_validate([1, 2])) and row.model_validate([1, 2]).root == [1, 2]
    for document in ("text", {"0": "a", "length": 1}):
        built = row.model_validate(document)
        assert base.held(built) == document and built.model_dump(mode="json") == document
        assert base.held(row(document)) == document
    with pytest.raises(ValidationError):
        row.model_validate([1, "2"])


def test_post_processing_edits_in_one_pass_equal_one_by_one() -> None:
    """The Python target's text edits are joined in one pass (slicing a 14 MB module per edit took 94 s on Azure
    Pipelines' schema); the result must be the one of applying them one by one, overlapping edits included."""
    import random

    from codegen.targets.python import _Edits

    rng = random.Random(41)
    for _ in range(3000):
        edits = _Edits("".join(rng.choice("ab\n") for _ in range(rng.randint(0, 30))) + "\n")
        for _ in range(rng.randint(0, 6)):
            start = rng.randint(0, len(edits.source))
            edits.edits.append((start, min(len(edits.source), start + rng.choice([0, 0, 1, 2, 3])), rng.choice(["X", "YY", ""])))
        assert edits.apply() == edits._apply_one_by_one(), edits.edits


def test_object_keywords_beside_branches_typed_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """GitLab CI's ``workflow.rules`` items: ``anyOf`` an object or a non-empty array of strings, ``properties`` beside
    it. DCG put the properties into the array branch too, a union of a list and a model under ``min_length``, which
    pydantic cannot apply to the model: a valid rule object failed to type."""
    schema = {
        "type": "object",
        "properties": {
            "rules": {
                "type": "array",
                "items": {
                    "anyOf": [{"type": "object"}, {"type": "array", "minItems": 1, "items": {"type": "string"}}],
                    "properties": {"if": {"type": "string"}, "changes": {"type": "array", "items": {"type": "string"}}},
                    "additionalProperties": False,
                },
            }
        },
    }
    model = root_model(import_models(generate(tmp_path, {"ci.json": schema}, capsys), "branches_typed_apart"), "ci")
    document = {"rules": [{"if": "$X == '1'", "changes": ["README.md"]}, ["a", "b"]]}
    assert round_trip(model, document) == document
    with pytest.raises(ValidationError):
        model.model_validate({"rules": [[]]})  # the array branch keeps its minItems
    with pytest.raises(ValidationError):
        model.model_validate({"rules": [{"when": "always"}]})  # and the object branch its closed properties


def test_properties_beside_many_branches_make_their_types_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Azure Pipelines' ``task``: a property that is an ``anyOf`` of one-value enums beside an ``anyOf`` of branches
    that each declare it again. DCG merged the property into every branch inline, so n branches made n copies of its
    n enums (259 × 259 = 67,081 classes in Azure's module, which did not import in 10 GB)."""
    n = 12
    names = [f"T{i}@1" for i in range(n)]
    task = {
        "type": "object",
        "properties": {"task": {"anyOf": [{"enum": [name]} for name in names]}, "name": {"anyOf": [{"enum": ["a"]}, {"enum": ["b"]}]}},
        "additionalProperties": False,
        "anyOf": [{"properties": {"task": {"pattern": f"^{name}$"}}} for name in names],
    }
    schema = {"type": "object", "properties": {"steps": {"type": "array", "items": {"$ref": "#/$defs/task"}}}, "$defs": {"task": task}}
    out = generate(tmp_path, {"pipeline.json": schema}, capsys)
    source = (out / "python" / "pipeline.py").read_text(encoding="utf-8")
    assert source.count("(StrEnum):") <= 2 * n  # once per enum, not once per enum and branch (n * n = 144)
    model = root_model(import_models(out, "many_branches"), "pipeline")
    document = {"steps": [{"task": "T3@1", "name": "b"}, {"task": "T11@1"}]}
    assert round_trip(model, document) == document
    for wrong in ({"task": "T3@2"}, {"task": "T3@1", "name": "c"}, {"task": "T3@1", "other": 1}):
        with pytest.raises(ValidationError):
            model.model_validate({"steps": [wrong]})


def test_older_draft_ref_into_an_upgraded_keyword(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The test collection's "relative pointer ref to array" (draft-04 to 2019-09): ``#/items/0`` names the first
    member of an array ``items``, which the upgrade rewrites to ``prefixItems``; the reference follows it."""
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}, {"$ref": "#/items/0"}]}
    model = root_model(import_models(generate(tmp_path, {"schema.json": schema}, capsys), "items_pointer"), "schema")
    assert round_trip(model, [1, 2]) == [1, 2]
    with pytest.raises(ValidationError):
        model.model_validate([1, "foo"])


def test_a_format_without_type_leaves_other_values_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The test collection's optional ``{"format": "hostname"}``: "all string formats ignore integers". DCG typed it
    as ``Any`` under a ``pattern``, which pydantic cannot apply to 12 (a TypeError, not a verdict)."""
    model = root_model(import_models(generate(tmp_path, {"schema.json": {"format": "hostname"}}, capsys), "format_untyped"), "schema")
    for document in (12, 1.5, None, ["a"], {"a": 1}, "example.com"):
        assert round_trip(model, document) == document
    with pytest.raises(ValidationError):
        model.model_validate("-not-a-host-")
