"""Import a DeepEval test run: the JSON of ``TestRun.model_dump(by_alias=True)`` that DeepEval saves locally
(``.deepeval/.latest_run_full.json``, or ``test_run_*.json`` in ``DEEPEVAL_RESULTS_FOLDER``).

One row per entry of ``testCases`` and of ``conversationalTestCases`` (multi-turn: the turns are the input, as
``role: content`` strings, the last assistant turn the output; ids ``conversation:<order>:<name>``, so a conversation
and a single-turn case of one name and order stay two test cases); each ``metricsData`` entry is a grader result
(score, threshold, success, reason; a metric ``error`` leaves it unscored). The mapping is SPEC.md, Appendix A.5.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import orjson

from .base import Sink, finite_number, prefixed, text_or_default, whole_ms
from .common import ConversionError, LossReport, read_input

FORMAT = "deepeval"
_CASE_MAPPED = {
    "name",
    "input",
    "actualOutput",
    "expectedOutput",
    "context",
    "retrievalContext",
    "toolsCalled",
    "expectedTools",
    "metricsData",
    "success",
    "runDuration",
    "tags",
    "order",
}


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "metric"


def _strings(value: Any) -> list[str] | None:
    if not isinstance(value, list):
        return None
    out: list[str] = []
    for v in value:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict) and isinstance(v.get("name"), str):
            out.append(v["name"])
        else:
            out.append(orjson.dumps(v).decode())
    return out


def read(inputs: list[Path], sink: Sink, loss: LossReport) -> None:
    if len(inputs) != 1:
        raise ConversionError("IMPORT_NOT_FORMAT", "deepeval import takes one test run JSON file", ", ".join(map(str, inputs)))
    path = inputs[0]
    source = path.name
    try:
        doc = orjson.loads(read_input(path))
    except orjson.JSONDecodeError as exc:
        raise ConversionError("IMPORT_UNREADABLE", f"not valid JSON: {exc}", str(path)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("testCases"), list):
        raise ConversionError("IMPORT_NOT_FORMAT", "not a DeepEval test run: no 'testCases' list", source, "/testCases")
    started = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).isoformat().replace("+00:00", "Z")
    loss.defaulted(source, "", "a DeepEval test run records no start time: started_at is the file's modification time")
    identifier = doc.get("identifier") if isinstance(doc.get("identifier"), str) and doc["identifier"] else None
    suite_id = f"deepeval:{doc.get('datasetAlias') or doc.get('testFile') or 'test-run'}"
    run_id = identifier or f"deepeval-{path.stem}"
    if identifier is None:
        loss.defaulted(source, "/identifier", "no identifier: run_id made from the file name")
    resultset: dict[str, Any] = {"suite_id": suite_id, "run_id": run_id, "started_at": started, "runner": {"name": "deepeval"}}
    if isinstance(doc.get("datasetVersion"), str):
        resultset["suite_version"] = doc["datasetVersion"]
    resultset["metadata"] = prefixed(
        FORMAT, {k: v for k, v in doc.items() if k not in {"testCases", "conversationalTestCases", "identifier"}}
    )
    sink.start(resultset, {"id": suite_id})
    slugs: dict[str, str] = {}  # grader id -> the metric name it was made from: two names, one id, is refused
    for index, case in enumerate(doc["testCases"]):
        if not isinstance(case, dict):
            raise ConversionError("IMPORT_NOT_FORMAT", "a test case is not an object", source, f"/testCases/{index}")
        _case(case, index, sink, loss, source, slugs)
    conversations = doc.get("conversationalTestCases")
    if conversations is not None and not isinstance(conversations, list):
        raise ConversionError("IMPORT_NOT_FORMAT", "conversationalTestCases is not a list", source, "/conversationalTestCases")
    for index, case in enumerate(conversations or []):
        if not isinstance(case, dict):
            raise ConversionError("IMPORT_NOT_FORMAT", "a test case is not an object", source, f"/conversationalTestCases/{index}")
        _conversation(case, index, sink, loss, source, slugs)


def _case(case: dict[str, Any], index: int, sink: Sink, loss: LossReport, source: str, slugs: dict[str, str]) -> None:
    base = f"/testCases/{index}"
    name = case.get("name")
    if not isinstance(name, str) or not name:
        raise ConversionError("IMPORT_NOT_FORMAT", "a test case has no name", source, base + "/name")
    order = case.get("order")
    case_id = f"{order if isinstance(order, int) else index}:{name}"
    metrics, graders = _graders(case, base, sink, source, slugs)
    if not graders:
        sink.grader({"id": "deepeval:no-metrics", "type": "custom", "params": {"handler": "deepeval:none"}})
    out: dict[str, Any] = {
        "id": case_id,
        "input": text_or_default(case.get("input"), loss, source, base + "/input"),
        "graders": graders or ["deepeval:no-metrics"],
    }
    if isinstance(case.get("expectedOutput"), str):
        out["expected_output"] = case["expectedOutput"]
    for field, target in (
        ("context", "context"),
        ("retrievalContext", "retrieval_context"),
        ("toolsCalled", "tools_called"),
        ("expectedTools", "expected_tools"),
    ):
        values = _strings(case.get(field))
        if values is not None:
            out[target] = values
            if any(not isinstance(v, str) for v in case[field]):
                loss.approximated(
                    source, f"{base}/{field}", "tool calls reduced to their names (or JSON text); the objects are kept in metadata"
                )
                out.setdefault("metadata", {})[f"deepeval.{field}"] = case[field]
    if isinstance(case.get("tags"), list):
        out["tags"] = [str(t) for t in case["tags"]]
    sink.test_case(out, distinct=True)  # id: order and name; two cases of one id with other inputs are refused
    row: dict[str, Any] = {"test_case_id": case_id}
    if isinstance(case.get("actualOutput"), str):
        row["actual_output"] = case["actualOutput"]
    results = _results(metrics, base, loss, source)
    row["grader_results"] = results
    duration = whole_ms(case.get("runDuration"), 1000, loss, source, base + "/runDuration")
    if duration is not None:
        row["duration_ms"] = duration
    meta = prefixed(FORMAT, {"success": case.get("success"), **{k: v for k, v in case.items() if k not in _CASE_MAPPED}})
    if meta:
        row["metadata"] = meta
    sink.result(row)


def _graders(case: dict[str, Any], base: str, sink: Sink, source: str, slugs: dict[str, str]) -> tuple[list[dict[str, Any]], list[str]]:
    """A case's metrics and the ids of their graders (declared in the suite)."""
    metrics = [m for m in case.get("metricsData") or [] if isinstance(m, dict)]
    graders: list[str] = []
    for metric in metrics:
        if not isinstance(metric.get("name"), str):
            raise ConversionError("IMPORT_NOT_FORMAT", "a metric has no name", source, base + "/metricsData")
        named = slugs.setdefault(_slug(metric["name"]), metric["name"])
        if named != metric["name"]:  # "Word Overlap" and "Word_Overlap": two metrics, never merged into one grader
            raise ConversionError(
                "IMPORT_NOT_FORMAT",
                f"metrics {named!r} and {metric['name']!r} both become the grader id {_slug(named)!r}",
                source,
                f"{base}/metricsData/{case['metricsData'].index(metric)}/name",
            )
        params: dict[str, Any] = {"handler": f"deepeval:{metric['name']}"}
        if finite_number(metric.get("threshold")) is not None:
            params["threshold"] = metric["threshold"]
        sink.grader({"id": _slug(metric["name"]), "type": "custom", "params": params})
        graders.append(_slug(metric["name"]))
    return metrics, graders


def _results(metrics: list[dict[str, Any]], base: str, loss: LossReport, source: str) -> list[dict[str, Any]]:
    results = []
    for i, metric in enumerate(metrics):
        where = f"{base}/metricsData/{i}"
        score = finite_number(metric.get("score"))
        kept: dict[str, Any] = {}
        if metric.get("error"):
            score, passed = None, False
        elif score is None or not 0.0 <= score <= 1.0:
            kept["score"] = metric.get("score")
            loss.approximated(source, where + "/score", "score outside [0, 1] or missing: unscored, the value in metadata")
            score, passed = None, False
        else:
            passed = metric.get("success") is True
        result: dict[str, Any] = {"grader_id": _slug(metric["name"]), "type": "custom", "score": score, "passed": passed}
        if isinstance(metric.get("reason"), str):
            result["reason"] = metric["reason"]
        meta = prefixed(FORMAT, {**kept, **{k: v for k, v in metric.items() if k not in {"name", "score", "reason", "success"}}})
        if meta:
            result["metadata"] = meta
        results.append(result)
    return results


_CONVERSATION_MAPPED = {"name", "turns", "expectedOutcome", "context", "metricsData", "success", "runDuration", "tags", "order"}


def _conversation(case: dict[str, Any], index: int, sink: Sink, loss: LossReport, source: str, slugs: dict[str, str]) -> None:
    """A conversational (multi-turn) test case: the turns, in their order, are the input as ``role: content`` strings
    (approximated: the turns themselves are kept in metadata), the last assistant turn the output."""
    base = f"/conversationalTestCases/{index}"
    name = case.get("name")
    if not isinstance(name, str) or not name:
        raise ConversionError("IMPORT_NOT_FORMAT", "a test case has no name", source, base + "/name")
    order = case.get("order")
    case_id = f"conversation:{order if isinstance(order, int) and not isinstance(order, bool) else index}:{name}"
    metrics, graders = _graders(case, base, sink, source, slugs)
    if not graders:
        sink.grader({"id": "deepeval:no-metrics", "type": "custom", "params": {"handler": "deepeval:none"}})
    turns = [t for t in case.get("turns") or [] if isinstance(t, dict)]
    turns.sort(key=lambda t: t["order"] if isinstance(t.get("order"), int) and not isinstance(t.get("order"), bool) else 0)
    lines = [f"{t.get('role', 'user')}: {t.get('content', '')}" for t in turns]
    out: dict[str, Any] = {"id": case_id, "graders": graders or ["deepeval:no-metrics"]}
    if lines:
        out["input"] = lines
        loss.approximated(
            source, base + "/turns", "a conversation's turns as 'role: content' strings; the turns are kept in metadata deepeval.turns"
        )
    else:
        out["input"] = text_or_default(None, loss, source, base + "/turns")
    if isinstance(case.get("expectedOutcome"), str):
        out["expected_output"] = case["expectedOutcome"]
    context = _strings(case.get("context"))
    if context is not None:
        out["context"] = context
    if isinstance(case.get("tags"), list):
        out["tags"] = [str(t) for t in case["tags"]]
    if turns:
        out["metadata"] = {"deepeval.turns": case.get("turns")}
    sink.test_case(out, distinct=True)
    row: dict[str, Any] = {"test_case_id": case_id}
    replies = [t.get("content") for t in turns if t.get("role") == "assistant" and isinstance(t.get("content"), str)]
    if replies:
        row["actual_output"] = replies[-1]
    row["grader_results"] = _results(metrics, base, loss, source)
    duration = whole_ms(case.get("runDuration"), 1000, loss, source, base + "/runDuration")
    if duration is not None:
        row["duration_ms"] = duration
    meta = prefixed(FORMAT, {"success": case.get("success"), **{k: v for k, v in case.items() if k not in _CONVERSATION_MAPPED}})
    if meta:
        row["metadata"] = meta
    sink.result(row)
