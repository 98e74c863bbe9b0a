"""Import promptfoo results: ``promptfoo eval -o results.json`` (``results.version`` 3 and later) or ``-o results.jsonl``
(one ``EvaluateResult`` a line).

The numbers are promptfoo's own (its ``AssertionsResult`` in ``src/assertions``): a row passes when promptfoo says it
did (``success``: every assertion passed, or — with a test-level ``threshold`` — the weighted mean of the
assertion scores reached it; a test without assertions passes unless the provider failed). That verdict is the
grader ``promptfoo:test`` (score ``gradingResult.score``) and the row's ``passed``. Each assertion type is one
grader (``contains``, ``javascript`` …) and each named metric (``metric:``) one grader ``metric:<name>``, with one
grader result per assertion of the row (so their pass and fail counts are promptfoo's ``assertPassCount`` /
``assertFailCount``). ``defaultTest`` assertions are in each row's ``testCase.assert`` already.

A test case is a (test, prompt): ``--repeat N`` writes each test N times with consecutive ``testIdx`` and nothing
else to tell them apart, so rows whose test (``testCase``) and prompt are the same are attempts of one test case,
in the order read. The input is read streamed (the JSON file in two passes: the header members, then the rows one
by one), never whole. The mapping is SPEC.md, Appendix A.2.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import ijson
import orjson

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core.findings import Finding
from ..core.messages import render
from ..io.loader import open_regular
from .base import SAFE_INTEGER, Sink, date_time, finite_number, obj, prefixed, text_or_default, whole_ms
from .common import ConversionError, LossReport, input_lines

FORMAT = "promptfoo"
MIN_VERSION = 3
VERDICT = "promptfoo:test"  # promptfoo's own verdict on a row: its gradingResult
METRIC_PREFIX = "metric:"
_ROWS = "results.results"  # where the rows are in a results JSON file (ijson prefix)
_CHUNK = 1 << 16
_OPEN, _CLOSE = frozenset({"start_map", "start_array"}), frozenset({"end_map", "end_array"})
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
NOT_JSON = "not valid JSON: malformed or truncated"  # the parser's own words are not shown (they change between versions)
ERROR_FAILURE = 2  # promptfoo's ResultFailureReason.ERROR (1 is ASSERT)


def read(inputs: list[Path], sink: Sink, loss: LossReport) -> None:
    if len(inputs) != 1:
        raise ConversionError("IMPORT_NOT_FORMAT", "promptfoo import takes one results file (.json or .jsonl)", ", ".join(map(str, inputs)))
    path = inputs[0]
    source = path.name
    if _is_jsonl(path):
        doc: dict[str, Any] = {"results": {"version": MIN_VERSION}}
        rows: Iterator[tuple[str, Any]] = _jsonl_rows(path)
        lines = True
    else:
        doc, exact = _json_header(path)
        rows = _json_rows(path, exact)
        lines = False
    if not isinstance(doc.get("results"), dict):
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
    if not lines and not isinstance(body.get("results"), list):
        raise ConversionError("IMPORT_NOT_FORMAT", "results.results is not a list", source, "/results/results")
    providers, prompts = _scan(_jsonl_rows(path) if lines else _json_rows(path, exact), source)
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
            "version": None if lines else version,
            "stats": body.get("stats"),
            "prompts": body.get("prompts"),
            "metadata": meta,
            "shareableUrl": doc.get("shareableUrl"),
            "providers": providers,  # every provider id the rows name (a JSON Lines output has no other header)
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
            "several providers in one run: each row names its provider in metadata promptfoo.provider, and the rows of a "
            "test case are its attempts whatever their provider; the result set has no provider",
        )
    cases = _Cases(len(prompts) > 1)
    for where, row in rows:
        if not isinstance(row, dict):
            raise ConversionError("IMPORT_NOT_FORMAT", "a result is not an object", source, where)
        _row(row, where, cases, len(providers) > 1, sink, loss, source)


def _is_jsonl(path: Path) -> bool:
    """A promptfoo JSON Lines output (``-o out.jsonl``): its first line is one result object (it has ``testIdx``);
    a results JSON file's first line never is a whole object with one."""
    if path.suffix.lower() == ".jsonl":
        return True
    if path.suffix.lower() == ".json":
        return False
    for _, line in input_lines(path):
        if line.strip():
            try:
                first = orjson.loads(line)
            except orjson.JSONDecodeError:
                return False
            return isinstance(first, dict) and "testIdx" in first
    return False


def _opened(path: Path) -> Any:
    handle = open_regular(path)
    if isinstance(handle, Finding):
        raise ConversionError("IMPORT_UNREADABLE", f"{handle.code}: {handle.message}", str(path))
    return handle


def _json_header(path: Path) -> tuple[dict[str, Any], bool]:
    """Every member of a results JSON file but its rows (``results.results`` is an empty list here), read by
    events, the rows skipped as they pass: memory holds the header, never the rows. Also whether the file needs
    exact numbers (``True``: an integer beyond 64 bits, which the C parser's native numbers cannot hold; such a file
    is read again with numbers as text, then made plain)."""
    for exact in (False, True):
        builder = ijson.ObjectBuilder()
        inside = _ROWS + ".item"
        with _opened(path) as handle:
            try:
                depth = 0
                for prefix, event, value in ijson.parse(handle, use_float=not exact, buf_size=_CHUNK):
                    if event in _OPEN:
                        depth += 1
                        if depth > constants.MAX_DEPTH:  # as every reader of this project refuses it (before any row is built)
                            raise ConversionError("IMPORT_UNREADABLE", "nested too deeply to read", str(path))
                    elif event in _CLOSE:
                        depth -= 1
                    if prefix.startswith(inside) and (len(prefix) == len(inside) or prefix[len(inside)] == "."):
                        continue
                    builder.event(event, value)
            except ijson.JSONError:
                if exact:
                    raise ConversionError("IMPORT_UNREADABLE", NOT_JSON, str(path)) from None
                continue
            except OSError as exc:
                raise ConversionError("IMPORT_UNREADABLE", f"cannot read: {exc.strerror or exc}", str(path)) from None
        document = _plain_or_refused(builder.value, path) if exact else builder.value
        if not isinstance(document, dict):
            raise ConversionError("IMPORT_NOT_FORMAT", "not a promptfoo results file: no 'results' object", path.name, "/results")
        return document, exact
    raise AssertionError("unreachable")  # pragma: no cover


class _BeyondDouble(ValueError):
    """A number no IEEE 754 double holds (RFC 8259, section 6): refused, as the strict reader refuses it."""

    def __init__(self, token: str) -> None:
        super().__init__(token)
        self.token = token


def _plain(value: Any) -> Any:
    """A value read with exact numbers as plain JSON values: a decimal fraction as a float (integers stay integers).
    Raises _BeyondDouble for a fraction too large for a double (the native pass stopped at it with an overflow)."""
    if isinstance(value, Decimal):
        number = float(value)
        if number in (float("inf"), float("-inf")):
            raise _BeyondDouble(str(value))
        return number
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _plain_or_refused(value: Any, path: Path) -> Any:
    try:
        return _plain(value)
    except _BeyondDouble as exc:
        message = render(codes.INVALID_JSON, "range", detail=exc.token[:40])
        raise ConversionError("IMPORT_UNREADABLE", message, str(path)) from None


def _json_rows(path: Path, exact: bool) -> Iterator[tuple[str, Any]]:
    """(pointer, row) for each row of a results JSON file, one at a time."""
    with _opened(path) as handle:
        try:
            for index, row in enumerate(ijson.items(handle, _ROWS + ".item", use_float=not exact, buf_size=_CHUNK)):
                yield f"/results/results/{index}", _plain_or_refused(row, path) if exact else row
        except ijson.JSONError:
            raise ConversionError("IMPORT_UNREADABLE", NOT_JSON, str(path)) from None
        except OSError as exc:
            raise ConversionError("IMPORT_UNREADABLE", f"cannot read: {exc.strerror or exc}", str(path)) from None


def _jsonl_rows(path: Path) -> Iterator[tuple[str, Any]]:
    for number, line in input_lines(path):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise ConversionError("IMPORT_UNREADABLE", f"not valid JSON: {exc}", str(path), line=number) from None
        yield f":{number}", row


def _scan(rows: Iterator[tuple[str, Any]], source: str) -> tuple[list[str], set[int]]:
    """The providers and prompt indices of all rows (they decide the result set's provider and the test case ids),
    the prompt indices checked before use."""
    providers: set[str] = set()
    prompts: set[int] = set()
    for where, row in rows:
        if not isinstance(row, dict):
            continue
        prompt_index = row.get("promptIdx", 0)
        if not isinstance(prompt_index, int) or isinstance(prompt_index, bool) or not 0 <= prompt_index <= SAFE_INTEGER:
            raise ConversionError("IMPORT_NOT_FORMAT", "promptIdx is not a prompt index (a whole number)", source, f"{where}/promptIdx")
        prompts.add(prompt_index)
        providers.add(_provider_id(row))
    return sorted(providers - {""}), prompts


def _provider_id(row: dict[str, Any]) -> str:
    provider = row.get("provider")
    if isinstance(provider, dict):
        return str(provider.get("id") or provider.get("label") or "")
    return str(provider or "")


class _Cases:
    """The test case of each row: rows of the same test (``testCase``) and prompt are attempts of one test case,
    named after the first one's ``testIdx``. Memory: one digest per test case."""

    def __init__(self, many_prompts: bool) -> None:
        self.many_prompts = many_prompts
        self.ids: dict[bytes, str] = {}
        self.attempts: dict[str, int] = {}

    def of(self, row: dict[str, Any], test: int, prompt_index: int) -> tuple[str, int, bool]:
        """The row's test case id, its attempt number, and whether the row is the test case's first (a later one has
        the same test, prompt and input by construction: its test case is not built again)."""
        try:
            text = orjson.dumps([row.get("testCase"), prompt_index, obj(row.get("prompt")).get("raw")], option=orjson.OPT_SORT_KEYS)
        except (TypeError, orjson.JSONEncodeError):
            text = repr((test, prompt_index)).encode()
        key = hashlib.blake2b(text, digest_size=16).digest()
        case_id = self.ids.get(key)
        first = case_id is None
        if case_id is None:
            case_id = self.ids[key] = f"test-{test}" + (f"/prompt-{prompt_index}" if self.many_prompts else "")
        attempt = self.attempts[case_id] = self.attempts.get(case_id, 0) + 1
        return case_id, attempt, first


def _assertions(items: Any) -> Iterator[dict[str, Any]]:
    """A test's assertions, those of an ``assert-set`` too (promptfoo reports both the set and its members)."""
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            yield item
            if item.get("type") == "assert-set":
                yield from _assertions(item.get("assert"))


def _grader_of(assertion: Any) -> str:
    """One grader per named metric (``metric:<name>``), else per assertion type."""
    assertion = obj(assertion)
    metric = assertion.get("metric")
    if isinstance(metric, str) and metric:
        return METRIC_PREFIX + metric
    return str(assertion.get("type") or "unknown")


def _declare(grader_id: str, sink: Sink) -> None:
    if grader_id not in sink.suite.graders:
        handler = grader_id if grader_id == VERDICT else f"promptfoo:{grader_id}"
        sink.grader({"id": grader_id, "type": "custom", "params": {"handler": handler}})


def _row(row: dict[str, Any], base: str, cases: _Cases, many_providers: bool, sink: Sink, loss: LossReport, source: str) -> None:
    test = row.get("testIdx")
    if not isinstance(test, int) or isinstance(test, bool):
        raise ConversionError("IMPORT_NOT_FORMAT", "a result has no testIdx", source, base + "/testIdx")
    prompt_index = row.get("promptIdx", 0)
    case_id, attempt, first = cases.of(row, test, prompt_index)
    prompt = obj(row.get("prompt"))
    text = text_or_default(prompt.get("raw"), loss, source, base + "/prompt/raw")  # each row's loss is reported
    if first:
        _case(row, case_id, text, prompt, sink)
    _attempt(row, base, case_id, attempt, prompt_index, test, many_providers, sink, loss, source)


def _case(row: dict[str, Any], case_id: str, text: str, prompt: dict[str, Any], sink: Sink) -> None:
    """The test case of a row seen first (``_Cases.of``): its graders declared, the test case added."""
    test_case = obj(row.get("testCase"))
    graders = [VERDICT, *sorted({_grader_of(a) for a in _assertions(test_case.get("assert"))})]
    for grader_id in graders:
        _declare(grader_id, sink)
    case: dict[str, Any] = {"id": case_id, "input": text, "graders": graders}
    case_meta = prefixed(
        FORMAT,
        {
            "vars": row.get("vars") or test_case.get("vars"),
            "description": test_case.get("description"),
            "prompt": {k: v for k, v in prompt.items() if k != "raw"},
            "options": test_case.get("options"),
            "metadata": test_case.get("metadata"),
            "threshold": test_case.get("threshold"),
            "assert": test_case.get("assert"),
            **{k: v for k, v in test_case.items() if k not in {"vars", "description", "options", "metadata", "threshold", "assert"}},
        },
    )
    if case_meta:
        case["metadata"] = case_meta
    sink.test_case(case, distinct=True)


def _attempt(
    row: dict[str, Any],
    base: str,
    case_id: str,
    attempt: int,
    prompt_index: int,
    test: int,
    many_providers: bool,
    sink: Sink,
    loss: LossReport,
    source: str,
) -> None:
    """The result row of one promptfoo row (an attempt of its test case)."""
    out: dict[str, Any] = {"test_case_id": case_id, "attempt": attempt}
    response = obj(row.get("response"))
    output = response.get("output")
    if isinstance(output, str):
        out["actual_output"] = output
    elif output is not None:
        out["actual_output"] = orjson.dumps(output).decode()
        loss.approximated(source, base + "/response/output", "a structured output written as JSON text")
    grading = obj(row.get("gradingResult"))
    error = row.get("error") or response.get("error")
    errored = bool(error) and (row.get("failureReason") == ERROR_FAILURE or not grading)
    results: list[dict[str, Any]] = []
    success = row.get("success")
    verdict = success if isinstance(success, bool) else grading.get("pass") is True
    if not errored:
        results.append(_verdict(grading, row, verdict, base, loss, source))
        for i, component in enumerate(grading.get("componentResults") or []):
            if isinstance(component, dict):
                results.append(_component(component, f"{base}/gradingResult/componentResults/{i}", sink, loss, source))
    out["grader_results"] = results
    latency = whole_ms(row.get("latencyMs"), 1, loss, source, base + "/latencyMs")
    if latency is not None:
        out["duration_ms"] = latency
    if errored:
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
            "error": error if not errored else None,
            **{k: v for k, v in row.items() if k not in _ROW_MAPPED},
        },
    )
    if out_meta:
        out["metadata"] = out_meta
    sink.result(out, verdict=verdict and not errored)


def _score(value: Any, where: str, loss: LossReport, source: str) -> tuple[float | None, dict[str, Any]]:
    score = finite_number(value)
    if score is None or not 0.0 <= score <= 1.0:
        loss.approximated(source, where, "score outside [0, 1] or missing: unscored, the value in metadata")
        return None, {"value": value}
    return score, {}


def _verdict(grading: dict[str, Any], row: dict[str, Any], verdict: bool, base: str, loss: LossReport, source: str) -> dict[str, Any]:
    """promptfoo's verdict on the row: ``gradingResult.score`` (the weighted mean of the assertion scores, 1 for a
    test without assertions) and ``pass``."""
    raw = grading.get("score", row.get("score"))
    score, kept = _score(raw, base + "/gradingResult/score", loss, source)
    result: dict[str, Any] = {"grader_id": VERDICT, "type": "custom", "score": score, "passed": verdict and score is not None}
    if isinstance(grading.get("reason"), str):
        result["reason"] = grading["reason"]
    if kept:
        result["metadata"] = prefixed(FORMAT, kept)
    return result


def _component(component: dict[str, Any], where: str, sink: Sink, loss: LossReport, source: str) -> dict[str, Any]:
    assertion = obj(component.get("assertion"))
    grader_id = _grader_of(assertion)
    _declare(grader_id, sink)
    score, kept = _score(component.get("score"), where + "/score", loss, source)
    result: dict[str, Any] = {
        "grader_id": grader_id,
        "type": "custom",
        "score": score,
        "passed": component.get("pass") is True and score is not None,
    }
    if isinstance(component.get("reason"), str):
        result["reason"] = component["reason"]
    meta = prefixed(
        FORMAT,
        {
            **kept,
            "assertion": assertion,
            "namedScores": component.get("namedScores"),
            "tokensUsed": component.get("tokensUsed"),
            "metadata": component.get("metadata"),
        },
    )
    if meta:
        result["metadata"] = meta
    return result
