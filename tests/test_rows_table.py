"""The per-kind row-independence table codegen writes for both SDKs (``_rows.py`` / ``_rows.ts``), which both
runtimes now read (``schema_path.rows_stand_alone``, TypeScript ``rowsStandAlone``), equals what the Python runtime
computes from the schemas (``schema_path.computed_rows_stand_alone``, still used for a pinned earlier release), for
every kind and every root array property."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from evalschema.engine import schema_path
from evalschema.schemas.registry import load
from evalschema_models._rows import ROWS_STAND_ALONE

KINDS = sorted(load(None).roots)


def _pairs() -> list[tuple[str, str, bool]]:
    return [(kind, name, verdict) for kind in KINDS for name, verdict in ROWS_STAND_ALONE.get(f"{kind}.json", {}).items()]


def test_every_kind_with_array_properties_is_in_the_table() -> None:
    assert {"resultset", "suite", "pack", "testcase"} <= {kind for kind, _, _ in _pairs()}
    assert ROWS_STAND_ALONE["resultset.json"]["results"] is True


def test_rows_stand_alone_equals_the_python_runtime() -> None:
    assert [(k, n, schema_path.computed_rows_stand_alone(k, n)) for k, n, _ in _pairs()] == _pairs()


_NODE = """
const dist = process.argv[2];
const { rowsStandAlone } = await import(dist + "/engine/schemaPath.js");
const pairs = JSON.parse(process.argv[3]);
process.stdout.write(JSON.stringify(pairs.map(([kind, name]) => [kind, name, rowsStandAlone(kind, name)])));
"""


def test_rows_stand_alone_equals_the_typescript_runtime(built_js: Path, tmp_path: Path) -> None:
    script = tmp_path / "rows.mjs"
    script.write_text(_NODE, encoding="utf-8")
    pairs = _pairs()
    run = subprocess.run(["node", str(script), built_js.parent.as_uri(), json.dumps(pairs)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    assert [tuple(p) for p in json.loads(run.stdout)] == pairs
