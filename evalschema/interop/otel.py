"""Export grader results as OpenTelemetry GenAI ``gen_ai.evaluation.result`` events, as OTLP/JSON logs.

The output is one ``ExportLogsServiceRequest`` in the OTLP/JSON encoding (what an OTLP/HTTP exporter posts to
``/v1/logs``): one log record per grader result, with the event name ``gen_ai.evaluation.result`` and the
attributes of the GenAI semantic conventions (``gen_ai.evaluation.name``, ``gen_ai.evaluation.score.value``,
``gen_ai.evaluation.score.label``, ``gen_ai.evaluation.explanation``, and ``gen_ai.response.id`` from the row's
``response_id``), plus ``evalschema.*`` attributes for what the conventions have no name for (test case, attempt,
run); a row's ``trace_id`` and ``span_id`` are the record's own ``traceId`` and ``spanId``. The mapping is SPEC.md,
Appendix A.7.
"""

from __future__ import annotations

import re
from typing import IO, Any

import orjson

from evalschema_models import constants

from ..core import rfc3339
from .common import LossReport

EVENT_NAME = "gen_ai.evaluation.result"
SCOPE = {"name": "evalschema.interop.otel"}
_DATE, _TIME = constants.DATE_FIELDS, constants.TIME_FIELDS  # the SPEC's RFC 3339 grammar (data)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date, year 0000 included (Hinnant's ``days_from_civil``:
    ``datetime`` stops at year 1)."""
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    of_cycle = of_era * 365 + of_era // 4 - of_era // 100 + of_year
    return era * 146097 + of_cycle - 719468


def _nanos(text: Any, loss: LossReport, source: str, where: str) -> str:
    """``timeUnixNano`` of an RFC 3339 date-time, read by the SPEC's grammar (``evalschema.core.rfc3339``: ``t``
    and ``z`` lowercase, year 0000, second 60), as OTLP's decimal string.

    OTLP's time is an unsigned count of nanoseconds since 1970 with no leap seconds, so: a leap second
    (23:59:60.f UTC) is the next day's 00:00:00.f, as POSIX counts it (approximated); a fraction finer than a
    nanosecond is cut (approximated); a time before 1970 has no ``timeUnixNano`` — it is written as ``"0"``,
    which OTLP defines as "unknown", and reported dropped (never clamped to a time that did not happen, never
    negative)."""
    if not isinstance(text, str) or not rfc3339.is_date_time(text):  # only with --force: an invalid document
        loss.dropped(source, where, "not an RFC 3339 date-time: the event time is unknown (0)")
        return "0"
    date = re.fullmatch(_DATE, text[:10], re.ASCII)
    time = re.fullmatch(_TIME, text[11:], re.ASCII)
    assert date is not None and time is not None  # rfc3339.is_date_time held
    year, month, day = (int(part) for part in date.groups())
    hour, minute, second = int(time[1]), int(time[2]), int(time[3])
    offset = 0 if time[4] is None else (int(time[5]) * 60 + int(time[6])) * (1 if time[4] == "+" else -1)
    fraction = text[19:].split("Z")[0].split("z")[0].split("+")[0].split("-")[0]
    digits = fraction[1:] if fraction.startswith(".") else ""
    if digits[9:].strip("0"):
        loss.approximated(source, where, "a fraction of a second finer than a nanosecond is cut")
    if second == 60:
        loss.approximated(source, where, "a leap second has no Unix time: written as the next day's first second")
    seconds = ((_days_from_civil(year, month, day) * 24 + hour) * 60 + minute - offset) * 60 + second
    nanos = seconds * 1_000_000_000 + int((digits[:9] or "0").ljust(9, "0"))
    if nanos < 0:
        loss.dropped(source, where, "a time before 1970 has no OTLP timeUnixNano: written as 0 (unknown)")
        return "0"
    return str(nanos)


def _utf8(text: str) -> str | None:
    """The text with each lone surrogate (JSON can escape one, UTF-8 cannot hold it) as U+FFFD; ``None`` when it
    had none."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return None


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}  # int64 is a string in OTLP/JSON
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def _attributes(values: dict[str, Any], loss: LossReport | None = None, source: str = "", where: str = "") -> list[dict[str, Any]]:
    out = []
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, str) and (replaced := _utf8(value)) is not None:
            value = replaced
            if loss is not None:
                loss.approximated(source, where, f"a lone surrogate in {key} (OTLP strings are UTF-8) is written as U+FFFD")
        out.append({"key": key, "value": _value(value)})
    return out


def write(document: dict[str, Any], stream: IO[bytes], loss: LossReport, source: str) -> int:
    started = _nanos(document["started_at"], loss, source, "/started_at")
    resource: dict[str, Any] = {"service.name": (document.get("runner") or {}).get("name") or "evalschema"}
    if (document.get("runner") or {}).get("version"):
        resource["service.version"] = document["runner"]["version"]
    records: list[dict[str, Any]] = []
    for index, row in enumerate(document.get("results", [])):
        when = _nanos(row["completed_at"], loss, source, f"/results/{index}/completed_at") if row.get("completed_at") else started
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
        common["gen_ai.response.id"] = row.get("response_id")
        # the LogRecord's own trace context: OTLP/JSON writes both ids as hex strings, not base64 (its one departure
        # from protobuf's JSON mapping), and a span id only beside a trace id
        context = {}
        if row.get("trace_id"):
            context["traceId"] = row["trace_id"]
            if row.get("span_id"):
                context["spanId"] = row["span_id"]
        elif row.get("span_id"):
            loss.dropped(source, f"/results/{index}/span_id", "a span id without a trace id has no OTLP trace context")
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
                    **context,
                    "attributes": _attributes(attributes, loss, source, f"/results/{index}/grader_results/{g}"),
                }
            )
            if result.get("metadata"):
                loss.dropped(source, f"/results/{index}/grader_results/{g}/metadata", "grader result metadata has no event attribute")
        for field in ("actual_output", "metadata", "constraint_violations", "duration_ms"):
            if row.get(field):
                loss.dropped(source, f"/results/{index}/{field}", f"the row's {field} has no attribute in gen_ai.evaluation.result")
    request = {
        "resourceLogs": [
            {
                "resource": {"attributes": _attributes(resource, loss, source, "/runner")},
                "scopeLogs": [{"scope": SCOPE, "logRecords": records}],
            }
        ]
    }
    if document.get("metadata"):
        loss.dropped(source, "/metadata", "result set metadata has no place in the events")
    stream.write(orjson.dumps(request) + b"\n")
    return len(records)
