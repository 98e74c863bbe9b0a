"""Result sets as columns: Parquet (or Arrow IPC) files whose schema is generated from the JSON Schema
(``generated/arrow/resultset.arrow.json``, the codegen ``arrow`` target), and back.

An export is a folder of three tables, rows keyed back to each other:

- ``runs``: one row per result set — ``run_index`` and the result set's own fields (everything but ``results``);
- ``results``: one row per result — ``run_index``, ``result_index`` and the result's fields but its grader results;
- ``grader_results``: one row per result × grader result — ``run_index``, ``result_index``, ``grader_index`` and the
  grader result's fields.

Round trip. ``read`` gives back each result set equal to the one written *as a JSON value, property order
included*: serialized the same way, the bytes are the same. Columns cannot say everything JSON can (absent vs
``null``, a property order other than the schema's, ``1`` vs ``1.0`` in a number, properties the schema does not
declare, values of the wrong type), so each row of ``runs`` and ``results`` has a ``_json`` column: null when the
row rebuilt from its typed columns is exactly the original (the common case), else the original's JSON text, which
``read`` then uses. A row whose values do not fit their columns at all keeps null typed columns and its ``_json``.

Input is streamed: results are written in row groups of ``BATCH`` rows as they are read (memory: one batch). The
file metadata carries the specification version and the SHA-256 of the generated Arrow schema.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from .extras import require
from .registry import _CHECKOUT, spec_version

BATCH = 8192
TABLES = ("runs", "results", "grader_results")
ROWS, GRADERS, RESIDUAL = "results", "grader_results", "_json"
_UTC = _dt.UTC


class Misfit(ValueError):
    """A value that does not fit its column's type."""


@cache
def arrow_tree() -> dict[str, Any]:
    """The generated Arrow field tree of a result set."""
    from importlib import resources

    bundled = resources.files(__package__) / "_schemas" / "arrow" / "resultset.arrow.json"
    path = bundled if bundled.is_file() else _CHECKOUT / "generated" / "arrow" / "resultset.arrow.json"
    tree: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return tree


def fingerprint() -> str:
    """SHA-256 of the generated Arrow schema (canonical JSON of its field tree)."""
    return hashlib.sha256(json.dumps(arrow_tree(), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# --- JSON values <-> column values --------------------------------------------------------------------------


def _stamp(text: Any) -> _dt.datetime | None:
    if not isinstance(text, str):
        return None
    try:
        moment = _dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.astimezone(_UTC) if moment.tzinfo is not None else None


def _fit(value: Any, node: dict[str, Any]) -> Any:
    """The column value of a JSON value; :class:`Misfit` if it has another type."""
    kind = node["kind"]
    if kind in ("utf8", "dictionary"):
        if isinstance(value, str):
            return value
    elif kind == "int64":
        if type(value) is int and -(2**63) <= value < 2**63:
            return value
    elif kind == "float64":
        if type(value) is float or (type(value) is int and abs(value) <= 2**53):
            return float(value)
    elif kind == "bool":
        if type(value) is bool:
            return value
    elif kind == "json":
        return json.dumps(value, ensure_ascii=False)
    elif kind == "list":
        if isinstance(value, list):
            return [_fit_field(item, node["item"]) for item in value]
    elif kind == "map":
        if isinstance(value, dict):
            return [(key, _fit_field(item, node["value"])) for key, item in value.items()]
    elif kind == "struct" and isinstance(value, dict):
        return _fit_struct(value, node["fields"])
    raise Misfit(kind)


def _fit_field(value: Any, field: dict[str, Any]) -> Any:
    return None if value is None and field["nullable"] else _fit(value, field["type"])


def _fit_struct(value: dict[str, Any], fields: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in fields:
        name, kind = field["name"], field["type"]["kind"]
        if kind == "timestamp":
            out[name] = _stamp(value.get(field["type"]["of"]))
        elif name in value:
            out[name] = _fit_field(value[name], field)
        elif field["nullable"]:
            out[name] = None
        else:
            raise Misfit(name)
    return out


def _unfit(value: Any, node: dict[str, Any]) -> Any:
    """The JSON value of a column value (the inverse of ``_fit`` where the column says enough)."""
    kind = node["kind"]
    if value is None:
        return None
    if kind == "json":
        return json.loads(value)
    if kind == "list":
        return [_unfit(item, node["item"]["type"]) for item in value]
    if kind == "map":
        return {key: _unfit(item, node["value"]["type"]) for key, item in value}
    if kind == "struct":
        return _unfit_struct(value, node["fields"])
    return value


def _unfit_struct(value: dict[str, Any], fields: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in fields:
        name = field["name"]
        if field["type"]["kind"] == "timestamp" or name not in value:
            continue
        item = value[name]
        if item is None and not (field.get("required") and field.get("null")):
            continue  # absent (a null that was written is kept by the row's _json)
        out[name] = _unfit(item, field["type"])
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON texts: types (1 vs 1.0, true vs 1) and property order included."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


# --- the three tables ---------------------------------------------------------------------------------------


def _split(tree: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The fields of the run, of a result (without its grader results) and of a grader result."""
    run = [f for f in tree["fields"] if f["name"] != ROWS]
    (rows,) = [f for f in tree["fields"] if f["name"] == ROWS]
    result_fields = rows["type"]["item"]["type"]["fields"]
    result = [f for f in result_fields if f["name"] != GRADERS]
    (graders,) = [f for f in result_fields if f["name"] == GRADERS]
    return run, result, graders["type"]["item"]["type"]["fields"]


def _keys(*names: str) -> list[dict[str, Any]]:
    return [{"name": name, "nullable": False, "type": {"kind": "int64"}} for name in names]


def table_fields() -> dict[str, list[dict[str, Any]]]:
    """Each table's fields (the generated tree's, with keys and ``_json``)."""
    run, result, grader = _split(arrow_tree())
    residual = [{"name": RESIDUAL, "nullable": True, "type": {"kind": "utf8"}}]
    rows_flag = [{"name": "_results", "nullable": False, "type": {"kind": "bool"}}]
    return {
        "runs": _keys("run_index") + run + residual + rows_flag,
        "results": _keys("run_index", "result_index") + result + residual,
        "grader_results": _keys("run_index", "result_index", "grader_index") + grader,
    }


def arrow_schemas() -> dict[str, Any]:
    """The ``pyarrow.Schema`` of each table, with the spec version and the Arrow schema fingerprint as metadata."""
    require("pyarrow", "columnar", "Parquet and Arrow export")
    import pyarrow as pa

    def arrow_type(node: dict[str, Any]) -> Any:
        kind = node["kind"]
        simple = {"utf8": pa.string(), "int64": pa.int64(), "float64": pa.float64(), "bool": pa.bool_(), "json": pa.string()}
        if kind in simple:
            return simple[kind]
        if kind == "dictionary":
            return pa.dictionary(pa.int32(), pa.string())
        if kind == "timestamp":
            return pa.timestamp(node["unit"], tz=node["tz"])
        if kind == "list":
            return pa.list_(arrow_field(node["item"]))
        if kind == "map":
            return pa.map_(pa.string(), arrow_field(node["value"]))
        if kind == "struct":
            return pa.struct([arrow_field(f) for f in node["fields"]])
        raise ValueError(f"unknown column kind {kind!r}")

    def arrow_field(field: dict[str, Any]) -> Any:
        metadata = {"evalschema.kind": field["type"]["kind"]} if field["type"]["kind"] == "json" else None
        return pa.field(field["name"], arrow_type(field["type"]), nullable=field["nullable"], metadata=metadata)

    metadata = {"evalschema.spec_version": spec_version(), "evalschema.arrow_schema_sha256": fingerprint()}

    def column(field: dict[str, Any]) -> Any:
        # a row whose values do not fit leaves every typed column null (its _json keeps it): only keys are not null
        return arrow_field(field if field["name"].endswith("_index") or field["name"] == "_results" else {**field, "nullable": True})

    return {name: pa.schema([column(f) for f in fields], metadata=metadata) for name, fields in table_fields().items()}


def _row(value: Any, fields: list[dict[str, Any]], keys: dict[str, int]) -> dict[str, Any]:
    """A table row: keys, typed columns and (when they do not say it all) the original's JSON text."""
    typed_fields = [f for f in fields if f["name"] not in keys and f["name"] not in (RESIDUAL, "_results")]
    try:
        typed = _fit_struct(value, typed_fields) if isinstance(value, dict) else None
    except Misfit:
        typed = None
    row: dict[str, Any] = dict(keys)
    row.update(typed or {f["name"]: None for f in typed_fields})
    if any(f["name"] == RESIDUAL for f in fields):
        exact = typed is not None and _same(_unfit_struct(typed, typed_fields), value)
        row[RESIDUAL] = None if exact else json.dumps(value, ensure_ascii=False)
    return row


class Writer:
    """Writes result sets into a folder of three tables (``fmt``: ``parquet`` or ``arrow``), atomically: the
    folder appears complete or not at all."""

    def __init__(self, folder: str | os.PathLike[str], fmt: str = "parquet") -> None:
        require("pyarrow", "columnar", "Parquet and Arrow export")
        if fmt not in ("parquet", "arrow"):
            raise ValueError(f"unknown columnar format {fmt!r}: parquet or arrow")
        self.folder, self.fmt = Path(folder), fmt
        if self.folder.exists():
            raise FileExistsError(f"{self.folder}: exists; nothing was written")
        self.staging = self.folder.with_name(f".{self.folder.name}.partial-{os.getpid()}")
        self.staging.mkdir(parents=True, exist_ok=False)
        self.schemas = arrow_schemas()
        self.fields = table_fields()
        self.writers = {name: self._open(name) for name in TABLES}
        self.buffers: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
        self.runs = 0

    def _open(self, name: str) -> Any:
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            return pq.ParquetWriter(self.staging / f"{name}.parquet", self.schemas[name], compression="zstd")
        import pyarrow.ipc as ipc

        return ipc.new_file(str(self.staging / f"{name}.arrow"), self.schemas[name])

    def _flush(self, name: str, *, force: bool = False) -> None:
        rows = self.buffers[name]
        if rows and (force or len(rows) >= BATCH):
            import pyarrow as pa

            self.writers[name].write_batch(pa.RecordBatch.from_pylist(rows, schema=self.schemas[name]))
            rows.clear()

    def add_rows(self, run_index: int, start: int, rows: list[Any]) -> None:
        """Results ``start``, ``start + 1``, … of run ``run_index``."""
        result_fields, grader_fields = _typed(self.fields["results"]), _typed(self.fields["grader_results"])
        for offset, result in enumerate(rows):
            index = start + offset
            row: dict[str, Any] = {"run_index": run_index, "result_index": index}
            typed: dict[str, Any] | None = None
            grader_rows: list[dict[str, Any]] = []
            graders = result.get(GRADERS) if isinstance(result, dict) else None
            try:
                if not isinstance(result, dict) or not isinstance(graders, list):
                    raise Misfit(GRADERS)
                typed = _fit_struct(result, result_fields)
                for position, grader in enumerate(graders):
                    if not isinstance(grader, dict):
                        raise Misfit(GRADERS)
                    keys = {"run_index": run_index, "result_index": index, "grader_index": position}
                    grader_rows.append({**keys, **_fit_struct(grader, grader_fields)})
            except Misfit:
                typed, grader_rows = None, []
            row.update(typed or {f["name"]: None for f in result_fields})
            exact = typed is not None and _same(
                _with_graders(_unfit_struct(typed, result_fields), [_unfit_struct(g, grader_fields) for g in grader_rows]), result
            )
            row[RESIDUAL] = None if exact else json.dumps(result, ensure_ascii=False)
            self.buffers["results"].append(row)
            self.buffers["grader_results"].extend(grader_rows)
            self._flush("results")
            self._flush("grader_results")

    def add_run(self, run_index: int, envelope: dict[str, Any]) -> None:
        """The result set's own fields (``results``, when a list, is left out: its rows went to ``add_rows``)."""
        rows = isinstance(envelope.get(ROWS), list)
        own = {k: (None if k == ROWS and rows else v) for k, v in envelope.items()}
        fields = self.fields["runs"]
        row = _row({k: v for k, v in own.items() if not (k == ROWS and rows)}, fields, {"run_index": run_index})
        if rows:  # where "results" stood among the fields decides the rebuilt order
            rebuilt = _place_rows(_unfit_struct(row, _typed(fields)))
            row[RESIDUAL] = None if row[RESIDUAL] is None and _same(rebuilt, own) else json.dumps(own, ensure_ascii=False)
        row["_results"] = rows
        self.buffers["runs"].append(row)
        self._flush("runs")

    def write(self, resultset: dict[str, Any]) -> None:
        """One whole result set (for streamed input, ``add_rows`` then ``add_run``)."""
        rows = resultset.get(ROWS)
        if isinstance(rows, list):
            for start in range(0, len(rows), BATCH):
                self.add_rows(self.runs, start, rows[start : start + BATCH])
        self.add_run(self.runs, resultset)
        self.runs += 1

    def abandon(self) -> None:
        """Stop without writing anything."""
        import contextlib
        import shutil

        for writer in self.writers.values():
            with contextlib.suppress(Exception):  # cleanup after a failure that is being raised: files go below
                writer.close()
        shutil.rmtree(self.staging, ignore_errors=True)

    def close(self) -> None:
        for name in TABLES:
            self._flush(name, force=True)
            self.writers[name].close()
        if self.folder.exists():
            raise FileExistsError(f"{self.folder}: exists; nothing was written")
        self.staging.rename(self.folder)
        self.writers = {}


def _typed(fields: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f for f in fields if f["name"] not in ("run_index", "result_index", "grader_index", RESIDUAL, "_results")]


def _place_rows(rebuilt: dict[str, Any]) -> dict[str, Any]:
    """The rebuilt fields with ``results`` (a placeholder) where the schema puts it."""
    order = [f["name"] for f in arrow_tree()["fields"]]
    out: dict[str, Any] = {}
    for name in order:
        if name == ROWS:
            out[ROWS] = None
        elif name in rebuilt:
            out[name] = rebuilt[name]
    return out


# --- reading back ---------------------------------------------------------------------------------------------


def _batches(folder: Path, name: str) -> Iterator[dict[str, Any]]:
    parquet, arrow = folder / f"{name}.parquet", folder / f"{name}.arrow"
    if parquet.exists():
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(parquet).iter_batches(batch_size=BATCH):
            yield from batch.to_pylist()
    else:
        import pyarrow.ipc as ipc

        with ipc.open_file(str(arrow)) as reader:
            for index in range(reader.num_record_batches):
                yield from reader.get_batch(index).to_pylist()


def read(folder: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The result sets of an export, in order, each equal to the one written (see the module's note)."""
    require("pyarrow", "columnar", "Parquet and Arrow import")
    where = Path(folder)
    fields = table_fields()
    runs = list(_batches(where, "runs"))
    results = _batches(where, "results")
    graders = _batches(where, "grader_results")
    pending_result: dict[str, Any] | None = next(results, None)
    pending_grader: dict[str, Any] | None = next(graders, None)
    for run in runs:
        index = run["run_index"]
        rows: list[Any] = []
        while pending_result is not None and pending_result["run_index"] == index:
            result = pending_result
            own: list[Any] = []
            while pending_grader is not None and (pending_grader["run_index"], pending_grader["result_index"]) == (
                index,
                result["result_index"],
            ):
                own.append(_unfit_struct(pending_grader, _typed(fields["grader_results"])))
                pending_grader = next(graders, None)
            if result[RESIDUAL] is not None:
                rows.append(json.loads(result[RESIDUAL]))
            else:
                rebuilt = _unfit_struct(result, _typed(fields["results"]))
                rows.append(_with_graders(rebuilt, own))
            pending_result = next(results, None)
        if run[RESIDUAL] is not None:
            document = json.loads(run[RESIDUAL])
        else:
            document = _place_rows(_unfit_struct(run, _typed(fields["runs"])))
            if not run["_results"]:
                del document[ROWS]
        if run["_results"]:
            document[ROWS] = rows
        yield document


def _with_graders(result: dict[str, Any], graders: list[Any]) -> dict[str, Any]:
    """The result with its grader results where the schema puts them."""
    order = [f["name"] for f in _split_result_order()]
    out: dict[str, Any] = {}
    for name in order:
        if name == GRADERS:
            out[GRADERS] = graders
        elif name in result:
            out[name] = result[name]
    return out


def _split_result_order() -> list[dict[str, Any]]:
    (rows,) = [f for f in arrow_tree()["fields"] if f["name"] == ROWS]
    fields: list[dict[str, Any]] = rows["type"]["item"]["type"]["fields"]
    return fields


# --- files ------------------------------------------------------------------------------------------------------


class Unexportable(ValueError):
    """An input that is not a result set that can be read: ``finding`` says why and where."""

    def __init__(self, path: str, finding: Any) -> None:
        where = f":{finding.line}:{finding.column or 1}" if getattr(finding, "line", None) else ""
        super().__init__(f"{path}{where}: {finding.code}: {finding.message}")
        self.finding = finding
        self.path, self.line = path, finding.line
        self.message = f"{finding.code}: {finding.message}"


def _stream_into(writer: Writer, path: Path) -> bool:
    """Stream one JSON result set into ``writer``: rows as they are read. False if it cannot be streamed."""
    from . import stream

    with path.open("rb") as handle:
        envelope: dict[str, Any] = {}
        try:
            for piece in stream.read(handle, ROWS):
                if isinstance(piece, stream.Problem):
                    raise Unexportable(str(path), piece.finding)
                if isinstance(piece, stream.Member):
                    envelope[piece.key] = piece.value
                elif isinstance(piece, stream.Array):
                    envelope[ROWS] = []  # where "results" stands; its rows go to the table as they come
                elif isinstance(piece, stream.Rows):
                    writer.add_rows(writer.runs, piece.start, piece.items)
        except stream.NotStreamable:
            return False
    writer.add_run(writer.runs, envelope)
    writer.runs += 1
    return True


def export_files(paths: list[Path], folder: str | os.PathLike[str], fmt: str = "parquet") -> int:
    """Export the result sets in these JSON / JSON Lines files (JSON files streamed) into ``folder``; the number
    of result sets. Raises :class:`Unexportable` (nothing is written) for an input that is not a result set."""
    from .loader import SUFFIXES, load_path

    writer = Writer(folder, fmt)
    try:
        for path in paths:
            if SUFFIXES.get(path.suffix.lower(), "json") == "json" and _stream_into(writer, path):
                continue
            for loaded in load_path(path):
                if loaded.problem is not None:
                    raise Unexportable(loaded.path, loaded.problem)
                if not isinstance(loaded.document, dict):
                    from .findings import Finding

                    raise Unexportable(loaded.path, Finding("", "TYPE_MISMATCH", "error", "not a JSON object", loaded.line))
                writer.write(loaded.document)
        writer.close()
    except BaseException:
        writer.abandon()
        raise
    return writer.runs
