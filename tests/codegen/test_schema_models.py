"""Issue 41: a generated Python model accepts exactly what its schema accepts (R1, R5–R8), in each way values
enter it — ``model_validate``, ``model_validate_json``, construction in code — and dumps the document back."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from pydantic import ValidationError
from test_defects import generate, import_models, root_model, tsc
from test_formats import stamps
from tools import missing_tool

from evalschema.core import rfc3339


def model_of(tmp_path: Path, schema: Any, name: str) -> Any:
    return root_model(import_models(generate(tmp_path, {f"{name}.json": schema}), name), name)


def accepts(model: Any, document: Any) -> bool:
    try:
        built = model.model_validate(document)
    except ValidationError:
        return False
    assert built.model_dump(mode="json") == document  # what the schema accepts round-trips
    return True


NUMBERS = {
    "type": "object",
    "properties": {
        "n": {"type": "integer"},
        "flag": {"const": False},
        "tag": {"enum": [1, "a"]},
        "x-y": {"type": "string", "minLength": 2},
    },
    "additionalProperties": False,
}


def test_r6_json_number_model_and_equality(tmp_path: Path) -> None:
    model = model_of(tmp_path, NUMBERS, "numbers")
    assert [accepts(model, {"n": n}) for n in ("1", True, 1.5, 1)] == [False, False, False, True]
    assert model.model_validate({"n": 1.0}).n == 1  # 1.0 is an integer in JSON Schema's number model
    assert [accepts(model, {"flag": v}) for v in (0, False, None)] == [False, True, False]
    assert [accepts(model, {"tag": v}) for v in (True, 1, "a", 1.0)] == [False, True, True, True]  # 1.0 equals 1 in JSON


def test_r6_construction_in_code_and_json_entry(tmp_path: Path) -> None:
    model = model_of(tmp_path, NUMBERS, "numbers")
    with pytest.raises(ValidationError) as caught:
        model(n="1")
    assert caught.value.errors()[0]["loc"] == ("n",)
    with pytest.raises(ValidationError):
        model(x_y="a")  # by field name: checked as the document it stands for ("x-y")
    built = model(n=3, x_y="ab")
    assert built.model_dump(mode="json") == {"n": 3, "x-y": "ab"}
    with pytest.raises(ValidationError):
        model.model_validate_json('{"n": true}')
    assert model.model_validate_json('{"n": 2, "tag": "a"}').model_dump(mode="json") == {"n": 2, "tag": "a"}


def test_r7_constraints_without_type_are_enforced(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"minimum": 10}, "bare")
    assert [accepts(model, v) for v in (5, 10, "text")] == [False, True, True]
    nested = model_of(tmp_path / "n", {"type": "object", "properties": {"p": {"minLength": 2}}}, "nested")
    assert [accepts(nested, {"p": v}) for v in ("a", "ab", 7)] == [False, True, True]


def test_r8_one_of_is_exclusive(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"oneOf": [{"type": "integer"}, {"minimum": 2}]}, "one")
    assert [accepts(model, v) for v in (1, 2.5, 3)] == [True, True, False]


def test_r1_an_optional_property_of_type_null(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"type": "object", "properties": {"nothing": {"type": "null"}}}, "nulls")
    assert [accepts(model, d) for d in ({}, {"nothing": None}, {"nothing": 0})] == [True, True, False]


def test_ref_beside_properties_to_an_embedded_resource(tmp_path: Path) -> None:
    schema = {
        "$id": "https://example.org/thing.json",
        "$ref": "https://example.org/base.json",
        "properties": {"name": {"type": "string"}},
        "$defs": {"base": {"$id": "https://example.org/base.json", "required": ["id"], "properties": {"id": {"type": "string"}}}},
    }
    model = model_of(tmp_path, schema, "thing")
    assert [accepts(model, d) for d in ({"name": "a"}, {"id": 1}, {"id": "x", "name": "a"})] == [False, False, True]


def test_nested_models_are_checked_by_the_outer_schema(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {
            "inner": {"$ref": "#/$defs/Inner"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Inner"}, "uniqueItems": True},
        },
        "$defs": {"Inner": {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}},
    }
    models = import_models(generate(tmp_path, {"outer.json": schema}), "outer")
    outer, inner = root_model(models, "outer"), models.outer.Inner
    assert outer(inner=inner(a=1)).model_dump(mode="json") == {"inner": {"a": 1}}
    with pytest.raises(ValidationError):
        outer(inner={"a": "1"})
    with pytest.raises(ValidationError):
        outer.model_validate({"items": [{"a": 1}, {"a": 1.0}]})  # equal as JSON: not unique
    document = {"inner": {"a": 2}, "items": [{"a": 1}, {"a": 2}]}
    assert json.loads(outer.model_validate_json(json.dumps(document)).model_dump_json()) == document


def test_r10_boolean_schemas(tmp_path: Path) -> None:
    values = (1, "a", None, {"a": 1}, [True])
    anything = model_of(tmp_path / "t", True, "anything")
    nothing = model_of(tmp_path / "f", False, "nothing")
    assert [accepts(anything, v) for v in values] == [True] * 5
    assert [accepts(nothing, v) for v in values] == [False] * 5
    some_false = model_of(tmp_path / "a", {"allOf": [True, False]}, "some_false")
    assert [accepts(some_false, v) for v in values] == [False] * 5
    one_of = model_of(tmp_path / "o", {"oneOf": [False, {"type": "integer"}, True]}, "one_of")
    assert [accepts(one_of, v) for v in values] == [False, True, True, True, True]


def test_r2_a_pattern_pydantic_cannot_compile(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"var": {"type": "string", "pattern": "\\$\\w{1,255}"}}}  # GitLab CI's
    model = model_of(tmp_path, schema, "patterns")  # imports: the class is created (pydantic-core's regex is over its size limit)
    assert [accepts(model, {"var": v}) for v in ("$abc", "abc")] == [True, False]


def test_r3_no_absolute_path_of_the_checkout_in_any_output(tmp_path: Path) -> None:
    schema = {"title": "Thing", "type": "object", "properties": {"a": {"type": "string"}}}  # no $id
    out = generate(tmp_path, {"thing.json": schema})
    leaks = [
        str(path.relative_to(out))
        for path in sorted(out.rglob("*"))
        if path.is_file()
        and (
            str(tmp_path) in path.read_text(encoding="utf-8", errors="replace")
            or "file://" in path.read_text(encoding="utf-8", errors="replace")
        )
    ]
    assert leaks == []


def test_r4_a_name_go_cannot_tag_does_not_stop_the_other_targets(tmp_path: Path) -> None:
    schema = {"title": "Odd", "type": "object", "properties": {'foo"bar': {"type": "string"}, "ok": {"type": "integer"}}}
    out = generate(tmp_path, {"odd.json": schema})
    go = (out / "go" / "odd.gen.go").read_text(encoding="utf-8")
    assert '// Member "foo\\"bar" is kept in AdditionalProperties: no encoding/json tag can spell its name.' in go
    assert '`json:"ok,omitempty"`' in go and "foo" not in go.split("type Odd struct {", 1)[1].split("}", 1)[0]
    model = root_model(import_models(out, "odd"), "odd")
    assert [accepts(model, d) for d in ({'foo"bar': "x", "ok": 1}, {'foo"bar': 1})] == [True, False]
    assert (out / "typescript" / "odd.ts").is_file()


def test_r4_the_untaggable_member_round_trips_through_go(tmp_path: Path) -> None:
    if shutil.which("go") is None:
        missing_tool("go not installed (.ci/run installs golang-go)")
    schema = {"title": "Odd", "type": "object", "properties": {'foo"bar': {"type": "string"}, "ok": {"type": "integer"}}}
    out = generate(tmp_path, {"odd.json": schema})
    (module,) = [line.split()[1] for line in (out / "go" / "go.mod").read_text(encoding="utf-8").splitlines() if line.startswith("module ")]
    data = tmp_path / "data" / module / "odd.json"
    data.mkdir(parents=True)
    (data / "doc.json").write_text(json.dumps({'foo"bar': "x", "ok": 1}), encoding="utf-8")
    env = {
        **os.environ,
        "GOWORK": "off",
        "GOPROXY": "off",
        "GOFLAGS": "",
        "GOTOOLCHAIN": "local",
        "CODEGEN_ROUNDTRIP_DIR": str(tmp_path / "data"),
    }
    proc = subprocess.run(["go", "test", "-count=1", "-v", "./..."], cwd=out / "go", env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0 and "--- PASS: TestRoundTrip" in proc.stdout, proc.stdout + proc.stderr  # it fails on no document


def test_text_that_is_not_json_is_a_validation_error(tmp_path: Path) -> None:
    model = model_of(tmp_path, NUMBERS, "numbers")
    for text in ('{"n": 1', "", b"\xff"):
        with pytest.raises(ValidationError) as caught:
            model.model_validate_json(text)
        assert caught.value.errors()[0]["type"] == "json_invalid"


def test_values_no_json_document_holds_are_validation_errors(tmp_path: Path) -> None:
    model = model_of(tmp_path, {"type": "object", "properties": {"x": {"type": "number"}}}, "values")
    for bad in ({"x": float("nan")}, {"x": {1, 2}}, {"x": object()}):
        with pytest.raises(ValidationError):
            model.model_validate(bad)
        with pytest.raises(ValidationError):
            model(**bad)
    with pytest.raises(ValidationError):
        model.model_validate_json('{"x": NaN}')


def test_draft_04_and_06_inputs(tmp_path: Path) -> None:
    """draft-04's ``id``, ``id: "#name"`` anchors and boolean ``exclusiveMaximum``; draft-06 like draft-07."""
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "id": "https://example.org/nb.json",
        "type": "object",
        "properties": {
            "n": {"type": "number", "maximum": 5, "exclusiveMaximum": True, "minimum": 1, "exclusiveMinimum": False},
            "cell": {"$ref": "#cell"},
        },
        "dependencies": {"n": ["cell"]},
        "definitions": {"cell": {"id": "#cell", "type": "string", "minLength": 1}},
    }
    model = model_of(tmp_path / "4", draft4, "nb")
    documents = ({"n": 4.5, "cell": "a"}, {"n": 5, "cell": "a"}, {"n": 1, "cell": "a"}, {"n": 2}, {"cell": ""})
    assert [accepts(model, d) for d in documents] == [True, False, True, False, False]
    draft6 = {
        "$schema": "http://json-schema.org/draft-06/schema#",
        "type": "array",
        "items": [{"type": "string"}],
        "additionalItems": False,
    }
    model = model_of(tmp_path / "6", draft6, "tuple")
    assert [accepts(model, d) for d in (["a"], ["a", "b"], [1])] == [True, False, False]


@functools.cache
def _formats_model() -> Any:
    """One model with a date-time and a date member, generated once for every example below."""
    schema = {"type": "object", "properties": {"t": {"type": "string", "format": "date-time"}, "d": {"type": "string", "format": "date"}}}
    return model_of(Path(tempfile.mkdtemp(prefix="codegen-formats-")), schema, "formats")


@settings(max_examples=1500, deadline=None)
@given(stamps)
def test_the_models_formats_are_the_specs(value: str) -> None:
    """Formats as the SPEC defines them (RFC 3339, ``evalschema.core.rfc3339``): the generated runtime asserts
    jsonschema-rs's own checks, which must agree on every timestamp and date the format tests generate."""
    model = _formats_model()
    assert accepts(model, {"t": value}) == rfc3339.is_date_time(value), value
    assert accepts(model, {"d": value[:10]}) == rfc3339.is_date(value[:10]), value[:10]


def test_r10_a_ref_to_a_boolean_definition(tmp_path: Path) -> None:
    values: tuple[Any, ...] = ({}, 1, None)
    never = model_of(tmp_path / "n", {"allOf": [{"$ref": "#/$defs/never"}], "$defs": {"never": False}}, "refused")
    assert [accepts(never, v) for v in values] == [False, False, False]
    always = model_of(tmp_path / "a", {"allOf": [{"$ref": "#/$defs/always"}], "$defs": {"always": True}}, "accepted")
    assert [accepts(always, v) for v in values] == [True, True, True]


def test_r10_boolean_files_type_check_in_typescript(tmp_path: Path) -> None:
    out = generate(tmp_path, {"anything.json": True, "nothing.json": False, "empty.json": {}})
    proc = tsc(out / "typescript")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "export type Anything = unknown;" in (out / "typescript" / "anything.ts").read_text(encoding="utf-8")


def test_typing_pauses_the_cycle_collector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pydantic types a document that passed its schema with the cyclic collector paused (``_base._Typing``: each
    collection its allocations trigger walks the whole heap), in every entry, and leaves it as it found it."""
    import gc

    from pydantic import BaseModel, RootModel

    schema = {
        "type": "object",
        "properties": {"rows": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}},
    }
    model = model_of(tmp_path, schema, "paused")
    seen: list[bool] = []
    validate, init = BaseModel.model_validate.__func__, BaseModel.__init__  # type: ignore[attr-defined]

    def recording_validate(cls: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return validate(cls, *args, **kwargs)

    def recording_init(self: Any, **data: Any) -> None:
        seen.append(gc.isenabled())
        init(self, **data)

    monkeypatch.setattr(BaseModel, "model_validate", classmethod(recording_validate))
    monkeypatch.setattr(BaseModel, "__init__", recording_init)
    monkeypatch.setattr(RootModel, "model_validate", classmethod(recording_validate))
    document = {"rows": [{"n": 1}, {"n": 2}]}
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            seen.clear()
            model.model_validate(document)
            model.model_validate_json(json.dumps(document))
            model(**document)
            assert seen == [False, False, False]
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
