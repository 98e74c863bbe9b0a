"""Import lm-evaluation-harness output: one ``results_<timestamp>.json`` and its ``samples_<task>_<timestamp>.jsonl``.

The samples files are read line by line (memory holds one line). One row per sample line; a test case per
(task, ``doc_id``, ``filter``); a grader per (task, metric). The mapping is SPEC.md, Appendix A.3.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import orjson

from .base import Sink, arr, finite_number, from_epoch, map_score, obj, prefixed, text_or_default
from .common import ConversionError, LossReport, input_lines, read_input

FORMAT = "lm_eval"
SUPPORTED = re.compile(r"^0\.4\.")
_RESULTS = re.compile(r"^results_(?P<stamp>.+)\.json$")
_SAMPLES = re.compile(r"^samples_(?P<rest>.+)\.jsonl$")
_LINE_MAPPED = {"doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics"}
_HEADER_MAPPED = {"results", "configs", "n-shot", "higher_is_better", "lm_eval_version", "date", "model_name", "config"}


def _load_json(path: Path) -> Any:
    try:
        return orjson.loads(read_input(path))
    except orjson.JSONDecodeError as exc:
        raise ConversionError("IMPORT_UNREADABLE", f"not valid JSON: {exc}", str(path)) from None


def _task_of(samples: Path, tasks: list[str], stamp: str | None) -> str:
    match = _SAMPLES.match(samples.name)
    rest = match.group("rest") if match else samples.stem
    if stamp and rest.endswith("_" + stamp):
        rest = rest[: -len(stamp) - 1]
    if rest in tasks:
        return rest
    for task in sorted(tasks, key=len, reverse=True):  # the longest task name the file name starts with
        if rest.startswith(task + "_") or rest == task:
            return task
    raise ConversionError("IMPORT_NOT_FORMAT", f"samples file names no task of the results file ({', '.join(tasks)})", str(samples))


def read(inputs: list[Path], sink: Sink, loss: LossReport) -> None:
    results_files = [p for p in inputs if p.suffix == ".json"]
    samples_files = [p for p in inputs if p.suffix == ".jsonl"]
    if len(results_files) != 1 or len(samples_files) + 1 != len(inputs):
        raise ConversionError(
            "IMPORT_NOT_FORMAT", "lm_eval import takes one results_*.json and its samples_*.jsonl files", ", ".join(map(str, inputs))
        )
    results_path = results_files[0]
    head = _load_json(results_path)
    source = results_path.name
    if not isinstance(head, dict):
        raise ConversionError("IMPORT_NOT_FORMAT", "a results file is a JSON object", source)
    if not isinstance(head.get("results"), dict) or not head["results"]:
        raise ConversionError("IMPORT_NOT_FORMAT", "missing or empty 'results' object", source, "/results")
    version = head.get("lm_eval_version")
    if version is not None and not (isinstance(version, str) and SUPPORTED.match(version)):
        raise ConversionError("IMPORT_VERSION_UNSUPPORTED", f"lm_eval_version {version!r} (reads 0.4.x)", source, "/lm_eval_version")
    if version is None:
        loss.defaulted(source, "/lm_eval_version", "no lm_eval_version: read as 0.4.x")
    tasks = [t for t in head["results"] if isinstance(head["results"][t], dict)]
    stamp_match = _RESULTS.match(results_path.name)
    stamp = stamp_match.group("stamp") if stamp_match else None
    configs = obj(head.get("configs"))
    n_shot = obj(head.get("n-shot"))
    better = obj(head.get("higher_is_better"))

    date = finite_number(head.get("date"))
    started = from_epoch(date) if date is not None else None
    if date is not None and started is None:
        loss.dropped(source, "/date", "a run date outside the years 1-9999: not carried over")
    if started is None:
        started = dt.datetime.fromtimestamp(results_path.stat().st_mtime, dt.UTC).isoformat().replace("+00:00", "Z")
        loss.defaulted(source, "/date", "no run date: started_at is the results file's modification time")
    config = obj(head.get("config"))
    model = head.get("model_name") or config.get("model_args") or config.get("model")
    provider: dict[str, Any] = {"model": str(model)} if model else {}
    if config:
        provider["extra"] = {"lm_eval.config": config}
    suite_id = "lm_eval:" + "+".join(sorted(tasks))
    resultset: dict[str, Any] = {
        "suite_id": suite_id,
        "run_id": f"lm_eval-{stamp or started}",
        "started_at": started,
        "runner": {"name": "lm_eval", **({"version": version} if isinstance(version, str) else {})},
    }
    if provider:
        resultset["provider"] = provider
    resultset["metadata"] = prefixed(
        FORMAT,
        {
            "results": head["results"],
            "n-shot": n_shot,
            "higher_is_better": better,
            **{k: v for k, v in head.items() if k not in _HEADER_MAPPED},
        },
    )
    suite = {"id": suite_id, "name": ", ".join(sorted(tasks)), "metadata": prefixed(FORMAT, {"configs": configs})}
    sink.start(resultset, suite)

    for task in tasks:
        metrics = _metrics(task, head["results"][task], configs.get(task) or {})
        for metric in metrics:
            sink.grader(_grader(task, metric, (configs.get(task) or {}).get("output_type")))
    if not samples_files:
        raise ConversionError("IMPORT_EMPTY", "no samples_*.jsonl given: lm_eval writes per-sample rows only with --log_samples", source)
    for samples in samples_files:
        task = _task_of(samples, tasks, stamp)
        _read_samples(samples, task, configs.get(task) or {}, n_shot.get(task), better.get(task) or {}, sink, loss)


def _metrics(task: str, results: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """The metric names of a task: ``metric_list`` of its config, else the ``metric,filter`` keys of its results."""
    names: list[str] = [m["metric"] for m in arr(config.get("metric_list")) if isinstance(m, dict) and isinstance(m.get("metric"), str)]
    if not names:
        names = sorted({key.split(",", 1)[0] for key in results if "," in key and not key.split(",", 1)[0].endswith("_stderr")})
    return [str(n) for n in names]


def _grader(task: str, metric: str, output_type: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"handler": f"lm_eval:{metric}", "task": task}
    if isinstance(output_type, str):
        params["output_type"] = output_type
    return {"id": f"{task}/{metric}", "type": "custom", "params": params}


def _prompt(arguments: Any) -> Any:
    first: Any = None
    if isinstance(arguments, dict) and arguments:
        first = arguments.get("gen_args_0", next(iter(arguments.values())))
    elif isinstance(arguments, list) and arguments:
        first = arguments[0]
    if isinstance(first, dict):
        return first.get("arg_0")
    if isinstance(first, list) and first:
        return first[0]
    return first


def _read_samples(path: Path, task: str, config: dict[str, Any], n_shot: Any, better: dict[str, Any], sink: Sink, loss: LossReport) -> None:
    source = path.name
    for number, raw in input_lines(path):
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ConversionError("IMPORT_UNREADABLE", f"not a JSON line: {exc}", source, line=number) from None
        if not isinstance(line, dict) or "doc_id" not in line:
            raise ConversionError("IMPORT_NOT_FORMAT", "a samples line is an object with a doc_id", source, "/doc_id", line=number)
        _row(line, number, task, config, n_shot, better, sink, loss, source)


def _row(
    line: dict[str, Any],
    number: int,
    task: str,
    config: dict[str, Any],
    n_shot: Any,
    better: dict[str, Any],
    sink: Sink,
    loss: LossReport,
    source: str,
) -> None:
    where = f":{number}"  # a JSON Lines source: the pointer is the line, then the field
    filter_name = line.get("filter", "none")
    case_id = f"{task}/{line['doc_id']}" + ("" if filter_name in (None, "none") else f"#{filter_name}")
    metrics: list[str] = [str(m) for m in line["metrics"]] if isinstance(line.get("metrics"), list) else _metrics(task, {}, config)
    prompt = _prompt(line.get("arguments"))
    case: dict[str, Any] = {
        "id": case_id,
        "input": text_or_default(prompt if isinstance(prompt, str) else "", loss, source, where + "/arguments"),
        "graders": [f"{task}/{m}" for m in metrics] or [f"{task}/(none)"],
    }
    target = line.get("target")
    if isinstance(target, str):
        case["expected_output"] = target
    elif target is not None:
        case["expected_output"] = str(target) if not isinstance(target, (list, dict)) else orjson.dumps(target).decode()
        loss.approximated(
            source,
            where + "/target",
            "a non-string target (a gold choice index or a list) written as text; the value is kept in metadata lm_eval.target",
        )
    case["metadata"] = prefixed(
        FORMAT,
        {
            "task": task,
            "doc_id": line.get("doc_id"),
            "doc": line.get("doc"),
            "filter": filter_name,
            "n-shot": n_shot,
            "target": target if not isinstance(target, str) else None,
            "arguments": line.get("arguments"),
            "doc_hash": line.get("doc_hash"),
            "prompt_hash": line.get("prompt_hash"),
            "target_hash": line.get("target_hash"),
        },
    )
    if not metrics:
        sink.grader({"id": f"{task}/(none)", "type": "custom", "params": {"handler": "lm_eval:(none)", "task": task}})
    sink.test_case(case)
    row: dict[str, Any] = {"test_case_id": case_id}
    filtered = line.get("filtered_resps")
    if isinstance(filtered, list) and filtered and isinstance(filtered[0], str):
        row["actual_output"] = filtered[0]
    grader_results = []
    for metric in metrics:
        grader_id = f"{task}/{metric}"
        sink.grader(_grader(task, metric, config.get("output_type")))
        if metric not in line:
            grader_results.append({"grader_id": grader_id, "type": "custom", "score": None, "passed": False})
            loss.defaulted(source, f"{where}/{metric}", "a listed metric has no value on the line: unscored")
            continue
        value = line[metric]
        if better.get(metric) is False and finite_number(value) is not None:
            score, passed, kept = None, False, {"value": value}
            loss.approximated(
                source, f"{where}/{metric}", "lower-is-better metric: not a [0, 1] score, unscored with the value in metadata"
            )
        else:
            score, passed, kept = map_score(value, loss, source, f"{where}/{metric}")
        result: dict[str, Any] = {"grader_id": grader_id, "type": "custom", "score": score, "passed": passed}
        if kept:
            result["metadata"] = prefixed(FORMAT, kept)
        grader_results.append(result)
    row["grader_results"] = grader_results
    row_meta = prefixed(
        FORMAT,
        {
            "resps": line.get("resps"),
            "filtered_resps": filtered,
            **{
                k: v
                for k, v in line.items()
                if k not in _LINE_MAPPED and k not in metrics and k not in {"doc_hash", "prompt_hash", "target_hash"}
            },
        },
    )
    if row_meta:
        row["metadata"] = row_meta
    sink.result(row)
