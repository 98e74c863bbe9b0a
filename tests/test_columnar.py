"""Columnar result sets: the generated Arrow schema (codegen's ``arrow`` target: what maps, what is refused), and
Parquet / Arrow exports that read back to the identical result set for every example and conformance fixture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from codegen.ir import build
from codegen.load import SchemaError, load
from codegen.targets import arrow as arrow_target
from evalschema import cli, columnar, pipeline
from evalschema.schemas.registry import spec_version

ROOT = Path(__file__).resolve().parents[1]


def _resultsets() -> list[tuple[str, dict[str, Any]]]:
    out = [(p.name, json.loads(p.read_text("utf-8"))) for p in sorted((ROOT / "spec/examples").glob("resultset*.json"))]
    for path in sorted((ROOT / "spec/conformance").glob("*.json")):
        document = json.loads(path.read_text("utf-8"))["document"]
        if isinstance(document, dict) and "results" in document:
            out.append((path.name, document))
    return out


RESULTSETS = _resultsets()


def _schema_folder(tmp_path: Path, defs: dict[str, Any], root: dict[str, Any]) -> Path:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.org/item.json", "$defs": defs, **root}
    (tmp_path / "item.json").write_text(json.dumps(schema), "utf-8")
    return tmp_path


def test_the_generic_mapping(tmp_path: Path) -> None:
    defs = {
        "Colour": {"enum": ["red", "green"]},
        "Stamp": {"type": "string", "format": "date-time"},
        "Free": {"type": "object"},
        "Open": {"type": "object", "properties": {"known": {"type": "string"}}},  # declares a key, allows any other
        "Part": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"], "additionalProperties": False},
    }
    root = {
        "type": "object",
        "additionalProperties": False,
        "required": ["id"],
        "properties": {
            "id": {"type": "string"},
            "at": {"$ref": "#/$defs/Stamp"},
            "colour": {"$ref": "#/$defs/Colour"},
            "size": {"type": ["number", "null"]},
            "code": {"type": ["string", "integer"]},
            "parts": {"type": "array", "items": {"$ref": "#/$defs/Part"}},
            "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
            "extra": {"$ref": "#/$defs/Free"},
            "meta": {"$ref": "#/$defs/Open"},
        },
    }
    tree = arrow_target.schema_of(build(load(_schema_folder(tmp_path, defs, root))), "item.json")
    kinds = {f["name"]: f["type"]["kind"] for f in tree["fields"]}
    assert kinds == {
        "id": "utf8", "at": "utf8", "at__timestamp": "timestamp", "colour": "dictionary", "size": "float64",
        "code": "json", "parts": "list", "counts": "map", "extra": "json", "meta": "json",
    }  # fmt: skip
    by_name = {f["name"]: f for f in tree["fields"]}
    assert by_name["id"]["nullable"] is False and by_name["size"]["nullable"] is True
    assert by_name["colour"]["type"]["values"] == ["red", "green"]
    assert by_name["parts"]["type"]["item"]["type"] == {
        "kind": "struct",
        "fields": [{"name": "n", "nullable": False, "type": {"kind": "int64"}, "required": True, "null": False}],
    }


@pytest.mark.parametrize(
    ("defs", "prop", "message"),
    [
        ({}, {"type": "array", "prefixItems": [{"type": "string"}], "items": False}, "tuple has no column type"),
        ({"A": {"type": "object", "properties": {"a": {"type": "string"}}}, "B": {"type": "object", "properties": {"b": {"type": "integer"}}}},
         {"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, "a union of 2 non-scalar types"),
        ({"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}, "additionalProperties": False}},
         {"$ref": "#/$defs/Node"}, "recursive type"),
        ({}, {"enum": [1, 2]}, "an enum of values other than strings"),
    ],
)  # fmt: skip
def test_what_does_not_map_is_refused_with_its_location(tmp_path: Path, defs: dict[str, Any], prop: dict[str, Any], message: str) -> None:
    root = {"type": "object", "properties": {"id": {"type": "string"}, "odd": prop}}
    ir = build(load(_schema_folder(tmp_path, defs, root)))
    with pytest.raises(SchemaError, match=message) as refused:
        arrow_target.schema_of(ir, "item.json")
    assert refused.value.file == "item.json"
    assert refused.value.pointer.startswith("/properties/odd") or refused.value.pointer.startswith("/$defs/")


def test_the_committed_arrow_schema_is_the_generated_one() -> None:
    ir = build(load(ROOT / "schemas"))
    assert columnar.arrow_tree() == arrow_target.schema_of(ir, "resultset.json")


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_every_example_and_fixture_round_trips(fmt: str, tmp_path: Path) -> None:
    assert len(RESULTSETS) > 80
    typed = 0
    for index, (name, document) in enumerate(RESULTSETS):
        folder = tmp_path / f"out{index}"
        writer = columnar.Writer(folder, fmt)
        writer.write(document)
        writer.close()
        back = list(columnar.read(folder))
        assert [json.dumps(d, ensure_ascii=False) for d in back] == [json.dumps(document, ensure_ascii=False)], name
        if fmt == "parquet":
            results = pq.read_table(folder / "results.parquet")
            typed += results.column("_json").null_count  # rows rebuilt from their typed columns alone
    if fmt == "parquet":
        assert typed >= 110  # of 189 rows: the columns carry the data (fixtures made invalid on purpose keep _json)


def test_examples_are_typed_columns_with_metadata(tmp_path: Path) -> None:
    document = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))
    writer = columnar.Writer(tmp_path / "out")
    writer.write(document)
    writer.close()
    results = pq.read_table(tmp_path / "out/results.parquet")
    graders = pq.read_table(tmp_path / "out/grader_results.parquet")
    assert results.column("_json").null_count == results.num_rows == len(document["results"])
    assert graders.num_rows == sum(len(r["grader_results"]) for r in document["results"])
    assert graders.column("score").to_pylist() == [g["score"] for r in document["results"] for g in r["grader_results"]]
    assert (
        str(graders.schema.field("type").type) == "dictionary<values=string, indices=int32, ordered=0>"
        or graders.schema.field("type").type == "string"
    )
    runs = pq.read_table(tmp_path / "out/runs.parquet")
    assert runs.column("started_at__timestamp").to_pylist()[0].isoformat() == "2026-11-29T10:01:10+00:00"
    metadata = pq.read_schema(tmp_path / "out/results.parquet").metadata
    assert metadata[b"evalschema.spec_version"] == spec_version().encode()
    assert metadata[b"evalschema.arrow_schema_sha256"] == columnar.fingerprint().encode()


def test_the_command_streams_in_row_groups_and_reads_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(columnar, "BATCH", 7)
    monkeypatch.setattr("evalschema.io.stream.BATCH_ROWS", 5, raising=False)
    base = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))
    # 20 copies of the rows, each copy its own test cases: a valid result set (an export validates before use)
    rows = [{**row, "test_case_id": f"{row['test_case_id']}-{copy}"} for copy in range(20) for row in base["results"]]
    big = {k: v for k, v in base.items() if k != "summary"} | {"results": rows}
    source = tmp_path / "big.resultset.json"
    source.write_text(json.dumps(big, indent=2), "utf-8")
    assert cli.main(["export", "--to", "parquet", "-o", str(tmp_path / "cols"), str(source)]) == 0
    assert pq.ParquetFile(tmp_path / "cols/results.parquet").num_row_groups > 1
    assert cli.main(["import", "--from", "parquet", "-o", str(tmp_path / "back.json"), str(tmp_path / "cols")]) == 0
    assert json.loads((tmp_path / "back.json").read_text("utf-8")) == big
    assert (tmp_path / "back.json").read_text("utf-8") == json.dumps(big, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("form", ["json", "jsonl"])
def test_an_invalid_result_set_is_refused_with_its_findings_unless_forced(
    form: str, stream: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Validated before use: a score of 95 on a 0-1 scale is not exported (exit 1, the findings as validate prints
    them, nothing written); --force exports it under a banner and the status stays 1."""
    if stream:
        monkeypatch.setattr(pipeline, "STREAM_THRESHOLD", 1)
    bad = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))
    bad["results"][1]["grader_results"][0]["score"] = 95
    bad.pop("summary", None)
    source = tmp_path / f"bad.resultset.{form}"
    source.write_text(json.dumps(bad) + ("\n" if form == "jsonl" else ""), "utf-8")
    out = tmp_path / "cols"
    assert cli.main(["export", "--to", "parquet", "-o", str(out), str(source)]) == 1
    err = capsys.readouterr().err
    assert "OUT_OF_RANGE" in err and "/results/1/grader_results/0/score" in err and "nothing was written" in err, err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [source.name]
    assert cli.main(["export", "--to", "parquet", "--force", "-o", str(out), str(source)]) == 1
    assert "exported anyway (--force)" in capsys.readouterr().err
    assert pq.ParquetFile(out / "results.parquet").metadata.num_rows == len(bad["results"])


def test_bad_input_is_refused_and_nothing_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "1.1.0", "results": [\n  {"a": 1},\n  {"b": }\n]}', "utf-8")
    assert cli.main(["export", "--to", "parquet", "-o", str(tmp_path / "cols"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json:3: EXPORT_INPUT_INVALID: INVALID_JSON: " in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]
    (tmp_path / "cols").mkdir()
    assert (
        cli.main(["export", "--to", "arrow", "-o", str(tmp_path / "cols"), str(ROOT / "spec/examples/resultset-multi-attempt.json")]) == 2
    )
    assert "exists" in capsys.readouterr().err


def _mutations(result: dict[str, Any]) -> list[Any]:
    """The row, and rows a little off what the columns can say (or just inside it)."""
    out: list[Any] = [result, list(result), None]
    keys = list(result)
    out.append(dict(reversed(list(result.items()))))  # another property order
    out.append({**result, "undeclared": 1})
    for key in keys:
        value = result[key]
        out.append({k: v for k, v in result.items() if k != key})  # absent
        out.append({**result, key: None})  # null
        out.append({**result, key: 1 if not isinstance(value, int) else 1.0})  # another number type
        out.append({**result, key: True})
        out.append({**result, key: 2**70})
        out.append({**result, key: "\ud800"})
    graders = result.get("grader_results")
    if isinstance(graders, list) and graders and isinstance(graders[0], dict):
        first = graders[0]
        for variant in (
            {**first, "score": 1},
            {**first, "score": None},
            {k: v for k, v in first.items() if k != "score"},
            {**first, "metadata": {"n": 2**70, "s": "\ud800"}},
            dict(reversed(list(first.items()))),
            {**first, "passed": 0},
        ):
            out.append({**result, "grader_results": [variant, *graders[1:]]})
    out.append({**result, "error": {"type": "timeout", "message": "m", "code": 7, "retryable": False}})
    out.append({**result, "error": {"type": "timeout", "code": None}})
    out.append({**result, "constraint_violations": [None]})
    out.append({**result, "constraint_violations": [{"id": "c", "invalidates_result": True, "detail": 3}]})
    out.append({**result, "metadata": {"a": [1, 1.0, None, {"b": "\u00e9"}]}})
    return out


def _as_arrow(writer: columnar.Writer, columns: tuple[Any, ...], graders: list[tuple[Any, ...]]) -> list[Any]:
    """A result's column values as Arrow holds them (an absent struct field and a null one are the same there)."""
    out: list[Any] = writer._batch("results", [[0], [0], *([c] for c in columns), [None]]).to_pylist()
    return out + [writer._batch("grader_results", [[0], [0], [0], *([c] for c in g)]).to_pylist() for g in graders]


def test_the_fast_path_agrees_with_the_general_one(tmp_path: Path) -> None:
    """Every row of every example and fixture, and rows a little off each: the generated fast path gives the
    general path's columns whenever it takes a row, and takes every row whose columns say it all."""
    writer = columnar.Writer(tmp_path / "out")
    fast = columnar.fast_path()
    taken = general_exact = 0
    for _, document in RESULTSETS:
        for result in document.get("results") or []:
            for row in _mutations(result) if isinstance(result, dict) else [result]:
                columns, graders, text = writer._general(row)
                got = fast(row)
                if text is None:
                    general_exact += 1
                    assert got is not columnar._NO, row  # an exact row is never left to the general path
                if got is not columnar._NO:
                    taken += 1
                    assert text is None, row
                    if columnar._encodable(row):
                        assert _as_arrow(writer, *got) == _as_arrow(writer, columns, graders), row
                    else:  # Arrow cannot hold it: the writer's second pass keeps the row as escaped JSON
                        with pytest.raises(UnicodeEncodeError):
                            _as_arrow(writer, *got)
    writer.abandon()
    assert taken == general_exact > 1000


def test_a_lone_surrogate_keeps_its_row_as_escaped_json(tmp_path: Path) -> None:
    base = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))
    document = {**base, "run_id": "run-\udc80", "results": [*base["results"], {**base["results"][0], "actual_output": "x\ud800y"}]}
    writer = columnar.Writer(tmp_path / "out")
    writer.write(document)
    writer.close()
    (back,) = columnar.read(tmp_path / "out")
    assert json.dumps(back) == json.dumps(document)
    results = pq.read_table(tmp_path / "out/results.parquet")
    assert results.column("_json").null_count == len(base["results"])  # only the row holding the surrogate
