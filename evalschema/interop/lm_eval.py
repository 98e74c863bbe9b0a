"""Import lm-evaluation-harness output: one ``results_<timestamp>.json`` and its ``samples_<task>_<timestamp>.jsonl``.

lm-eval reports every metric per filter (``exact_match,take-first``, ``exact_match,strict-match``) and writes one
samples line per document *and filter*. Here a document is one test case and one row; a grader is a (task, metric,
filter) — ``<task>/<metric>`` for the filter ``none``, else ``<task>/<metric>,<filter>`` (lm-eval's own key) — so each
filter keeps its own numbers and no document is counted once per filter.

A metric lm-eval averages over documents whose values leave [0, 1] (a task's own ``process_results`` scoring 0-100,
as truthfulqa_gen's ``bleu_max``) keeps each value as ``raw_score`` on its grader's scale, the smallest and largest
values of the samples files (lm-eval declares no scale), so the grader's mean raw value is lm-eval's figure.

The samples files are read line by line, once to find the filters and the scales, then once per filter (memory holds one line per filter, plus the lines of
documents whose filters are not yet all read: none when, as lm-eval writes them, every filter lists its documents in
the same order). The mapping is SPEC.md, Appendix A.3.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from .base import PASS_THRESHOLD, Scales, Sink, arr, finite_number, from_epoch, map_score, obj, prefixed, text_or_default
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
    if not samples_files:
        raise ConversionError("IMPORT_EMPTY", "no samples_*.jsonl given: lm_eval writes per-sample rows only with --log_samples", source)
    samples_tasks = [(samples, _task_of(samples, tasks, stamp)) for samples in samples_files]
    filters: dict[Path, list[str]] = {}
    scales = Scales()
    for samples, task in samples_tasks:
        filters[samples] = _scan(samples, task, configs.get(task) or {}, better.get(task) or {}, scales)
    scaled = scales.write_scales(
        resultset,
        loss,
        source,
        "/results",
        "values outside [0, 1] and no scale in the files: the scale is the smallest and largest values of the samples, "
        "raw values kept as raw_score",
    )
    sink.start(resultset, suite)

    for task in tasks:
        output_type = (configs.get(task) or {}).get("output_type")
        for metric, filter_name in _reported(head["results"][task]):
            sink.grader(_grader(task, metric, output_type, filter_name, scaled))
    memberships = _groups(head, {task for _, task in samples_tasks}, scaled, loss, source)
    for samples, task in samples_tasks:
        meta = _Task(task, configs.get(task) or {}, n_shot.get(task), better.get(task) or {}, scaled, memberships.get(task, []))
        _read_samples(samples, filters[samples], meta, sink, loss)


def _groups(
    head: dict[str, Any], sampled: set[str], scaled: dict[str, dict[str, float]], loss: LossReport, source: str
) -> dict[str, list[tuple[str, str, str]]]:
    """The groups each task's documents also count in: (group, metric, filter) for every figure of a group
    (``group_subtasks``) that is the mean over the documents of its tasks -- lm-eval's ``weight_by_size`` -- so that
    the group's grader, given each document's result, has lm-eval's figure as its mean. A figure that is not that
    mean (an unweighted mean of the tasks' means) has no per-document meaning: it stays in ``lm_eval.results``."""
    # lm-eval lists every task there, a task with no subtasks: a group is a name with some
    subtasks = {name: tasks for name, tasks in obj(head.get("group_subtasks")).items() if isinstance(tasks, list) and tasks}
    results, counts = obj(head.get("results")), obj(head.get("n-samples"))

    def leaves(group: str, seen: frozenset[str] = frozenset()) -> list[str]:
        out: list[str] = []
        for name in arr(subtasks.get(group)):
            if isinstance(name, str) and name not in seen:
                out += leaves(name, seen | {group}) if name in subtasks else [name]
        return out

    memberships: dict[str, list[tuple[str, str, str]]] = {}
    for group in sorted(subtasks):
        figures = obj(results.get(group))
        tasks = leaves(group)
        for metric, filter_name in _reported(figures):
            key = f"{metric},{filter_name}"
            value = finite_number(figures.get(key))
            sizes = [finite_number(obj(counts.get(t)).get("effective")) for t in tasks]
            values = [finite_number(obj(results.get(t)).get(key)) for t in tasks]
            whole = sum(n for n in sizes if n is not None)
            per_document = (
                value is not None
                and tasks
                and set(tasks) <= sampled
                and None not in sizes
                and None not in values
                and whole > 0
                and not any(grader_id(t, metric, filter_name) in scaled for t in tasks)
                and math.isclose(math.fsum(n * v for n, v in zip(sizes, values, strict=True)) / whole, value, rel_tol=1e-12, abs_tol=1e-15)  # type: ignore[operator]
            )
            if not per_document:
                loss.approximated(
                    source,
                    f"/results/{group}",
                    f"group {group} {key}: not the mean over its tasks' documents (lm-eval's weight_by_size false, or a "
                    "task not sampled): no per-document value, kept in lm_eval.results",
                )
                continue
            for task in tasks:
                memberships.setdefault(task, []).append((group, metric, filter_name))
    return memberships


class _Task:
    """What every row of a task reads beside its lines: its config, n-shot, which metrics are better higher, the
    scales of its graders whose values leave [0, 1], and the groups whose figures its documents count in."""

    def __init__(
        self,
        name: str,
        config: dict[str, Any],
        n_shot: Any,
        better: dict[str, Any],
        scaled: dict[str, dict[str, float]],
        groups: list[tuple[str, str, str]] | None = None,
    ) -> None:
        self.name, self.config, self.n_shot, self.better, self.scaled = name, config, n_shot, better, scaled
        self.groups = groups or []  # (group, metric, filter): the group figures this task's documents count in


def _scan(path: Path, task: str, config: dict[str, Any], better: dict[str, Any], scales: Scales) -> list[str]:
    """The filters of a samples file, in their first order, and every metric value seen by its grader's scale (a
    lower-is-better metric is left out: it stays unscored, A.3)."""
    filters: list[str] = []
    for _, line in _lines(path, path.name):
        name = _filter_of(line)
        if name not in filters:
            filters.append(name)
        names = [str(m) for m in line["metrics"]] if isinstance(line.get("metrics"), list) else _metrics(task, {}, config)
        for metric in names:
            if metric in line and better.get(metric) is not False:
                scales.see(grader_id(task, metric, name), line[metric])
    return filters


def _reported(results: dict[str, Any]) -> list[tuple[str, str]]:
    """The (metric, filter) pairs a task's results report: its ``metric,filter`` keys, standard errors left out."""
    pairs = {tuple(key.split(",", 1)) for key in results if "," in key}
    return sorted((m, f) for m, f in pairs if not m.endswith("_stderr"))


def _metrics(task: str, results: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """The metric names of a task: ``metric_list`` of its config, else the ``metric,filter`` keys of its results."""
    names: list[str] = [m["metric"] for m in arr(config.get("metric_list")) if isinstance(m, dict) and isinstance(m.get("metric"), str)]
    if not names:
        names = sorted({key.split(",", 1)[0] for key in results if "," in key and not key.split(",", 1)[0].endswith("_stderr")})
    return [str(n) for n in names]


def unfiltered() -> str:
    """lm-eval's name for the unfiltered responses (its ``none`` filter)."""
    return "none"


def grader_id(task: str, metric: str, filter_name: str | None = None) -> str:
    """The grader of a (task, metric, filter): lm-eval's ``metric,filter`` key after the task, the filter ``none`` left out."""
    return f"{task}/{metric}" if filter_name in (None, unfiltered()) else f"{task}/{metric},{filter_name}"


def _grader(
    task: str, metric: str, output_type: Any, filter_name: str | None = None, scaled: dict[str, dict[str, float]] | None = None
) -> dict[str, Any]:
    params: dict[str, Any] = {"handler": f"lm_eval:{metric}", "task": task}
    if isinstance(output_type, str):
        params["output_type"] = output_type
    if filter_name not in (None, unfiltered()):
        params["filter"] = filter_name
    grader: dict[str, Any] = {"id": grader_id(task, metric, filter_name), "type": "custom", "params": params}
    if scaled and grader["id"] in scaled:
        grader["scale"] = scaled[grader["id"]]
    return grader


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


Line = tuple[int, dict[str, Any]]


def _lines(path: Path, source: str, wanted: str | None = None) -> Iterator[Line]:
    """(line number, sample) of a samples file; with ``wanted``, only the samples of that filter (a line that cannot
    hold the filter's name is skipped unparsed)."""
    needle = orjson.dumps(wanted) if wanted is not None and wanted.isascii() else None
    for number, raw in input_lines(path):
        if not raw.strip() or (needle is not None and needle not in raw):
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise ConversionError("IMPORT_UNREADABLE", f"not a JSON line: {exc}", source, line=number) from None
        if not isinstance(line, dict) or "doc_id" not in line:
            raise ConversionError("IMPORT_NOT_FORMAT", "a samples line is an object with a doc_id", source, "/doc_id", line=number)
        if wanted is None or _filter_of(line) == wanted:
            yield number, line


def _filter_of(line: dict[str, Any]) -> str:
    name = line.get("filter", unfiltered())
    return name if isinstance(name, str) else str(name)


def _read_samples(path: Path, filters: list[str], task: _Task, sink: Sink, loss: LossReport) -> None:
    """One row per document: its lines under every filter read side by side (one reader per filter)."""
    source = path.name
    readers = {name: _lines(path, source, name) for name in filters}
    pending: dict[str, dict[str, Line]] = {}
    while readers:
        for name, reader in list(readers.items()):
            item = next(reader, None)
            if item is None:
                del readers[name]
                continue
            key = orjson.dumps(item[1]["doc_id"]).decode()
            parts = pending.setdefault(key, {})
            if name in parts:
                raise ConversionError(
                    "IMPORT_NOT_FORMAT", f"a document is listed twice under the filter {name!r}", source, "/doc_id", line=item[0]
                )
            parts[name] = item
            if len(parts) == len(filters):
                _row(pending.pop(key), task, sink, loss, source)
    for parts in pending.values():  # documents some filter did not list: their graders of that filter are unscored
        _row(parts, task, sink, loss, source)


def _row(parts: dict[str, Line], meta: _Task, sink: Sink, loss: LossReport, source: str) -> None:
    """One document's row from its line under each filter: the document, target and prompt from the first line (the
    filter ``none`` when there is one), a grader result per metric of each filter's line."""
    task, config, n_shot, better = meta.name, meta.config, meta.n_shot, meta.better
    first = unfiltered() if unfiltered() in parts else next(iter(parts))
    number, line = parts[first]
    where = f":{number}"  # a JSON Lines source: the pointer is the line, then the field
    case_id = f"{task}/{line['doc_id']}"
    measured: list[tuple[str, int, dict[str, Any], list[str]]] = []
    for filter_name, (at, each) in parts.items():
        names = [str(m) for m in each["metrics"]] if isinstance(each.get("metrics"), list) else _metrics(task, {}, config)
        measured.append((filter_name, at, each, names))
    graders = [grader_id(task, m, f) for f, _, _, names in measured for m in names]
    # the document's result also counts in each group whose figure is the mean over its tasks' documents
    in_groups = [(grader_id(task, m, f), grader_id(g, m, f)) for g, m, f in meta.groups if grader_id(task, m, f) in graders]
    graders += [group for _, group in in_groups]
    prompt = _prompt(line.get("arguments"))
    case: dict[str, Any] = {
        "id": case_id,
        "input": text_or_default(prompt if isinstance(prompt, str) else "", loss, source, where + "/arguments"),
        "graders": graders or [f"{task}/(none)"],
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
            "filters": list(parts),
            "n-shot": n_shot,
            "target": target if not isinstance(target, str) else None,
            "arguments": line.get("arguments"),
            "doc_hash": line.get("doc_hash"),
            "prompt_hash": line.get("prompt_hash"),
            "target_hash": line.get("target_hash"),
        },
    )
    if not graders:
        sink.grader({"id": f"{task}/(none)", "type": "custom", "params": {"handler": "lm_eval:(none)", "task": task}})
    sink.test_case(case)
    # one attempt at each document (lm-eval's repeats are reduced inside it by its filters): rows that carry an
    # attempt get the per-test-case view, whose standard error is lm-eval's own `<metric>_stderr` (SPEC 4.7)
    row: dict[str, Any] = {"test_case_id": case_id, "attempt": 1}
    filtered = line.get("filtered_resps")
    if isinstance(filtered, list) and filtered and isinstance(filtered[0], str):
        row["actual_output"] = filtered[0]
    grader_results = []
    for filter_name, at, each, names in measured:
        for metric in names:
            grader = grader_id(task, metric, filter_name)
            sink.grader(_grader(task, metric, config.get("output_type"), filter_name, meta.scaled))
            spot = f":{at}/{metric}"
            if metric not in each:
                grader_results.append({"grader_id": grader, "type": "custom", "score": None, "passed": False})
                loss.defaulted(source, spot, "a listed metric has no value on the line: unscored")
                continue
            value = each[metric]
            scale = meta.scaled.get(grader)
            amount = finite_number(value)
            raw: float | None = None
            if better.get(metric) is False and amount is not None:
                score, passed, kept = None, False, {"value": value}
                loss.approximated(source, spot, "lower-is-better metric: not a [0, 1] score, unscored with the value in metadata")
            elif scale is not None and amount is not None and not isinstance(value, bool):
                raw, kept = amount, {}
                score = (amount - scale["min"]) / (scale["max"] - scale["min"])
                passed = score >= PASS_THRESHOLD
            else:
                score, passed, kept = map_score(value, loss, source, spot)
            result: dict[str, Any] = {"grader_id": grader, "type": "custom", "score": score}
            if raw is not None:
                result["raw_score"] = raw
            result["passed"] = passed
            if kept:
                result["metadata"] = prefixed(FORMAT, kept)
            grader_results.append(result)
    by_grader = {result["grader_id"]: result for result in grader_results}
    grader_results += [{**by_grader[own], "grader_id": group} for own, group in in_groups if own in by_grader]
    row["grader_results"] = grader_results
    every_metric = {m for _, _, _, names in measured for m in names}
    row_meta = prefixed(
        FORMAT,
        {
            "resps": line.get("resps"),
            "filtered_resps": {f: each.get("filtered_resps") for f, _, each, _ in measured},
            **{
                k: v
                for k, v in line.items()
                if k not in _LINE_MAPPED and k not in every_metric and k not in {"doc_hash", "prompt_hash", "target_hash"}
            },
        },
    )
    if row_meta:
        row["metadata"] = row_meta
    sink.result(row)
