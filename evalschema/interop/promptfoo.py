"""Import promptfoo results: the JSON written by ``promptfoo eval -o results.json`` (``results.version`` 3 and later).

One row per entry of ``results.results`` (a test × prompt × provider); a test case per (test, prompt), its
input the rendered prompt and its ``vars`` in metadata; a grader per assertion of a test; the assertion's
component result is the grader result. The mapping is SPEC.md, Appendix A.2.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import orjson

from .base import SAFE_INTEGER, Sink, date_time, finite_number, obj, prefixed, text_or_default, whole_ms
from .common import ConversionError, LossReport, read_input

FORMAT = "promptfoo"
MIN_VERSION = 3
_WELL_KNOWN = {"contains": "contains", "icontains": "contains", "equals": "exact_match", "regex": "regex"}
_ROW_MAPPED = {
    "testIdx",
    "promptIdx",
    "prompt",
    "provider",
    "response",
    "gradingResult",
    "latencyMs",
    "error",
    "testCase",
    "vars",
    "success",
    "score",
    "failureReason",
}
ERROR_FAILURE = 2  # promptfoo's ResultFailureReason.ERROR (1 is ASSERT)


def _load(path: Path) -> Any:
    try:
        return orjson.loads(read_input(path))
    except orjson.JSONDecodeError as exc:
        raise ConversionError("IMPORT_UNREADABLE", f"not valid JSON: {exc}", str(path)) from None


def _grader(test: int, index: int, assertion: dict[str, Any]) -> dict[str, Any]:
    kind = str(assertion.get("type", "unknown"))
    value = assertion.get("value")
    grader_id = f"test-{test}/assert-{index}:{kind}"
    mapped = _WELL_KNOWN.get(kind)
    extra = {k: v for k, v in assertion.items() if k not in {"type", "value"}}
    if mapped == "contains" and isinstance(value, str) and value:
        params: dict[str, Any] = {"substring": value, **({"ignore_case": True} if kind == "icontains" else {})}
    elif mapped == "regex" and isinstance(value, str) and value:
        params = {"pattern": value}
    elif mapped == "exact_match" and isinstance(value, str):
        params = {"expected": value}
    else:
        mapped = "custom"
        params = {"handler": f"promptfoo:{kind}", **({"value": value} if value is not None else {})}
    if extra:
        params["promptfoo"] = extra
    return {"id": grader_id, "type": mapped, "params": params}


def read(inputs: list[Path], sink: Sink, loss: LossReport) -> None:
    if len(inputs) != 1:
        raise ConversionError("IMPORT_NOT_FORMAT", "promptfoo import takes one results JSON file", ", ".join(map(str, inputs)))
    path = inputs[0]
    source = path.name
    doc = _load(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), dict):
        raise ConversionError("IMPORT_NOT_FORMAT", "not a promptfoo results file: no 'results' object", source, "/results")
    body = doc["results"]
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ConversionError("IMPORT_NOT_FORMAT", "missing results.version", source, "/results/version")
    if version < MIN_VERSION:
        raise ConversionError(
            "IMPORT_VERSION_UNSUPPORTED",
            f"results version {version} (reads {MIN_VERSION} and later; re-export with a current promptfoo)",
            source,
            "/results/version",
        )
    rows = body.get("results")
    if not isinstance(rows, list):
        raise ConversionError("IMPORT_NOT_FORMAT", "results.results is not a list", source, "/results/results")
    config = obj(doc.get("config"))
    meta = obj(doc.get("metadata"))
    stamped = "/results/timestamp" if body.get("timestamp") else "/metadata/timestamp"
    timestamp = date_time(body.get("timestamp") or meta.get("timestamp"), loss, source, stamped)
    if timestamp is None:
        timestamp = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).isoformat().replace("+00:00", "Z")
        loss.defaulted(source, "/results/timestamp", "no timestamp: started_at is the file's modification time")
    description = config.get("description") if isinstance(config.get("description"), str) else None
    suite_id = f"promptfoo:{description}" if description else "promptfoo"
    run_id = doc.get("evalId") if isinstance(doc.get("evalId"), str) and doc["evalId"] else None
    if run_id is None:
        run_id = f"promptfoo-{timestamp}"
        loss.defaulted(source, "/evalId", "no evalId: run_id made from the timestamp")
    providers = sorted({_provider_id(r) for r in rows if isinstance(r, dict)} - {""})
    for index, row in enumerate(rows):  # checked before use: the prompt index makes the test case ids
        prompt_index = row.get("promptIdx", 0) if isinstance(row, dict) else 0
        if not isinstance(prompt_index, int) or isinstance(prompt_index, bool) or not 0 <= prompt_index <= SAFE_INTEGER:
            raise ConversionError(
                "IMPORT_NOT_FORMAT", "promptIdx is not a prompt index (a whole number)", source, f"/results/results/{index}/promptIdx"
            )
    prompts = {r.get("promptIdx") for r in rows if isinstance(r, dict)}
    resultset: dict[str, Any] = {
        "suite_id": suite_id,
        "run_id": run_id,
        "started_at": timestamp,
        "runner": {"name": "promptfoo", **({"version": str(meta["promptfooVersion"])} if meta.get("promptfooVersion") else {})},
    }
    if len(providers) == 1:
        resultset["provider"] = {"model": providers[0]}
    resultset["metadata"] = prefixed(
        FORMAT,
        {
            "evalId": doc.get("evalId"),
            "version": version,
            "stats": body.get("stats"),
            "prompts": body.get("prompts"),
            "metadata": meta,
            "shareableUrl": doc.get("shareableUrl"),
            "providers": providers if len(providers) > 1 else None,
            **{k: v for k, v in body.items() if k not in {"version", "timestamp", "results", "stats", "prompts"}},
            **{k: v for k, v in doc.items() if k not in {"evalId", "results", "config", "metadata", "shareableUrl"}},
        },
    )
    suite: dict[str, Any] = {"id": suite_id, "metadata": prefixed(FORMAT, {"config": config})}
    if description:
        suite["name"] = description
    sink.start(resultset, suite)
    if len(providers) > 1:
        loss.approximated(
            source,
            "/results/results",
            "several providers in one run: each row names its provider in metadata promptfoo.provider; the result set has no provider",
        )
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ConversionError("IMPORT_NOT_FORMAT", "a result is not an object", source, f"/results/results/{index}")
        _row(row, index, len(prompts) > 1, len(providers) > 1, sink, loss, source)


def _provider_id(row: dict[str, Any]) -> str:
    provider = row.get("provider")
    if isinstance(provider, dict):
        return str(provider.get("id") or provider.get("label") or "")
    return str(provider or "")


def _row(row: dict[str, Any], index: int, many_prompts: bool, many_providers: bool, sink: Sink, loss: LossReport, source: str) -> None:
    base = f"/results/results/{index}"
    test = row.get("testIdx")
    if not isinstance(test, int) or isinstance(test, bool):
        raise ConversionError("IMPORT_NOT_FORMAT", "a result has no testIdx", source, base + "/testIdx")
    prompt_index = row.get("promptIdx", 0)
    case_id = f"test-{test}" + (f"/prompt-{prompt_index}" if many_prompts else "")
    test_case = obj(row.get("testCase"))
    assertions = [a for a in test_case.get("assert") or [] if isinstance(a, dict)]
    graders = [_grader(test, i, a) for i, a in enumerate(assertions)]
    for grader in graders:
        sink.grader(grader)
    prompt = obj(row.get("prompt"))
    case: dict[str, Any] = {
        "id": case_id,
        "input": text_or_default(prompt.get("raw"), loss, source, base + "/prompt/raw"),
        "graders": [g["id"] for g in graders] or ["promptfoo:no-assertions"],
    }
    if not graders:
        sink.grader({"id": "promptfoo:no-assertions", "type": "custom", "params": {"handler": "promptfoo:none"}})
    case_meta = prefixed(
        FORMAT,
        {
            "vars": row.get("vars") or test_case.get("vars"),
            "description": test_case.get("description"),
            "prompt": {k: v for k, v in prompt.items() if k != "raw"},
            "options": test_case.get("options"),
            "metadata": test_case.get("metadata"),
            "threshold": test_case.get("threshold"),
            **{k: v for k, v in test_case.items() if k not in {"vars", "description", "options", "metadata", "threshold", "assert"}},
        },
    )
    if case_meta:
        case["metadata"] = case_meta
    sink.test_case(case)

    out: dict[str, Any] = {"test_case_id": case_id}
    response = obj(row.get("response"))
    output = response.get("output")
    if isinstance(output, str):
        out["actual_output"] = output
    elif output is not None:
        out["actual_output"] = orjson.dumps(output).decode()
        loss.approximated(source, base + "/response/output", "a structured output written as JSON text")
    grading = obj(row.get("gradingResult"))
    components = [c for c in grading.get("componentResults") or [] if isinstance(c, dict)]
    results = []
    for i, grader in enumerate(graders):
        component = _component(components, assertions[i], i)
        if component is None:
            results.append({"grader_id": grader["id"], "type": grader["type"], "score": None, "passed": False})
            if "error" not in row and grading:
                loss.defaulted(source, f"{base}/gradingResult/componentResults", "an assertion has no component result: unscored")
            continue
        score = finite_number(component.get("score"))
        passed = component.get("pass") is True
        kept: dict[str, Any] = {}
        if score is None or not 0.0 <= score <= 1.0:
            kept["score"] = component.get("score")
            loss.approximated(
                source,
                f"{base}/gradingResult/componentResults/{i}/score",
                "score outside [0, 1] or missing: unscored, the value in metadata",
            )
            score, passed = None, False
        result: dict[str, Any] = {"grader_id": grader["id"], "type": grader["type"], "score": score, "passed": passed}
        if isinstance(component.get("reason"), str):
            result["reason"] = component["reason"]
        meta = prefixed(
            FORMAT,
            {
                **kept,
                "namedScores": component.get("namedScores"),
                "tokensUsed": component.get("tokensUsed"),
                "metadata": component.get("metadata"),
            },
        )
        if meta:
            result["metadata"] = meta
        results.append(result)
    out["grader_results"] = results
    latency = whole_ms(row.get("latencyMs"), 1, loss, source, base + "/latencyMs")
    if latency is not None:
        out["duration_ms"] = latency
    error = row.get("error") or response.get("error")
    if error and (row.get("failureReason") == ERROR_FAILURE or not grading):
        out["error"] = {"type": "provider_error", "message": str(error)}
        loss.defaulted(source, base + "/error", "promptfoo does not say which part failed: error.type is provider_error")
    out_meta = prefixed(
        FORMAT,
        {
            "id": row.get("id"),
            "provider": row.get("provider") if many_providers or isinstance(row.get("provider"), dict) else None,
            "promptIdx": prompt_index,
            "testIdx": test,
            "success": row.get("success"),
            "score": row.get("score"),
            "failureReason": row.get("failureReason"),
            "gradingResult": {k: v for k, v in grading.items() if k != "componentResults"},
            "tokenUsage": response.get("tokenUsage"),
            "response": {k: v for k, v in response.items() if k not in {"output", "tokenUsage"}},
            "error": error if "error" not in out else None,
            **{k: v for k, v in row.items() if k not in _ROW_MAPPED},
        },
    )
    if out_meta:
        out["metadata"] = out_meta
    sink.result(out)


def _component(components: list[dict[str, Any]], assertion: dict[str, Any], index: int) -> dict[str, Any] | None:
    """The component result of an assertion: the one that names an equal assertion, else the one at its position."""
    for component in components:
        if component.get("assertion") == assertion:
            return component
    if index < len(components) and components[index].get("assertion") is None:
        return components[index]
    return None
