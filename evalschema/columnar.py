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

Input is streamed: results are written in row groups of ``BATCH`` rows as they are read (memory: a batch of rows
and a row group). Each batch of rows is checked by Python generated from the field tree for each property order met
(see "the fast path" below) and turned into Arrow arrays a column at a time. The file metadata carries the
specification version and the SHA-256 of the generated Arrow schema. A string with a lone surrogate (JSON can
escape one, UTF-8 cannot hold it) leaves its row's typed columns null and its ``_json`` ASCII-escaped.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import os
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import orjson

from evalschema_models.constants import UNREADABLE_CODES

from .core.display import visible
from .core.extras import require
from .core.findings import Finding, Report
from .io.gate import Outputs, Refused, WriteFailed
from .io.loader import not_an_object, open_regular, parse_json
from .schemas.registry import arrow_dir, spec_version

BATCH = 8192
TABLES = ("runs", "results", "grader_results")
ROWS, GRADERS, RESIDUAL = "results", "grader_results", "_json"
KIND = "resultset"  # the kind of document a table holds
_UTC = _dt.UTC


class Misfit(ValueError):
    """A value that does not fit its column's type."""


@cache
def arrow_tree() -> dict[str, Any]:
    """The generated Arrow field tree of a result set."""
    tree: dict[str, Any] = json.loads((arrow_dir() / "resultset.arrow.json").read_text("utf-8"))
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
        return _dumps(value)
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


def _unfit_struct(
    value: dict[str, Any], fields: list[dict[str, Any]], unfit: Callable[[Any, dict[str, Any]], Any] | None = None
) -> dict[str, Any]:
    unfit = unfit or _unfit
    out: dict[str, Any] = {}
    for field in fields:
        name = field["name"]
        if field["type"]["kind"] == "timestamp" or name not in value:
            continue
        item = value[name]
        if item is None and not (field.get("required") and field.get("null")):
            continue  # absent (a null that was written is kept by the row's _json)
        out[name] = unfit(item, field["type"])
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


# --- the fast path: Python generated from the field tree -------------------------------------------------------------
#
# Most rows are exact: every property is a declared one, in the schema's order, each value of its column's type (no
# ``1`` in a ``number`` column, no ``null`` where the schema does not allow it). For those the typed columns say it
# all and ``_json`` is null. Objects of one type from one producer have one property order, or a few: for each order
# met (a *shape*), straight-line Python is generated once that unpacks the object's values, checks their types and
# returns its column values, without rebuilding the row or comparing JSON texts. A shape whose keys are not declared
# properties in order, or a value that is not exact, sends the row to the general path (``_fit_struct``, then the
# comparison), which gives its columns and its JSON text. ``tests/test_columnar.py`` checks that the paths agree.

_NO = object()  # not exact: take the general path
_SHAPES_KEPT = 4096  # property orders compiled per object type; beyond them, rows take the general path
_INT64 = "-9223372036854775808 <= {0} <= 9223372036854775807"


def _dumps(value: Any) -> str:
    """The text of a ``json`` column: orjson's, or the standard library's where orjson refuses (integers beyond 64
    bits, lone surrogates). Either reads back to the same value."""
    try:
        return orjson.dumps(value).decode("utf-8")
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, ensure_ascii=False)


def _refuse(value: Any) -> Any:
    return _NO


def _changes(node: dict[str, Any]) -> bool:
    """Whether a value's column value differs from the value (a ``json`` text, a timestamp added)."""
    kind = node["kind"]
    if kind == "json":
        return True
    if kind == "struct":
        return any(f["type"]["kind"] == "timestamp" or _changes(f["type"]) for f in node["fields"])
    if kind == "list":
        return _changes(node["item"]["type"])
    if kind == "map":
        return _changes(node["value"]["type"])
    return False


class _Shapes:
    """The compiled shapes of one object type: ``table`` (the row of a table: its column values as a tuple; with
    ``graders``, the shapes of its grader results, whose tuples it returns too) or a struct column (its value)."""

    def __init__(self, compiler: _Compiler, fields: list[dict[str, Any]], *, table: bool, graders: _Shapes | None = None) -> None:
        self.compiler, self.fields, self.table, self.graders = compiler, fields, table, graders
        self.declared = [f["name"] for f in fields if f["type"]["kind"] != "timestamp"]
        self.known: dict[tuple[str, ...], Callable[[Any], Any]] = {}
        self.name = compiler.fresh("_shape")
        compiler.env[self.name + "_known"] = self.known
        compiler.env[self.name + "_learn"] = self.learn
        self.changes = table or _changes({"kind": "struct", "fields": fields})

    def dispatch(self, var: str, pad: str, out: list[str]) -> None:
        """Lines that return ``_NO`` unless ``var`` holds an exact object of this type, then leave in ``var`` its
        column value (a table row: its tuple)."""
        function = self.compiler.fresh("_f")
        out += [
            f"{pad}if type({var}) is not dict: return _NO",
            f"{pad}{function} = {self.name}_known.get(tuple({var}))",
            f"{pad}if {function} is None: {function} = {self.name}_learn({var})",
        ]
        if self.changes:
            out += [f"{pad}{var} = {function}({var})", f"{pad}if {var} is _NO: return _NO"]
        else:
            out.append(f"{pad}if {function}({var}) is _NO: return _NO")

    def learn(self, value: dict[str, Any]) -> Callable[[Any], Any]:
        """The function of this object's shape, compiled now (``_refuse`` for keys that are not declared properties
        in order, a required property absent, or too many shapes)."""
        keys = tuple(value)
        if len(self.known) >= _SHAPES_KEPT:
            return _refuse
        function = self._compile(keys)
        self.known[keys] = function
        return function

    def _compile(self, keys: tuple[str, ...]) -> Callable[[Any], Any]:
        """The shape's function: ``json`` values as orjson's bytes; if orjson refuses one (an integer beyond 64 bits,
        a lone surrogate), the same function with the standard library's text."""
        name = self.compiler.fresh("_shaped")
        lines = self._lines(keys, name, "_odumps")
        if lines is None:
            return _refuse
        if not any("_odumps(" in line for line in lines):
            return self.compiler.define(name, lines)
        self.compiler.define(name + "_std", self._lines(keys, name + "_std", "_dumps") or [])
        body = ["    try:", *("    " + line for line in lines[1:]), "    except _REFUSED:", f"        return {name}_std(v)"]
        return self.compiler.define(name, [lines[0], *body])

    def _lines(self, keys: tuple[str, ...], name: str, dumps: str) -> list[str] | None:
        """The function's lines (``dumps``: the function giving a ``json`` column's text), or None if no row of
        these keys is exact."""
        positions = [self.declared.index(k) if k in self.declared else -1 for k in keys]
        if any(p < 0 for p in positions) or positions != sorted(set(positions)):
            return None
        present = {key: f"a{index}" for index, key in enumerate(keys)}
        out = [f"def {name}(v):"]
        if keys:
            out.append(f"    {''.join(var + ', ' for var in present.values())}= v.values()")
        columns: list[str] = []
        graders: str | None = None
        for field in self.fields:
            key, node = field["name"], field["type"]
            if node["kind"] == "timestamp":
                columns.append(f"_stamp({present[node['of']]})" if node["of"] in present else "None")
                continue
            if key not in present:
                if field.get("required"):
                    return None  # a required property absent: the general path keeps the row's JSON
                columns.append("None")
                continue
            var = present[key]
            if self.graders is not None and key == GRADERS:  # its rows go to their own table
                graders = self.compiler.fresh("_graders")
                each = self.compiler.fresh("_g")
                out += [f"    if type({var}) is not list: return _NO", f"    {graders} = []", f"    for {each} in {var}:"]
                self.graders.dispatch(each, "        ", out)
                out.append(f"        {graders}.append({each})")
                continue
            # a null reads back as absent, unless the property is required and may be null
            if field.get("required") and field.get("null"):
                body: list[str] = []
                self.compiler.value(var, node, "        ", body, dumps)
                if body:
                    out += [f"    if {var} is not None:", *body]
            else:
                out.append(f"    if {var} is None: return _NO")
                self.compiler.value(var, node, "    ", out, dumps)
            columns.append(var)
        if self.table:
            values = "(" + "".join(f"{c}, " for c in columns) + ")"
            out.append(f"    return {values}, {graders}" if self.graders is not None else f"    return {values}")
        elif self.changes:
            pairs = ", ".join(f"{f['name']!r}: {c}" for f, c in zip(self.fields, columns, strict=True))
            out.append(f"    return {{{pairs}}}")
        else:
            out.append("    return v")
        return out


class _Compiler:
    """Writes the fast path's Python: a value's checks inline, an object's by its shapes."""

    def __init__(self) -> None:
        self.env: dict[str, Any] = {"_NO": _NO, "_stamp": _stamp, "_dumps": _dumps, "_odumps": orjson.dumps}
        self.env["_REFUSED"] = (TypeError, orjson.JSONEncodeError)
        self.count = 0
        self.structs: dict[str, _Shapes] = {}

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def define(self, name: str, lines: list[str]) -> Callable[[Any], Any]:
        # our own code, written from the generated Arrow schema's field tree (names only as string literals)
        exec(compile("\n".join(lines) + "\n", f"<evalschema.columnar {name}>", "exec"), self.env)
        function: Callable[[Any], Any] = self.env[name]
        return function

    def value(self, var: str, node: dict[str, Any], pad: str, out: list[str], dumps: str) -> None:
        """Lines that return ``_NO`` unless the non-null value in ``var`` is exact for ``node``, then leave its
        column value in ``var`` (``dumps``: the function giving a ``json`` value's text)."""
        kind = node["kind"]
        if kind in ("utf8", "dictionary"):
            out.append(f"{pad}if type({var}) is not str: return _NO")
        elif kind == "int64":
            out.append(f"{pad}if type({var}) is not int or not {_INT64.format(var)}: return _NO")
        elif kind == "float64":
            out.append(f"{pad}if type({var}) is not float: return _NO")
        elif kind == "bool":
            out.append(f"{pad}if type({var}) is not bool: return _NO")
        elif kind == "json":  # _odumps: orjson's bytes (a string column takes UTF-8 bytes)
            out.append(f"{pad}{var} = {dumps}({var})")
        elif kind == "struct":
            key = json.dumps(node["fields"], sort_keys=True)
            if key not in self.structs:
                self.structs[key] = _Shapes(self, node["fields"], table=False)
            self.structs[key].dispatch(var, pad, out)
        elif kind in ("list", "map"):
            item = node["item"] if kind == "list" else node["value"]
            each, key, built = self.fresh("_i"), self.fresh("_k"), self.fresh("_l")
            changes = _changes(item["type"])
            if kind == "list":
                out.append(f"{pad}if type({var}) is not list: return _NO")
                out += [f"{pad}{built} = []"] if changes else []
                out.append(f"{pad}for {each} in {var}:")
            else:
                out.append(f"{pad}if type({var}) is not dict: return _NO")
                out += [f"{pad}{built} = {{}}"] if changes else []
                out.append(f"{pad}for {key}, {each} in {var}.items():")
            inner = pad + "    "
            if item["nullable"]:  # a null item reads back as null
                body: list[str] = []
                self.value(each, item["type"], inner + "    ", body, dumps)
                out += [f"{inner}if {each} is not None:", *(body or [f"{inner}    pass"])]
            else:
                out.append(f"{inner}if {each} is None: return _NO")
                self.value(each, item["type"], inner, out, dumps)
            if changes:
                out.append(f"{inner}{built}.append({each})" if kind == "list" else f"{inner}{built}[{key}] = {each}")
                out.append(f"{pad}{var} = {built}")
        else:
            raise ValueError(f"no column kind {kind!r}")


@cache
def fast_path() -> Callable[[Any], Any]:
    """A result → (its typed columns, its grader results' typed columns), or ``_NO`` for the general path."""
    fields = table_fields()
    (rows,) = [f for f in arrow_tree()["fields"] if f["name"] == ROWS]
    compiler = _Compiler()
    graders = _Shapes(compiler, _typed(fields["grader_results"]), table=True)
    # the result's fields with grader_results, whose place among them the order check needs
    results = _Shapes(compiler, rows["type"]["item"]["type"]["fields"], table=True, graders=graders)
    lines = ["def _result(v):"]
    results.dispatch("v", "    ", lines)
    lines.append("    return v")
    return compiler.define("_result", lines)


def _encodable(value: Any) -> bool:
    """Whether every string in the value can be UTF-8 (JSON can escape a lone surrogate; UTF-8 cannot hold one)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class Writer:
    """Writes result sets into a folder of three tables (``fmt``: ``parquet`` or ``arrow``), atomically: the
    folder appears complete or not at all.

    Rows become tuples of column values (the fast path, or ``_row`` for the rest); each call's rows are turned into
    Arrow arrays at once, a column at a time, and written in row groups of ``BATCH`` rows. A row holding a string
    that UTF-8 cannot hold (a lone surrogate) keeps null columns and its JSON text, with that string escaped."""

    def __init__(self, folder: str | os.PathLike[str], fmt: str = "parquet", *, inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
        require("pyarrow", "columnar", "Parquet and Arrow export")
        if fmt not in ("parquet", "arrow"):
            raise ValueError(f"unknown columnar format {fmt!r}: parquet or arrow")
        self.folder, self.fmt = Path(folder), fmt
        # the output gate: a new folder (an existing one, or one whose parent is missing, is refused), staged
        # beside it and renamed into place by close(); removed by abandon(), SIGINT and SIGTERM
        self.outputs = Outputs(folders=[self.folder], inputs=inputs)
        self.staging = self.outputs.folder(self.folder)
        self.schemas = arrow_schemas()
        self.fields = table_fields()
        self.fast = fast_path()
        self.writers: dict[str, Any] = {}
        try:
            for name in TABLES:
                self.writers[name] = self._open(name)
        except OSError as exc:  # a full disk already: named by the user's folder, never the staging one
            self.abandon()
            raise WriteFailed(self.folder, exc) from None
        self.pending: dict[str, list[Any]] = {name: [] for name in TABLES}  # Arrow record batches not yet written
        self.pending_rows = dict.fromkeys(TABLES, 0)
        self.runs = 0

    def _open(self, name: str) -> Any:
        if self.fmt == "parquet":
            import pyarrow.parquet as pq

            return pq.ParquetWriter(self.staging / f"{name}.parquet", self.schemas[name], compression="zstd")
        import pyarrow.ipc as ipc

        return ipc.new_file(str(self.staging / f"{name}.arrow"), self.schemas[name])

    def _batch(self, name: str, columns: list[Any]) -> Any:
        """A record batch of these columns (sequences of column values); UnicodeEncodeError for a lone surrogate."""
        import pyarrow as pa

        schema = self.schemas[name]
        return pa.RecordBatch.from_arrays([pa.array(c, type=f.type) for c, f in zip(columns, schema, strict=True)], schema=schema)

    def _keep(self, batches: dict[str, Any]) -> None:
        for name, batch in batches.items():
            if batch is not None:
                self.pending[name].append(batch)
                self.pending_rows[name] += batch.num_rows
            self._flush(name)

    def _flush(self, name: str, *, force: bool = False) -> None:
        """Write the pending rows in row groups of ``BATCH`` rows (``force``: all of them, the last group shorter)."""
        if self.pending[name] and (force or self.pending_rows[name] >= BATCH):
            import pyarrow as pa

            table = pa.Table.from_batches(self.pending[name], schema=self.schemas[name])
            ready = table.num_rows if force else table.num_rows - table.num_rows % BATCH
            # one dictionary per column and row group (a reader cannot give a nested dictionary column in pieces)
            written = table.slice(0, ready).unify_dictionaries().combine_chunks()
            if self.fmt == "parquet":
                self.writers[name].write_table(written, row_group_size=BATCH)
            else:
                self.writers[name].write_table(written, max_chunksize=BATCH)
            rest = table.slice(ready)
            self.pending[name], self.pending_rows[name] = rest.to_batches(), rest.num_rows

    def add_rows(self, run_index: int, start: int, rows: list[Any]) -> None:
        """Results ``start``, ``start + 1``, … of run ``run_index``."""
        try:
            self._keep(self._result_batches(run_index, start, rows, checked=False))
        except UnicodeEncodeError:
            self._keep(self._result_batches(run_index, start, rows, checked=True))

    def _result_batches(self, run_index: int, start: int, rows: list[Any], *, checked: bool) -> dict[str, Any]:
        """The record batches of these results and of their grader results (``checked``: each row's strings
        checked first), built a column at a time."""
        fast = self.fast
        typed: list[tuple[Any, ...]] = []
        graders: list[list[tuple[Any, ...]]] = []
        texts: list[str | None] = []
        width = len(_typed(self.fields["results"]))
        for result in rows:
            if checked and not _encodable(result):  # its JSON text alone, the surrogate escaped
                typed.append((None,) * width)
                graders.append([])
                texts.append(json.dumps(result))
                continue
            got = fast(result)
            if got is _NO:
                columns, own, text = self._general(result)
            else:
                (columns, own), text = got, None
            typed.append(columns)
            graders.append(own)
            texts.append(text)
        count = len(rows)
        batches = {"results": None, "grader_results": None}
        if count:
            indices = range(start, start + count)
            batches["results"] = self._batch("results", [[run_index] * count, indices, *zip(*typed, strict=True), texts])
        counts = [len(g) for g in graders]
        flat = list(chain.from_iterable(graders))
        if flat:
            keys = [
                [run_index] * len(flat),
                list(chain.from_iterable(map(repeat, range(start, start + count), counts))),
                list(chain.from_iterable(map(range, counts))),
            ]
            batches["grader_results"] = self._batch("grader_results", [*keys, *zip(*flat, strict=True)])
        return batches

    def _general(self, result: Any) -> tuple[tuple[Any, ...], list[tuple[Any, ...]], str | None]:
        """A result's typed columns (null where it does not fit them), its grader results' and its JSON text when
        the columns do not say it all."""
        result_fields, grader_fields = _typed(self.fields["results"]), _typed(self.fields["grader_results"])
        typed: dict[str, Any] | None = None
        grader_rows: list[dict[str, Any]] = []
        graders = result.get(GRADERS) if isinstance(result, dict) else None
        try:
            if not isinstance(result, dict) or not isinstance(graders, list):
                raise Misfit(GRADERS)
            typed = _fit_struct(result, result_fields)
            for grader in graders:
                if not isinstance(grader, dict):
                    raise Misfit(GRADERS)
                grader_rows.append(_fit_struct(grader, grader_fields))
        except Misfit:
            typed, grader_rows = None, []
        exact = typed is not None and _same(
            _with_graders(_unfit_struct(typed, result_fields), [_unfit_struct(g, grader_fields) for g in grader_rows]), result
        )
        columns = tuple((typed or {}).get(f["name"]) for f in result_fields)
        return (
            columns,
            [tuple(g[f["name"]] for f in grader_fields) for g in grader_rows],
            None if exact else json.dumps(result, ensure_ascii=False),
        )

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
        try:
            batch = self._batch("runs", [[row[f["name"]]] for f in fields])
        except UnicodeEncodeError:
            nulls = {f["name"]: None for f in _typed(fields)}
            safe = {**row, **nulls, RESIDUAL: json.dumps(own)}
            batch = self._batch("runs", [[safe[f["name"]]] for f in fields])
        self._keep({"runs": batch})

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

        for writer in self.writers.values():
            with contextlib.suppress(Exception):  # cleanup after a failure that is being raised: files go below
                writer.close()
            with contextlib.suppress(Exception):  # closed or not, it must not try again when collected
                writer.is_open = False
        self.writers = {}
        self.outputs.abandon()

    def close(self) -> None:
        for name in TABLES:
            self._flush(name, force=True)
            self.writers[name].close()
        self.outputs.commit()
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


class NotAnExport(ValueError):
    """A folder that is not a columnar export this version reads: ``code`` (an ``IMPORT_*`` conversion error code),
    the table at fault and why. Raised before anything of the offending part is trusted."""

    def __init__(self, code: str, table: str, message: str) -> None:
        super().__init__(f"{table}: {message}" if table else message)
        self.code, self.table = code, table


def _table_path(folder: Path, name: str) -> Path:
    parquet, arrow = folder / f"{name}.parquet", folder / f"{name}.arrow"
    if parquet.exists() or parquet.is_symlink():
        return parquet
    if arrow.exists() or arrow.is_symlink():
        return arrow
    raise NotAnExport("IMPORT_NOT_FORMAT", f"{name}.parquet", f"missing: an export holds the tables {', '.join(TABLES)}")


def _check_schema(name: str, schema: Any, expected: Any) -> None:
    """The table's columns and types are the generated schema's, and its spec version is one this version reads."""
    from .schemas.identify import parse_version

    metadata = schema.metadata or {}
    declared = metadata.get(b"evalschema.spec_version")
    text = declared.decode("utf-8", "replace") if isinstance(declared, bytes) else None
    version = parse_version(text) if text is not None else None
    if version is None:
        raise NotAnExport("IMPORT_NOT_FORMAT", name, "no evalschema.spec_version in the table's metadata")
    supported = parse_version(spec_version())
    assert supported is not None
    if version[0] != supported[0] or version[1:] > supported[1:]:
        # a newer version (or another major) may mean anything: VERSION_UNSUPPORTED, and nothing else is read
        raise NotAnExport(
            "IMPORT_VERSION_UNSUPPORTED",
            name,
            f"VERSION_UNSUPPORTED: written for spec {visible(text or '')}; this version reads {supported[0]}.x up to {spec_version()}",
        )
    if schema.equals(expected, check_metadata=False):
        return
    got = {field.name: field for field in schema}
    for field in expected:
        other = got.get(field.name)
        if other is None:
            raise NotAnExport("IMPORT_NOT_FORMAT", name, f"no column {visible(field.name)}")
        if not other.type.equals(field.type) or other.nullable != field.nullable:
            raise NotAnExport("IMPORT_NOT_FORMAT", name, f"column {visible(field.name)} is {visible(str(other.type))}, not {field.type}")
    extra = [n for n in schema.names if n not in expected.names]
    if extra:
        raise NotAnExport("IMPORT_NOT_FORMAT", name, f"unknown column {visible(extra[0])}")
    raise NotAnExport("IMPORT_NOT_FORMAT", name, "columns out of the generated schema's order")


def _batches(folder: Path, name: str, expected: Any) -> Iterator[dict[str, Any]]:
    """The rows of one table, a batch at a time, after its schema was checked. No count the file claims sizes an
    allocation: rows are read in batches of ``BATCH`` (never a whole row group at once, whose claimed row count
    pyarrow would allocate for) and a row group that holds other than the rows it claims is refused."""
    table = _table_path(folder, name)
    # the input gate: a table is a regular file (a FIFO or a device in its place is refused, never read); pyarrow
    # then opens it by name itself (a Python file object under pyarrow's reader can abort the interpreter at exit)
    handle = open_regular(table)
    if isinstance(handle, Finding):
        raise NotAnExport("IMPORT_UNREADABLE", table.name, f"{handle.code}: {handle.message}")
    handle.close()
    try:
        if table.suffix == ".parquet":
            import pyarrow.parquet as pq

            file = pq.ParquetFile(str(table))
            _check_schema(table.name, file.schema_arrow, expected)
            for group in range(file.num_row_groups):  # a batch spanning row groups could not hold nested dictionaries
                claimed, held = file.metadata.row_group(group).num_rows, 0
                for batch in file.iter_batches(batch_size=BATCH, row_groups=[group]):
                    held += batch.num_rows
                    if held > claimed:
                        break
                    yield from batch.to_pylist()
                if held != claimed:
                    raise NotAnExport("IMPORT_UNREADABLE", table.name, f"row group {group} claims {claimed} rows and holds {held}")
        else:
            import pyarrow.ipc as ipc

            with ipc.open_file(str(table)) as reader:
                _check_schema(table.name, reader.schema, expected)
                for index in range(reader.num_record_batches):
                    batch = reader.get_batch(index)
                    batch.validate()  # buffers as long as the batch claims, before a row is made of them
                    yield from batch.to_pylist()
    except NotAnExport:
        raise
    except (OSError, ValueError, MemoryError) as exc:  # pyarrow's: a file that is not Parquet/Arrow, or corrupt
        raise NotAnExport("IMPORT_UNREADABLE", table.name, visible(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)) from None


def _strict(text: str, where: str) -> Any:
    """A JSON text kept in a column, read by the loader's strict reader (no NaN, Infinity or duplicate keys)."""
    loaded = parse_json(text, where)
    if loaded.problem is not None:
        raise NotAnExport("IMPORT_NOT_FORMAT", where, f"{loaded.problem.code}: {loaded.problem.message}")
    return loaded.document


def _unfit_checked(value: Any, node: dict[str, Any], where: str) -> Any:
    """``_unfit`` for a column value read from a file: JSON texts read strictly, floats finite."""
    kind = node["kind"]
    if value is None:
        return None
    if kind == "json":
        return _strict(value, where)
    if kind == "float64" and not math.isfinite(value):
        raise NotAnExport("IMPORT_NOT_FORMAT", where, f"{value} is not a JSON number")
    if kind == "list":
        return [_unfit_checked(item, node["item"]["type"], where) for item in value]
    if kind == "map":
        return {key: _unfit_checked(item, node["value"]["type"], where) for key, item in value}
    if kind == "struct":
        return _unfit_struct(value, node["fields"], lambda v, n: _unfit_checked(v, n, where))
    return value


class _Keyed:
    """One table's rows in key order: each row's keys must be the next ones expected, else the export is refused
    (rows out of order, a gap, a duplicate, a row of no run)."""

    def __init__(self, rows: Iterator[dict[str, Any]], table: str, keys: tuple[str, ...]) -> None:
        self.rows, self.table, self.keys = rows, table, keys
        self.head: dict[str, Any] | None = next(rows, None)
        self.number = 0

    def take(self, prefix: tuple[int, ...], index: int) -> dict[str, Any] | None:
        """The next row if it belongs to ``prefix`` (then its last key must be ``index``); else None."""
        row = self.head
        if row is None or tuple(row[k] for k in self.keys[:-1]) != prefix:
            return None
        if row[self.keys[-1]] != index:
            self.refuse(row)
        self.head = next(self.rows, None)
        self.number += 1
        return row

    def refuse(self, row: dict[str, Any]) -> None:
        shown_keys = ", ".join(f"{k} {row[k]}" for k in self.keys)
        raise NotAnExport("IMPORT_NOT_FORMAT", self.table, f"row {self.number} ({shown_keys}) is out of key order")

    def done(self, prefix: tuple[int, ...]) -> None:
        """No row of ``prefix`` may follow, nor one of an earlier prefix."""
        row = self.head
        if row is not None and tuple(row[k] for k in self.keys[:-1]) <= prefix:
            self.refuse(row)


def read(folder: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The result sets of an export, in order, each equal to the one written (see the module's note), each held
    whole (``read_runs`` gives a result set's rows one at a time). :class:`NotAnExport` for a folder that is not an
    export this version reads."""
    for document, rows in read_runs(folder):
        if rows is not None:
            document[ROWS] = list(rows)
        yield document


def read_runs(folder: str | os.PathLike[str]) -> Iterator[tuple[dict[str, Any], Iterator[Any] | None]]:
    """Each result set of an export as its own fields (``results`` holding ``None`` where the rows go) and an
    iterator of its rows (``None``: the result set had no ``results`` list), read a batch at a time: consume the
    rows before asking for the next result set. Every table is checked against the generated Arrow schema
    (columns, types, spec version) before a row is read, and its rows against their keys as they come:
    :class:`NotAnExport` for a folder that is not an export this version reads."""
    require("pyarrow", "columnar", "Parquet and Arrow import")
    where = Path(folder)
    fields, schemas = table_fields(), arrow_schemas()
    run_fields, result_fields = _typed(fields["runs"]), _typed(fields["results"])
    grader_fields = _typed(fields["grader_results"])
    streams = {name: _batches(where, name, schemas[name]) for name in TABLES}
    runs = _Keyed(streams["runs"], "runs", ("run_index",))
    results = _Keyed(streams["results"], "results", ("run_index", "result_index"))
    graders = _Keyed(streams["grader_results"], "grader_results", ("run_index", "result_index", "grader_index"))

    def rows_of(index: int) -> Iterator[Any]:
        count = 0
        while (result := results.take((index,), count)) is not None:
            place = f"results (run_index {index}, result_index {count})"
            own: list[Any] = []
            while (grader := graders.take((index, count), len(own))) is not None:
                spot = f"grader_results (run_index {index}, result_index {count}, grader_index {len(own)})"
                own.append(_unfit_checked(grader, {"kind": "struct", "fields": grader_fields}, spot))
            graders.done((index, count))
            count += 1
            if result[RESIDUAL] is not None:  # the whole result, its grader results included (theirs are ignored)
                yield _strict(result[RESIDUAL], place)
            else:
                yield _with_graders(_unfit_checked(result, {"kind": "struct", "fields": result_fields}, place), own)
        results.done((index,))
        graders.done((index,))

    index = 0
    while (run := runs.take((), index)) is not None:
        place = f"runs (run_index {index})"
        if run[RESIDUAL] is not None:
            document = _strict(run[RESIDUAL], place)
            if not isinstance(document, dict):
                raise NotAnExport("IMPORT_NOT_FORMAT", place, "_json is not an object")
        else:
            document = _place_rows(_unfit_checked(run, {"kind": "struct", "fields": run_fields}, place))
            if not run["_results"]:
                del document[ROWS]
        if run["_results"]:
            document[ROWS] = None
            rows = rows_of(index)
            yield document, rows
            for _ in rows:  # rows the caller left: read (and checked) all the same
                pass
        else:
            yield document, None
            if results.take((index,), 0) is not None:
                raise NotAnExport("IMPORT_NOT_FORMAT", "results", f"rows of run_index {index}, whose run has no results")
            graders.done((index,))
        index += 1
    for rest in (runs, results, graders):  # a row after the last run belongs to no run
        if rest.head is not None:
            rest.refuse(rest.head)


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


class Invalid(ValueError):
    """A result set that is not valid (``report``: its findings, placed): its rows could hold numbers the
    specification makes impossible, so it is not exported (unless forced)."""

    def __init__(self, path: str, report: Report) -> None:
        first = report.errors[0]
        super().__init__(f"{path}: not a valid result set: {first.code}: {first.message}")
        self.path, self.report = path, report


def _validated_into(writer: Writer, path: Path, whole: bool) -> Report:
    """Validate one JSON result set and hand its rows to ``writer`` in the same reading (large files in pieces), then
    its own fields; the report. ``_StartOver`` if the reading starts over after rows were handed on (they cannot
    be taken back): the export starts over, reading this file whole."""
    from .core.limits import MAX_FINDINGS
    from .pipeline import validate_and_read_file

    pending: list[Any] = []
    handed = [0]  # rows handed to the table

    def flush() -> None:
        if pending:
            writer.add_rows(writer.runs, handed[0], pending[:])
            handed[0] += len(pending)
            pending.clear()

    def each_row() -> Callable[[Any], None]:
        if handed[0] or pending:
            raise _StartOver(path)

        def see(row: Any) -> None:
            pending.append(row)
            if len(pending) >= BATCH:
                flush()

        return see

    report, fields = validate_and_read_file(
        path, each_row, stream_rows=False if whole else None, place_limit=MAX_FINDINGS, rows_in_place=True
    )
    flush()
    if fields is None:  # no result set at all (unreadable, not an object): nothing to write
        if report.valid:
            raise Unexportable(str(path), not_an_object(None))
        return report
    writer.add_run(writer.runs, fields)
    writer.runs += 1
    return report


class _StartOver(Exception):
    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path


def export_files(
    paths: list[Path], folder: str | os.PathLike[str], fmt: str = "parquet", *, force: bool = False, refused: list[Invalid] | None = None
) -> int:
    """Export the result sets in these JSON / JSON Lines files (JSON files streamed) into ``folder``; the number
    of result sets. Each is validated as it is read, before anything is written: one that cannot be read raises
    :class:`Unexportable`, one that is not valid :class:`Invalid` (nothing is written either way) — unless
    ``force``: then it is exported all the same and listed in ``refused``."""
    whole: set[Path] = set()  # JSON files a stream gave up on after their rows: read whole
    while True:
        found: list[Invalid] = []
        try:
            count = _export_files(paths, folder, fmt, whole, force, found)
        except _StartOver as again:
            whole.add(again.path)
            continue
        if refused is not None:
            refused.extend(found)
        return count


def _refuse_invalid(path: str, report: Report, force: bool, found: list[Invalid]) -> None:
    """An unreadable input stops the export; an invalid one too, unless ``force`` (then it is listed)."""
    unreadable = next((f for f in report.errors if f.code in UNREADABLE_CODES or (f.code == "TYPE_MISMATCH" and f.pointer == "")), None)
    if unreadable is not None:
        raise Unexportable(path, unreadable)
    if not report.valid:
        if not force:
            raise Invalid(path, report)
        found.append(Invalid(path, report))


def _export_files(paths: list[Path], folder: str | os.PathLike[str], fmt: str, whole: set[Path], force: bool, found: list[Invalid]) -> int:
    from .io.loader import SUFFIXES, load_path
    from .pipeline import placed, validate

    writer = Writer(folder, fmt, inputs=paths)
    try:
        for path in paths:
            if SUFFIXES.get(path.suffix.lower(), "json") == "json":
                _refuse_invalid(str(path), _validated_into(writer, path, path in whole), force, found)
                continue
            for loaded in load_path(path):
                if loaded.problem is not None:
                    raise Unexportable(loaded.path, loaded.problem)
                if not isinstance(loaded.document, dict):
                    raise Unexportable(loaded.path, not_an_object(loaded.line))
                report = validate(loaded.document, KIND)
                if report.findings:
                    report = placed(report, loaded.positions())
                _refuse_invalid(loaded.path + (f":{loaded.line}" if loaded.line else ""), report, force, found)
                writer.write(loaded.document)
        writer.close()
    except (Refused, WriteFailed):
        writer.abandon()
        raise
    except OSError as exc:  # pyarrow writing into the staging folder (a full disk): named by the user's folder
        writer.abandon()
        raise WriteFailed(folder, exc) from None
    except BaseException:
        writer.abandon()
        raise
    return writer.runs
