"""The generated pydantic models feel like pydantic (issue 14, item 10): they dump by alias (``$schema``
round-trips), are built from names or aliases, hold plain strings rather than RootModel wrappers, carry the
descriptions in ``model_json_schema()``, have ``None`` for what a document left out, and ``validate()`` takes them.
Every valid fixture and example goes document → model → ``model_dump(mode="json")`` → ``validate`` unchanged."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import evalschema_models.grader
import evalschema_models.pack
import evalschema_models.resultset
import evalschema_models.suite
import evalschema_models.testcase
from evalschema import validate
from evalschema.schemas.identify import identify

ROOT = Path(__file__).resolve().parents[1]
MODELS: dict[str, Any] = {
    "testcase": evalschema_models.testcase.TestCase,
    "grader": evalschema_models.grader.Grader,
    "suite": evalschema_models.suite.Suite,
    "resultset": evalschema_models.resultset.ResultSet,
    "pack": evalschema_models.pack.Pack,
}


def valid_documents() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for path in sorted((ROOT / "spec" / "conformance").glob("*.json")):
        fixture = json.loads(path.read_text())
        options = fixture.get("options", {})
        if fixture["expect"]["valid"] and not options.get("allow_unknown") and isinstance(fixture["document"], dict):
            kind = fixture["kind"] or identify(fixture["document"], None).kind
            if kind is not None:
                out.append((path.stem, kind, fixture["document"]))
    for path in sorted((ROOT / "spec" / "examples").glob("*.json")):
        document = json.loads(path.read_text())
        kind = identify(document, None).kind
        assert kind is not None
        out.append((path.stem, kind, document))
    return out


DOCUMENTS = valid_documents()


@pytest.mark.parametrize("name, kind, document", DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_every_valid_document_round_trips_through_its_model(name: str, kind: str, document: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # deprecated fields still load
        model = MODELS[kind].model_validate(document)
        dumped = model.model_dump(mode="json")
        assert dumped == document
        assert json.loads(model.model_dump_json()) == document
        report = validate(model, kind)
    assert report.errors == () and report == validate(document, kind)


def test_models_are_idiomatic() -> None:
    document = json.loads((ROOT / "spec" / "examples" / "resultset-aobench-rbac.json").read_text())
    ResultSet = evalschema_models.resultset.ResultSet
    rs = ResultSet.model_validate(document)
    assert rs.suite_id == "aobench-ops-agent" and type(rs.suite_id) is str  # not a RootModel wrapper
    assert rs.version == "1.1.0" and rs.started_at == "2026-11-28T14:03:03Z"
    assert rs.group is None and not rs.group and rs.isolation is None  # absent: None, falsy
    assert rs.model_dump_json().startswith('{"$schema":')  # by alias
    built = ResultSet(
        field_schema=document["$schema"], version="1.1.0", suite_id="s", run_id="r", started_at="2026-11-30T09:00:00Z", results=[]
    )
    assert built.model_dump(mode="json") == {
        "$schema": document["$schema"], "version": "1.1.0", "suite_id": "s", "run_id": "r", "started_at": "2026-11-30T09:00:00Z", "results": [],
    }  # fmt: skip
    assert validate(built).valid
    schema = ResultSet.model_json_schema()
    assert schema["properties"]["suite_id"]["description"] == "The `id` of the suite that was run."
    with pytest.raises(ValueError, match="suite_version: null is not allowed here"):
        ResultSet.model_validate({**document, "suite_version": None})  # the schema has no null there
    grader = evalschema_models.grader.Grader.model_validate({"id": "g", "type": "exact_match"})
    assert grader.weight == 1.0 and grader.model_dump(mode="json") == {"id": "g", "type": "exact_match"}  # defaults stay implicit
