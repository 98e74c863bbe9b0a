"""Hostile columnar exports (issue 39): ``import --from parquet|arrow`` checks every table against the generated
Arrow schema (columns, types, spec version) and its rows against their keys before it trusts them, never sizes an
allocation from a count the file claims, and writes nothing but whole, strict JSON — or refuses with exit 2 and an
``IMPORT_*`` code, writing nothing.

Each case runs the console script in a child process under a 4 GB address-space cap (a broken reader allocating
from a claimed row count fails there, in the child, not on the machine)."""

from __future__ import annotations

import json
import resource
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "spec/examples/resultset-multi-attempt.json"
CAP = 4_000_000_000


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "evalschema", *argv], capture_output=True, text=True, timeout=120, preexec_fn=_capped, check=False
    )


def _export(tmp_path: Path, fmt: str = "parquet", *sources: Path) -> Path:
    folder = tmp_path / "cols"
    done = _cli("export", "--to", fmt, "-o", str(folder), *(str(s) for s in (sources or (EXAMPLE,))))
    assert done.returncode == 0, done.stderr
    return folder


def _rewrite(folder: Path, name: str, change: Callable[[pa.Table], pa.Table]) -> None:
    path = folder / f"{name}.parquet"
    table = pq.read_table(path)
    pq.write_table(change(table), path)


def _set_column(table: pa.Table, name: str, values: pa.Array) -> pa.Table:
    at = table.schema.get_field_index(name)
    return table.set_column(at, pa.field(name, values.type, nullable=table.schema.field(name).nullable), values)


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)


def _claim_rows(path: Path, real: int, claimed: int) -> None:
    """Patch the Parquet footer (Thrift compact: i64 as a zigzag varint) so every count of ``real`` rows says
    ``claimed``: the data pages still hold ``real``."""
    data = path.read_bytes()
    (length,) = struct.unpack("<I", data[-8:-4])
    footer = data[-8 - length : -8]
    old, new = _varint(real << 1), _varint(claimed << 1)
    assert footer.count(old) >= 2
    footer = footer.replace(old, new)
    path.write_bytes(data[: -8 - length] + footer + struct.pack("<I", len(footer)) + b"PAR1")


def _import(tmp_path: Path, folder: Path, fmt: str = "parquet") -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "back.jsonl"
    return _cli("import", "--from", fmt, "--format", "json", "-o", str(out), str(folder)), out


def _refused(done: subprocess.CompletedProcess[str], out: Path, code: str) -> dict[str, Any]:
    assert "Traceback" not in done.stderr + done.stdout
    assert done.returncode == 2, (done.returncode, done.stderr)
    error: dict[str, Any] = json.loads(done.stdout)["error"]
    assert error["code"] == code, error
    assert not out.exists()
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".") or p.name.startswith("back")] == []
    return error


def test_run_index_as_strings_is_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    _rewrite(folder, "results", lambda t: _set_column(t, "run_index", pa.array([str(v) for v in t["run_index"].to_pylist()])))
    error = _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")
    assert "results.parquet: column run_index is string, not int64" in error["message"]


def test_rows_out_of_order_are_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    _rewrite(folder, "results", lambda t: t.take(list(range(t.num_rows))[::-1]))
    error = _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")
    assert "out of key order" in error["message"]


def test_a_duplicate_result_row_is_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    _rewrite(folder, "results", lambda t: pa.concat_tables([t.slice(0, 1), t]))
    assert "out of key order" in _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")["message"]


def test_rows_of_a_run_that_is_not_there_are_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    _rewrite(folder, "grader_results", lambda t: _set_column(t, "run_index", pa.array([7] * t.num_rows, pa.int64())))
    assert "out of key order" in _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")["message"]


def test_nan_inside_json_is_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    _rewrite(folder, "runs", lambda t: _set_column(t, "_json", pa.array(['{"version": NaN}'] * t.num_rows)))
    error = _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")
    assert "runs (run_index 0): INVALID_JSON" in error["message"]


def test_nan_in_a_number_column_is_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    _rewrite(folder, "grader_results", lambda t: _set_column(t, "score", pa.array([float("nan")] * t.num_rows)))
    error = _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")
    assert "nan is not a JSON number" in error["message"]


def test_a_missing_column_is_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    _rewrite(folder, "results", lambda t: t.drop_columns(["result_index"]))
    error = _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")
    assert "results.parquet: no column result_index" in error["message"]


def test_a_missing_table_is_refused(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    (folder / "grader_results.parquet").unlink()
    assert "grader_results.parquet: missing" in _refused(*_import(tmp_path, folder), "IMPORT_NOT_FORMAT")["message"]


def test_a_row_group_claiming_2_to_the_40_rows_is_refused_without_allocating_for_them(tmp_path: Path) -> None:
    base = json.loads(EXAMPLE.read_text("utf-8"))
    source = tmp_path / "many.json"
    rows = 1237  # a count whose varint (two bytes) is met in the footer only where it counts rows
    # copies of the rows, each copy its own test cases: a valid result set (an export validates before use)
    width = len(base["results"])
    copies = [{**row, "test_case_id": f"{row['test_case_id']}-{n // width}"} for n, row in enumerate((base["results"] * rows)[:rows])]
    source.write_text(json.dumps({k: v for k, v in base.items() if k != "summary"} | {"results": copies}), "utf-8")
    folder = _export(tmp_path, "parquet", source)
    _claim_rows(folder / "results.parquet", rows, 2**40)
    assert pq.ParquetFile(folder / "results.parquet").metadata.row_group(0).num_rows == 2**40
    error = _refused(*_import(tmp_path, folder), "IMPORT_UNREADABLE")
    assert f"row group 0 claims {2**40} rows and holds {rows}" in error["message"]


@pytest.mark.parametrize("fmt", ["parquet", "arrow"])
def test_a_newer_spec_version_is_refused(tmp_path: Path, fmt: str) -> None:
    folder = _export(tmp_path, fmt)
    path = folder / f"runs.{fmt}"
    if fmt == "parquet":
        table = pq.read_table(path)
    else:
        with ipc.open_file(path) as reader:
            table = reader.read_all()
    table = table.replace_schema_metadata({**table.schema.metadata, b"evalschema.spec_version": b"9.0.0"})
    if fmt == "parquet":
        pq.write_table(table, path)
    else:
        with ipc.new_file(path, table.schema) as writer:
            writer.write_table(table)
    error = _refused(*_import(tmp_path, folder, fmt), "IMPORT_VERSION_UNSUPPORTED")
    assert "VERSION_UNSUPPORTED: written for spec 9.0.0" in error["message"]


def test_an_export_of_no_result_set_is_refused_not_a_lone_newline(tmp_path: Path) -> None:
    empty = tmp_path / "none.jsonl"
    empty.write_bytes(b"")
    folder = _export(tmp_path, "parquet", empty)
    _refused(*_import(tmp_path, folder), "IMPORT_EMPTY")


def test_a_sound_export_still_reads_back(tmp_path: Path) -> None:
    folder = _export(tmp_path)
    done, out = _import(tmp_path, folder)
    assert done.returncode == 0, done.stderr
    assert out.read_text("utf-8") == json.dumps(json.loads(EXAMPLE.read_text("utf-8")), ensure_ascii=False) + "\n"


@pytest.mark.parametrize(
    ("table", "text"), [("runs", '{"version": "1.1.0"}'), ("results", '{"attempt": "x"}'), ("runs", '{"version": "\\ud800"}')]
)
def test_a_json_column_that_makes_an_invalid_result_set_is_refused(tmp_path: Path, table: str, text: str) -> None:
    """``_json`` holds what the typed columns could not: a producer can make it say anything JSON says. What the
    import would write is validated first, as every importer's output is (it was written with exit 0)."""
    folder = _export(tmp_path)
    _rewrite(folder, table, lambda t: _set_column(t, "_json", pa.array([text] * t.num_rows)))
    error = _refused(*_import(tmp_path, folder), "IMPORT_INVALID_OUTPUT")
    assert "the converted result set on line 1 of back.jsonl would not be valid" in error["message"], error
    assert "REQUIRED_FIELD" in error["message"], error


def test_several_result_sets_are_each_validated_in_their_own_bytes(tmp_path: Path) -> None:
    """Two result sets, the second made invalid: refused, naming its line; the sound pair still reads back."""
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**json.loads(EXAMPLE.read_text("utf-8")), "run_id": "second"}), "utf-8")
    folder = _export(tmp_path, "parquet", EXAMPLE, other)
    done, out = _import(tmp_path, folder)
    assert done.returncode == 0, done.stderr
    assert len(out.read_text("utf-8").splitlines()) == 2
    out.unlink()
    _rewrite(folder, "runs", lambda t: _set_column(t, "_json", pa.array([None, '{"run_id": 7}'], pa.string())))
    error = _refused(*_import(tmp_path, folder), "IMPORT_INVALID_OUTPUT")
    assert "on line 2 of back.jsonl" in error["message"], error
