"""Export grader results as OpenTelemetry GenAI ``gen_ai.evaluation.result`` events, as OTLP/JSON logs.

The output is one ``ExportLogsServiceRequest`` in the OTLP/JSON encoding (what an OTLP/HTTP exporter posts to
``/v1/logs``): one log record per grader result, with the event name ``gen_ai.evaluation.result`` and the
attributes of the GenAI semantic conventions (``gen_ai.evaluation.name``, ``gen_ai.evaluation.score.value``,
``gen_ai.evaluation.score.label``, ``gen_ai.evaluation.explanation``), plus ``evalschema.*`` attributes for what
the conventions have no name for (test case, attempt, run). The mapping is SPEC.md, Appendix A.7.
"""

from __future__ import annotations

import datetime as dt
from typing import IO, Any

import orjson

from .common import LossReport

EVENT_NAME = "gen_ai.evaluation.result"
SCOPE = {"name": "evalschema.interop.otel"}


def _nanos(text: str) -> str:
    moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return str(int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000)


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # int64 is a string in OTLP/JSON
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in values.items() if v is not None]


def write(document: dict[str, Any], stream: IO[bytes], loss: LossReport, source: str) -> int:
    started = _nanos(document["started_at"])
    resource: dict[str, Any] = {"service.name": (document.get("runner") or {}).get("name") or "evalschema"}
    if (document.get("runner") or {}).get("version"):
        resource["service.version"] = document["runner"]["version"]
    records: list[dict[str, Any]] = []
    for index, row in enumerate(document.get("results", [])):
        when = _nanos(row["completed_at"]) if row.get("completed_at") else started
        if not row.get("completed_at"):
            loss.defaulted(source, f"/results/{index}/completed_at", "no completed_at: the event time is the run's started_at")
        common = {
            "gen_ai.request.model": (document.get("provider") or {}).get("model"),
            "evalschema.run_id": document["run_id"],
            "evalschema.suite_id": document["suite_id"],
            "evalschema.test_case_id": row["test_case_id"],
            "evalschema.attempt": row.get("attempt"),
            "evalschema.result.passed": row["passed"],
        }
        if "error" in row:
            common["error.type"] = row["error"].get("type", "runner_error")
        if not row["grader_results"]:
            loss.dropped(
                source,
                f"/results/{index}",
                "a row with no grader result has no evaluation event" + (" (its error is lost)" if "error" in row else ""),
            )
        for g, result in enumerate(row["grader_results"]):
            attributes = {
                "gen_ai.evaluation.name": result["grader_id"],
                "gen_ai.evaluation.score.value": float(result["score"]) if result["score"] is not None else None,
                "gen_ai.evaluation.score.label": "pass" if result["passed"] else ("unscored" if result["score"] is None else "fail"),
                "gen_ai.evaluation.explanation": result.get("reason"),
                "evalschema.grader.type": result["type"],
                **common,
            }
            records.append(
                {
                    "timeUnixNano": when,
                    "observedTimeUnixNano": when,
                    "eventName": EVENT_NAME,
                    "severityNumber": 9,
                    "severityText": "INFO",
                    "attributes": _attributes(attributes),
                }
            )
            if result.get("metadata"):
                loss.dropped(source, f"/results/{index}/grader_results/{g}/metadata", "grader result metadata has no event attribute")
        for field in ("actual_output", "metadata", "constraint_violations", "duration_ms"):
            if row.get(field):
                loss.dropped(source, f"/results/{index}/{field}", f"the row's {field} has no attribute in gen_ai.evaluation.result")
    request = {
        "resourceLogs": [{"resource": {"attributes": _attributes(resource)}, "scopeLogs": [{"scope": SCOPE, "logRecords": records}]}]
    }
    if document.get("metadata"):
        loss.dropped(source, "/metadata", "result set metadata has no place in the events")
    stream.write(orjson.dumps(request) + b"\n")
    return len(records)
