"""Spec 1.4.0: the Inspect AI importer keeps the provider's response id (``ModelOutput.response_id``) as a row's
``response_id``, read from logs Inspect itself writes (``tests/interop/inspect_response_ids.py``, offline), and
the OpenTelemetry export carries it as ``gen_ai.response.id``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from evalschema.interop import export_results, import_results

HERE = Path(__file__).resolve().parent / "interop"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The ``.eval`` log of a real Inspect run whose outputs carry response ids, and Inspect's ``.json`` copy."""
    folder = tmp_path_factory.mktemp("inspect-response-ids")
    env = {**os.environ, "HOME": str(folder / "home"), "INSPECT_DISPLAY": "none", "INSPECT_LOG_DIR": str(folder)}
    done = subprocess.run(
        [sys.executable, str(HERE / "inspect_response_ids.py"), str(folder / "logs")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    eval_log, json_log = (Path(p) for p in done.stdout.split())
    return eval_log, json_log


@pytest.mark.slow
@pytest.mark.parametrize("form", ["eval", "json"])
def test_each_row_keeps_its_samples_response_id(form: str, logs: tuple[Path, Path], tmp_path: Path) -> None:
    eval_log, json_log = logs
    # what Inspect wrote: each sample's (id, epoch) and its output's response id, read from its own JSON log
    samples = orjson.loads(json_log.read_bytes())["samples"]
    expected = {(str(s["id"]), s["epoch"]): s["output"]["response_id"] for s in samples}
    assert len(expected) == 4 and len(set(expected.values())) == 4 and all(expected.values())

    out = tmp_path / "run.resultset.json"
    import_results("inspect_ai", [eval_log if form == "eval" else json_log], out)
    rows = orjson.loads(out.read_bytes())["results"]
    assert {(row["test_case_id"], row["attempt"]): row.get("response_id") for row in rows} == expected
    # members in schema order: the id after the row's verdict fields, before its metadata
    for row in rows:
        keys = list(row)
        assert keys.index("response_id") < keys.index("metadata")

    export_results("otel", out, tmp_path / "run.otlp.json")
    logs_out = orjson.loads((tmp_path / "run.otlp.json").read_bytes())["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    exported = set()
    for record in logs_out:
        attributes = {a["key"]: a["value"] for a in record["attributes"]}
        case, attempt = attributes["evalschema.test_case_id"]["stringValue"], int(attributes["evalschema.attempt"]["intValue"])
        assert attributes["gen_ai.response.id"]["stringValue"] == expected[(case, attempt)]
        exported.add((case, attempt))
    assert exported == set(expected)
