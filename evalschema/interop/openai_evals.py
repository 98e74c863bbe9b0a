"""Import an OpenAI Evals run log: the JSON Lines file ``oaieval`` writes (``--record_path``).

Lines: one ``{"spec": …}`` (the run), events ``{"run_id", "event_id", "sample_id", "type", "data", …}`` and one
``{"final_report": …}``, in any order (the recorder flushes in batches). Events are grouped by ``sample_id``;
a ``match`` event is a result of the grader ``match`` (the final report's ``accuracy`` of a match eval), each number
of a ``metrics`` event a result of the grader of that name (``f1_score``, ``accuracy`` of a fuzzy match; ``score`` is
the grader ``metrics``), so every metric of the final report that is a mean over samples is a grader's mean;
A ``metrics`` number outside [0, 1] (a model-graded eval whose ``choice_scores`` are a 1-5 rating) keeps its value as
``raw_score`` on its grader's scale, the smallest and largest values the log holds (OpenAI Evals writes no scale into
its log), so the grader's mean raw value is the final report's figure. The first ``sampling`` of a sample gives the
prompt and the output (a model-graded eval's later samplings are its grader's, kept with the other events; the
``match`` event's ``sampled`` when no completion function recorded a sampling, as with ``dummy``), ``error`` an
error. A log without a final report (an interrupted run) is a partial run
(``evalschema.partial``). The mapping is SPEC.md, Appendix A.4.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import orjson

from evalschema_models import constants

from ..core.rfc3339 import is_date_time
from .base import PASS_THRESHOLD, Scales, Sink, arr, finite_number, map_score, obj, prefixed, text_or_default
from .common import ConversionError, LossReport, input_lines

FORMAT = "openai_evals"


def _time(text: Any, loss: LossReport, source: str, where: str) -> str | None:
    """``2023-04-17 22:08:21.904498`` (naive, UTC) or with an offset, as RFC 3339 (the checker ``validate`` uses,
    :func:`evalschema.core.rfc3339.is_date_time`): an offset RFC 3339 cannot write (with seconds, ``+05:30:15``)
    becomes the same instant in UTC, approximated."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    written = moment.isoformat()
    if is_date_time(written):
        return written
    try:
        written = moment.astimezone(dt.UTC).isoformat()
    except (OverflowError, ValueError):
        written = ""
    if not is_date_time(written):
        loss.dropped(source, where, "a time no RFC 3339 date-time holds: not carried over")
        return None
    loss.approximated(source, where, "a UTC offset RFC 3339 cannot write (with seconds): the same instant in UTC")
    return written


def read(inputs: list[Path], sink: Sink, loss: LossReport) -> None:
    if len(inputs) != 1:
        raise ConversionError("IMPORT_NOT_FORMAT", "openai_evals import takes one run log (.jsonl)", ", ".join(map(str, inputs)))
    path = inputs[0]
    source = path.name
    spec: dict[str, Any] | None = None
    report: Any = None
    samples: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    spelled: dict[str, tuple[str | int, int]] = {}  # each sample id's text: the source's id and its first line
    for number, raw in input_lines(path):
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ConversionError("IMPORT_UNREADABLE", f"not a JSON line: {exc}", source, line=number) from None
        if not isinstance(line, dict):
            raise ConversionError("IMPORT_NOT_FORMAT", "a run log line is a JSON object", source, line=number)
        if "spec" in line:
            if not isinstance(line["spec"], dict):
                raise ConversionError("IMPORT_NOT_FORMAT", "spec is not an object", source, "/spec", line=number)
            spec = line["spec"]
        elif "final_report" in line:
            report = line["final_report"]
        elif "type" in line and "sample_id" in line:
            raw_id = line["sample_id"]
            if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or raw_id == "":
                raise ConversionError(
                    "IMPORT_NOT_FORMAT", "sample_id is not a non-empty string or a whole number", source, "/sample_id", number
                )
            sample_id = str(raw_id)
            first = spelled.setdefault(sample_id, (raw_id, number))
            if type(first[0]) is not type(raw_id):  # 1 and "1": two samples, one test case id; never merged
                raise ConversionError(
                    "IMPORT_NOT_FORMAT",
                    f"sample_id {raw_id!r} and sample_id {first[0]!r} (line {first[1]}) are distinct samples with the same text",
                    source,
                    "/sample_id",
                    number,
                )
            samples.setdefault(sample_id, []).append((number, line))
        else:
            raise ConversionError("IMPORT_NOT_FORMAT", "neither a spec, an event nor a final report", source, line=number)
    if spec is None:
        raise ConversionError("IMPORT_NOT_FORMAT", "no spec line: not an OpenAI Evals run log", source, "/spec")
    eval_name = spec.get("eval_name")
    if not isinstance(eval_name, str) or not eval_name:
        raise ConversionError("IMPORT_NOT_FORMAT", "spec.eval_name is missing", source, "/spec/eval_name")
    started = _time(spec.get("created_at"), loss, source, "/spec/created_at")
    if started is None:
        started = dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).isoformat()
        loss.defaulted(source, "/spec/created_at", "no readable created_at: started_at is the file's modification time")
    run_id = spec.get("run_id") if isinstance(spec.get("run_id"), str) and spec["run_id"] else None
    if run_id is None:
        run_id = f"{eval_name}-{started}"
        loss.defaulted(source, "/spec/run_id", "no run_id: made from the eval name and the start time")
    fns = arr(spec.get("completion_fns"))
    resultset: dict[str, Any] = {"suite_id": eval_name, "run_id": run_id, "started_at": started, "runner": {"name": "openai_evals"}}
    if len(fns) == 1:
        resultset["provider"] = {"model": str(fns[0])}
    resultset["metadata"] = prefixed(
        FORMAT,
        {
            "final_report": report,
            "completion_fns": fns if len(fns) != 1 else None,
            **{k: v for k, v in spec.items() if k not in {"eval_name", "run_id", "created_at"}},
        },
    )
    scales = Scales()
    for events in samples.values():
        for _, event in events:
            if event.get("type") == "metrics":
                for name, value in obj(event.get("data")).items():
                    if _measure(value):
                        scales.see(_grader_id(name), value)
    scaled = scales.write_scales(
        resultset,
        loss,
        source,
        "/final_report",
        "values outside [0, 1] and no scale in the log: the scale is the smallest and largest values in the log, "
        "raw values kept as raw_score",
    )
    suite: dict[str, Any] = {"id": eval_name, "name": str(spec.get("base_eval") or eval_name)}
    if report is None:
        resultset["metadata"][constants.PARTIAL_KEY] = True  # the reserved key of a partial run (SPEC 3.3)
        loss.defaulted(source, "/final_report", "no final report (an interrupted run): a partial run, the summary computed from the events")
    sink.start(resultset, suite)
    for sample_id, events in samples.items():
        _sample(sample_id, events, sink, loss, source, scaled)


def _grader_id(metric: str) -> str:
    """The grader of a ``metrics`` event's number: its name, ``score`` (a model-graded eval's) being ``metrics``."""
    return "metrics" if metric == "score" else metric


def _sample(
    sample_id: str,
    events: list[tuple[int, dict[str, Any]]],
    sink: Sink,
    loss: LossReport,
    source: str,
    scaled: dict[str, dict[str, float]],
) -> None:
    prompt: Any = None
    sampled: Any = None
    expected: Any = None
    results: list[dict[str, Any]] = []
    error: dict[str, Any] | None = None
    kept: list[dict[str, Any]] = []
    last_time: str | None = None
    answered: Any = None  # the match event's own copy of the answer (the only one when no sampling was recorded)
    for number, event in sorted(
        events, key=lambda item: (item[1].get("event_id", 0) if isinstance(item[1].get("event_id"), int) else 0, item[0])
    ):
        kind = event.get("type")
        data = obj(event.get("data"))
        where = f":{number}/data"
        last_time = _time(event.get("created_at"), loss, source, f":{number}/created_at") or last_time
        if kind == "sampling" and prompt is None and sampled is None:  # the answer; later ones are a grader's
            prompt = data.get("prompt")
            sampled = data.get("sampled")
        elif kind == "match":
            correct = data.get("correct")
            score, passed, extra = map_score(correct, loss, source, where + "/correct", threshold=1.0)
            expected = data.get("expected", expected)
            answered = data.get("sampled", answered)
            meta = prefixed(FORMAT, {**extra, **{k: v for k, v in data.items() if k != "correct"}})
            results.append(
                {"grader_id": "match", "type": "custom", "score": score, "passed": passed, **({"metadata": meta} if meta else {})}
            )
        elif kind == "metrics" and any(_measure(v) for v in data.values()):
            others = {k: v for k, v in data.items() if not _measure(v)}
            for name, value in data.items():
                if not _measure(value):
                    continue
                grader = _grader_id(name)
                scale = scaled.get(grader)
                result: dict[str, Any] = {"grader_id": grader, "type": "custom"}
                if scale is not None and not isinstance(value, bool):
                    score = (value - scale["min"]) / (scale["max"] - scale["min"])
                    result.update(score=score, raw_score=value, passed=score >= PASS_THRESHOLD)
                    extra = {}
                else:
                    score, passed, extra = map_score(value, loss, source, f"{where}/{name}")
                    result.update(score=score, passed=passed)
                meta = prefixed(FORMAT, {**extra, **others})
                if meta:
                    result["metadata"] = meta
                results.append(result)
        elif kind == "error":
            error = {"type": "runner_error", "message": f"{data.get('type', 'Error')}: {data.get('message', '')}"}
            loss.defaulted(source, where, "OpenAI Evals does not classify errors: error.type is runner_error")
        else:
            kept.append(event)
    for result in results:
        grader = result["grader_id"]
        declared = {"scale": scaled[grader]} if grader in scaled else {}
        sink.grader({"id": grader, "type": "custom", "params": {"handler": f"openai_evals:{grader}"}, **declared})
    if not results:
        sink.grader({"id": "match", "type": "custom", "params": {"handler": "openai_evals:match"}})
    case: dict[str, Any] = {"id": sample_id, "input": _input(prompt, loss, source, f"/{sample_id}/sampling/prompt")}
    if isinstance(expected, str):
        case["expected_output"] = expected
    elif expected is not None:
        case["metadata"] = {"openai_evals.expected": expected}
        loss.approximated(source, f"/{sample_id}/match/expected", "several expected answers: kept in metadata openai_evals.expected")
    if isinstance(prompt, list):
        case.setdefault("metadata", {})["openai_evals.prompt"] = prompt
    sink.test_case(case)
    row: dict[str, Any] = {"test_case_id": sample_id, "grader_results": results}
    if sampled is None:
        sampled = answered
    if isinstance(sampled, list) and sampled and isinstance(sampled[0], str):
        row["actual_output"] = sampled[0]
        if len(sampled) > 1:
            loss.approximated(source, f"/{sample_id}/sampling/sampled", "several samples: actual_output is the first, all are in metadata")
    elif isinstance(sampled, str):
        row["actual_output"] = sampled
    if error is not None:
        row["error"] = error
    if last_time:
        row["completed_at"] = last_time
    meta = prefixed(FORMAT, {"sampled": sampled if isinstance(sampled, list) and len(sampled) > 1 else None, "events": kept})
    if meta:
        row["metadata"] = meta
    sink.result(row)


def _measure(value: Any) -> bool:
    """A metric value of a ``metrics`` event: a number or a boolean (the rest, text or lists, is kept in metadata)."""
    return isinstance(value, (bool, int, float))


def _input(prompt: Any, loss: LossReport, source: str, where: str) -> str | list[str]:
    if isinstance(prompt, list) and prompt:
        texts = [f"{m.get('role', 'user')}: {m.get('content', '')}" if isinstance(m, dict) else str(m) for m in prompt]
        loss.approximated(
            source, where, "chat prompt flattened to 'role: content' strings; the messages are kept in metadata openai_evals.prompt"
        )
        return texts
    return text_or_default(prompt if isinstance(prompt, str) else "", loss, source, where)


__all__ = ["finite_number", "read"]
