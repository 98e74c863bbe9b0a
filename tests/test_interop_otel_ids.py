"""Spec 1.4.0: a result row's ``trace_id``, ``span_id`` and ``response_id`` reach the OpenTelemetry export as the
LogRecord's own ``traceId`` and ``spanId`` (hex strings, as OTLP/JSON writes them) and the ``gen_ai.response.id``
attribute; the export parses with the real ``opentelemetry-proto`` classes."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import orjson
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from evalschema.interop import export_results, import_results
from evalschema.pipeline import validate

INSPECT_LOG = Path(__file__).resolve().parent / "interop" / "data" / "inspect_ai" / "tiny-mockllm.eval"
TRACE, SPAN, RESPONSE = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "chatcmpl-9Xb2"


def _with_ids(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A real Inspect log imported, the ids a traced runner writes set on its first row (its trace and span, no
    response id) and its second (a response id only)."""
    source = tmp_path / "run.json"
    import_results("inspect_ai", [INSPECT_LOG], source)
    document = orjson.loads(source.read_bytes())
    rows = document["results"]
    scored = [i for i, row in enumerate(rows) if row["grader_results"]]
    rows[scored[0]].update(trace_id=TRACE, span_id=SPAN)
    rows[scored[1]]["response_id"] = RESPONSE
    assert validate(document, "resultset").valid
    source.write_bytes(orjson.dumps(document))
    return source, [rows[scored[0]], rows[scored[1]]]


def _otlp_json_to_protobuf_json(request: dict[str, Any]) -> dict[str, Any]:
    """OTLP/JSON writes trace and span ids as hex strings where protobuf's JSON mapping has base64 (the OTLP
    specification's one departure from it): a receiver turns them back into bytes before protobuf's own parser."""
    for resource in request["resourceLogs"]:
        for scope in resource["scopeLogs"]:
            for log in scope["logRecords"]:
                for key in ("traceId", "spanId"):
                    if key in log:
                        log[key] = base64.b64encode(bytes.fromhex(log[key])).decode("ascii")
    return request


def test_ids_reach_the_log_records(tmp_path: Path) -> None:
    source, (traced, answered) = _with_ids(tmp_path)
    export_results("otel", source, tmp_path / "run.otlp.json")
    written = orjson.loads((tmp_path / "run.otlp.json").read_bytes())
    logs = written["resourceLogs"][0]["scopeLogs"][0]["logRecords"]

    def of(row: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            log
            for log in logs
            if any(a["key"] == "evalschema.test_case_id" and a["value"]["stringValue"] == row["test_case_id"] for a in log["attributes"])
            and any(a["key"] == "evalschema.attempt" and a["value"]["intValue"] == str(row["attempt"]) for a in log["attributes"])
        ]

    # the OTLP/JSON text: lowercase hex, 32 and 16 digits, on each event of the row and on no other
    assert [(log.get("traceId"), log.get("spanId")) for log in of(traced)] == [(TRACE, SPAN)] * len(traced["grader_results"])
    assert sum(1 for log in logs if "traceId" in log or "spanId" in log) == len(traced["grader_results"])

    request = json_format.Parse(orjson.dumps(_otlp_json_to_protobuf_json(written)), ExportLogsServiceRequest())
    records = request.resource_logs[0].scope_logs[0].log_records
    with_context = [r for r in records if r.trace_id]
    assert [(r.trace_id, r.span_id) for r in with_context] == [(bytes.fromhex(TRACE), bytes.fromhex(SPAN))] * len(traced["grader_results"])
    assert all(len(r.trace_id) == 16 and len(r.span_id) == 8 for r in with_context)
    responses = [
        (r.attributes, next(a.value.string_value for a in r.attributes if a.key == "evalschema.test_case_id"))
        for r in records
        if any(a.key == "gen_ai.response.id" for a in r.attributes)
    ]
    assert len(responses) == len(answered["grader_results"])
    for attributes, case in responses:
        assert case == answered["test_case_id"]
        assert {a.key: a.value.string_value for a in attributes}["gen_ai.response.id"] == RESPONSE


def test_without_ids_the_records_have_no_trace_context(tmp_path: Path) -> None:
    source = tmp_path / "run.json"
    import_results("inspect_ai", [INSPECT_LOG], source)
    export_results("otel", source, tmp_path / "run.otlp.json")
    written = orjson.loads((tmp_path / "run.otlp.json").read_bytes())
    logs = written["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    assert logs and not any("traceId" in log or "spanId" in log for log in logs)
    assert not any(a["key"] == "gen_ai.response.id" for log in logs for a in log["attributes"])


def test_the_schema_refuses_ids_that_are_no_w3c_ids(tmp_path: Path) -> None:
    source, _ = _with_ids(tmp_path)
    document = orjson.loads(source.read_bytes())
    row = next(row for row in document["results"] if "trace_id" in row)
    for field, value in (
        ("trace_id", TRACE.upper()),
        ("trace_id", "0" * 32),
        ("trace_id", TRACE + "0"),
        ("trace_id", TRACE + "\n"),
        ("span_id", "0" * 16),
        ("span_id", SPAN[:-1]),
        ("span_id", SPAN[:-1] + "g"),
        ("response_id", ""),
    ):
        broken = {**row, field: value}
        document["results"][document["results"].index(row)] = broken
        assert not validate(document, "resultset").valid, (field, value)
        document["results"][document["results"].index(broken)] = row
