"""Write the interop fixtures: variants of the real tool outputs in ``data/``, valid and malformed, each with the
outcome it must have (``fixtures/<format>/expect.json``: file → ``"ok"`` or an error code).

Run ``python tests/interop/make_fixtures.py`` after changing a base file; the fixtures are committed. An entry
whose name holds ``+`` is a multi-file input (lm_eval: a results file and its samples files, in a folder).
"""

from __future__ import annotations

import copy
import io
import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DATA = HERE / "data"
OUT = HERE / "fixtures"
Doc = dict[str, Any]


def _json(doc: Any) -> bytes:
    return json.dumps(doc, indent=1).encode()


class Writer:
    def __init__(self, fmt: str) -> None:
        self.folder = OUT / fmt
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        self.expect: dict[str, str] = {}

    def put(self, name: str, data: bytes, outcome: str) -> None:
        (self.folder / name).write_bytes(data)
        self.expect[name] = outcome

    def folder_of(self, name: str, files: dict[str, bytes], outcome: str) -> None:
        target = self.folder / name
        target.mkdir()
        for file, data in files.items():
            (target / file).write_bytes(data)
        self.expect[name] = outcome

    def close(self) -> None:
        (self.folder / "expect.json").write_text(json.dumps(self.expect, indent=1, sort_keys=True) + "\n")


def variants(w: Writer, base: Doc, ext: str, edits: dict[str, tuple[Callable[[Doc], Any], str]]) -> None:
    for name, (edit, outcome) in edits.items():
        doc = copy.deepcopy(base)
        edit(doc)  # edits change the document in place (whatever they return)
        w.put(name + ext, _json(doc), outcome)


def common_broken(w: Writer, base_bytes: bytes, ext: str) -> None:
    w.put("empty" + ext, b"", "IMPORT_UNREADABLE")
    w.put("truncated" + ext, base_bytes[: len(base_bytes) // 2], "IMPORT_UNREADABLE")
    w.put("not-json" + ext, b"this is not JSON\n", "IMPORT_UNREADABLE")
    w.put("array" + ext, b"[]", "IMPORT_NOT_FORMAT")


def inspect_fixtures() -> None:
    w = Writer("inspect_ai")
    json_log = DATA / "inspect_ai" / "tiny-mockllm.json"
    base = json.loads(json_log.read_text())
    common_broken(w, json_log.read_bytes(), ".json")

    def sample_edit(index: int, change: Callable[[Doc], None]) -> Callable[[Doc], None]:
        def edit(doc: Doc) -> None:
            change(doc["samples"][index])

        return edit

    def score(value: Any) -> Callable[[Doc], None]:
        return sample_edit(0, lambda s: s["scores"]["match"].__setitem__("value", value))

    variants(
        w,
        base,
        ".json",
        {
            "valid": (lambda d: None, "ok"),
            "version-99": (lambda d: d.__setitem__("version", 99), "IMPORT_VERSION_UNSUPPORTED"),
            "no-eval": (lambda d: d.pop("eval"), "IMPORT_NOT_FORMAT"),
            "no-samples": (lambda d: d.pop("samples"), "IMPORT_EMPTY"),
            "score-partial": (score("P"), "ok"),
            "score-noanswer": (score("N"), "ok"),
            # a scorer with a dict value returns one for every sample
            "score-dict": (
                lambda d: [
                    s["scores"]["match"].__setitem__("value", {"accuracy": 1, "style": 0.5}) for s in d["samples"] if s.get("scores")
                ],
                "ok",
            ),
            "score-numeric-string": (score("0.75"), "ok"),
            "score-out-of-range": (score(7), "ok"),
            "score-bool": (score(True), "ok"),
            "score-list": (score([1, 2]), "ok"),
            "chat-input": (
                sample_edit(
                    0,
                    lambda s: s.__setitem__("input", [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Say it."}]),
                ),
                "ok",
            ),
            "empty-input": (sample_edit(1, lambda s: s.__setitem__("input", "")), "ok"),
            "int-ids": (lambda d: [s.__setitem__("id", i) for i, s in enumerate(d["samples"])], "ok"),
            "no-scores": (lambda d: [s.pop("scores", None) for s in d["samples"]], "ok"),
            "cancelled": (lambda d: d.__setitem__("status", "cancelled"), "ok"),
        },
    )
    eval_log = DATA / "inspect_ai" / "tiny-mockllm.eval"
    data = eval_log.read_bytes()
    w.put("valid.eval", data, "ok")
    w.put("truncated.eval", data[: len(data) // 2], "IMPORT_UNREADABLE")
    w.put("empty.eval", b"", "IMPORT_UNREADABLE")
    w.put("garbage.eval", b"PK\x03\x04 not really a zip", "IMPORT_UNREADABLE")

    def rezip(change: Callable[[dict[str, bytes]], None]) -> bytes:
        import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401  # Inspect writes zstd entries; this teaches zipfile to read them

        with zipfile.ZipFile(eval_log) as source:
            entries = {i.filename: source.read(i) for i in source.infolist()}
        change(entries)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as target:
            for name, body in entries.items():  # a fixed date: the fixture is the same on every run
                target.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), body, compress_type=zipfile.ZIP_DEFLATED)
        return buffer.getvalue()

    def header_version(entries: dict[str, bytes]) -> None:
        for name in ("header.json", "_journal/start.json"):
            doc = json.loads(entries[name])
            doc["version"] = 99
            entries[name] = json.dumps(doc).encode()

    w.put("version-99.eval", rezip(header_version), "IMPORT_VERSION_UNSUPPORTED")
    w.put("wrong-suffix.txt", json_log.read_bytes(), "IMPORT_NOT_FORMAT")
    for real in ("data_intercode_ctf_local_path.json", "data_cyse2_vuln_exploit_challenges.json"):
        w.put("eee-" + real, (DATA / "inspect_ai" / real).read_bytes(), "ok")
    w.put("eee-data_with_llm_scoring.json", (DATA / "inspect_ai" / "data_with_llm_scoring.json").read_bytes(), "IMPORT_EMPTY")
    w.close()


def promptfoo_fixtures() -> None:
    w = Writer("promptfoo")
    path = DATA / "promptfoo" / "echo-results.json"
    base = json.loads(path.read_text())
    common_broken(w, path.read_bytes(), ".json")

    def row(index: int, change: Callable[[Doc], None]) -> Callable[[Doc], None]:
        return lambda d: change(d["results"]["results"][index])

    def errored(r: Doc) -> None:
        r.update({"error": "Provider call failed: 503", "failureReason": 2, "success": False})
        r.pop("gradingResult", None)

    variants(
        w,
        base,
        ".json",
        {
            "valid": (lambda d: None, "ok"),
            "version-2": (lambda d: d["results"].__setitem__("version", 2), "IMPORT_VERSION_UNSUPPORTED"),
            "no-version": (lambda d: d["results"].pop("version"), "IMPORT_NOT_FORMAT"),
            "no-results": (lambda d: d.pop("results"), "IMPORT_NOT_FORMAT"),
            "results-not-list": (lambda d: d["results"].__setitem__("results", {}), "IMPORT_NOT_FORMAT"),
            "zero-results": (lambda d: d["results"].__setitem__("results", []), "IMPORT_EMPTY"),
            "no-testidx": (row(0, lambda r: r.pop("testIdx")), "IMPORT_NOT_FORMAT"),
            "row-not-object": (lambda d: d["results"]["results"].__setitem__(0, 7), "IMPORT_NOT_FORMAT"),
            "provider-error": (row(1, errored), "ok"),
            "score-above-one": (row(1, lambda r: r["gradingResult"]["componentResults"][1].__setitem__("score", 3)), "ok"),
            "structured-output": (row(0, lambda r: r["response"].__setitem__("output", {"answer": "Paris"})), "ok"),
            "no-timestamp-no-evalid": (lambda d: (d["results"].pop("timestamp"), d.pop("evalId")), "ok"),
            "two-providers": (
                lambda d: (
                    d["results"]["results"].append({**copy.deepcopy(d["results"]["results"][0]), "provider": {"id": "echo-2"}}) and None
                ),
                "ok",
            ),
            "two-prompts": (
                lambda d: d["results"]["results"].append({**copy.deepcopy(d["results"]["results"][0]), "promptIdx": 1}) and None,
                "ok",
            ),
            "no-assertions": (row(2, lambda r: r["testCase"].pop("assert")), "ok"),
            "missing-component": (row(0, lambda r: r["gradingResult"].__setitem__("componentResults", [])), "ok"),
            "empty-prompt": (row(0, lambda r: r["prompt"].__setitem__("raw", "")), "ok"),
        },
    )
    # the JSON Lines output (-o results.jsonl): one result a line, no header
    lines = (DATA / "promptfoo" / "shapes-results.jsonl").read_bytes()
    w.put("lines.jsonl", lines, "ok")
    w.put("lines-truncated.jsonl", lines[: len(lines) // 2], "IMPORT_UNREADABLE")
    w.put("lines-not-object.jsonl", lines + b"7\n", "IMPORT_NOT_FORMAT")
    w.put("lines-empty.jsonl", b"", "IMPORT_EMPTY")
    w.close()


def lm_eval_fixtures() -> None:
    w = Writer("lm_eval")
    folder = DATA / "lm_eval"
    results = next(folder.glob("results_*.json"))
    samples = next(folder.glob("samples_*.jsonl"))
    head = json.loads(results.read_text())
    lines = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]

    def case(
        name: str,
        outcome: str,
        head_edit: Callable[[Doc], Any] | None = None,
        line_edit: Callable[[list[Doc]], Any] | None = None,
        raw_samples: bytes | None = None,
        raw_results: bytes | None = None,
        drop_samples: bool = False,
    ) -> None:
        h = copy.deepcopy(head)
        ls = copy.deepcopy(lines)
        if head_edit:
            head_edit(h)
        if line_edit:
            line_edit(ls)
        files = {results.name: raw_results if raw_results is not None else _json(h)}
        if not drop_samples:
            files[samples.name] = raw_samples if raw_samples is not None else "".join(json.dumps(x) + "\n" for x in ls).encode()
        w.folder_of(name, files, outcome)

    case("valid", "ok")
    case("version-0.3", "IMPORT_VERSION_UNSUPPORTED", lambda h: h.__setitem__("lm_eval_version", "0.3.0"))
    case("no-version", "ok", lambda h: h.pop("lm_eval_version"))
    case("no-results-key", "IMPORT_NOT_FORMAT", lambda h: h.pop("results"))
    case("results-empty", "IMPORT_NOT_FORMAT", lambda h: h.__setitem__("results", {}))
    case("results-truncated", "IMPORT_UNREADABLE", raw_results=results.read_bytes()[:100])
    case("results-not-json", "IMPORT_UNREADABLE", raw_results=b"nope")
    case("results-array", "IMPORT_NOT_FORMAT", raw_results=b"[]")
    case("no-samples-file", "IMPORT_EMPTY", drop_samples=True)
    case("samples-truncated-line", "IMPORT_UNREADABLE", raw_samples=samples.read_bytes()[:500])
    case("samples-line-no-doc-id", "IMPORT_NOT_FORMAT", line_edit=lambda ls: ls[0].pop("doc_id"))
    case("samples-line-array", "IMPORT_NOT_FORMAT", raw_samples=b"[1, 2]\n")
    case("samples-empty", "IMPORT_EMPTY", raw_samples=b"")
    case("no-date", "ok", lambda h: h.pop("date"))
    case("metric-missing-on-line", "ok", line_edit=lambda ls: ls[0].pop("exact_match"))
    case("metric-bool", "ok", line_edit=lambda ls: ls[0].__setitem__("exact_match", True))
    case("metric-list", "ok", line_edit=lambda ls: ls[0].__setitem__("exact_match", [["a", "b"]]))
    case("lower-is-better", "ok", lambda h: h["higher_is_better"]["math_perturbed_full"].__setitem__("exact_match", False))
    case("filter-and-int-target", "ok", line_edit=lambda ls: ls[0].update({"filter": "strict-match", "target": 2}))
    case("loglikelihood-resps", "ok", line_edit=lambda ls: ls[1].update({"filtered_resps": [["-2.3", "False"]]}))
    case("empty-prompt", "ok", line_edit=lambda ls: ls[2].__setitem__("arguments", {}))

    # Several filters, as lm-eval 0.4 writes them (its evaluator: for each filter, for each document, one line with
    # that filter's `filtered_resps` and metric values): gsm8k-like take-first / maj@2 / strict-match, the documents
    # filter after filter (and, in the second variant, document after document). The results file's aggregates are
    # lm-eval's `mean` of the lines' values, computed here from the lines written (lm-eval itself was not run).
    verdicts: dict[str, Callable[[int], bool]] = {
        "take-first": lambda i: i % 3 == 0,
        "maj@2": lambda i: i % 3 == 1,
        "strict-match": lambda i: False,
    }
    task = "math_perturbed_full"

    def filtered(doc_major: bool) -> tuple[Callable[[Doc], Any], Callable[[list[Doc]], Any]]:
        def lines_of(ls: list[Doc]) -> None:
            out = []
            for name, right in verdicts.items():
                for line in ls:
                    out.append(
                        {
                            **line,
                            "filter": name,
                            "filtered_resps": [line["filtered_resps"][0][:40]],
                            "exact_match": float(right(line["doc_id"])),
                        }
                    )
            if doc_major:
                out.sort(key=lambda x: x["doc_id"])
            ls[:] = out

        def head_of(h: Doc) -> None:
            per_filter = {name: [float(right(line["doc_id"])) for line in lines] for name, right in verdicts.items()}
            h["results"][task] = {"alias": task}
            for name, values in per_filter.items():
                h["results"][task][f"exact_match,{name}"] = sum(values) / len(values)
                h["results"][task][f"exact_match_stderr,{name}"] = "N/A"

        return head_of, lines_of

    case("filters", "ok", *filtered(doc_major=False))
    case("filters-doc-major", "ok", *filtered(doc_major=True))
    w.close()


def openai_evals_fixtures() -> None:
    w = Writer("openai_evals")
    path = next((DATA / "openai_evals").glob("*.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def case(name: str, outcome: str, edit: Callable[[list[Doc]], Any] | None = None, raw: bytes | None = None) -> None:
        ls = copy.deepcopy(lines)
        if edit:
            edit(ls)
        w.put(name + ".jsonl", raw if raw is not None else "".join(json.dumps(x) + "\n" for x in ls).encode(), outcome)

    def event(sample: str, kind: str, data: Doc) -> Doc:
        return {
            "run_id": "230417220821DPM75QNS",
            "event_id": 100,
            "sample_id": sample,
            "type": kind,
            "data": data,
            "created_by": "",
            "created_at": "2023-04-17 22:13:00+00:00",
        }

    case("valid", "ok")
    case("empty", "IMPORT_NOT_FORMAT", raw=b"")
    case("truncated", "IMPORT_UNREADABLE", raw=path.read_bytes()[:300])
    case("not-json", "IMPORT_UNREADABLE", raw=b"garbage\n")
    case("line-array", "IMPORT_NOT_FORMAT", raw=b"[]\n")
    case("no-spec", "IMPORT_NOT_FORMAT", lambda ls: ls.pop(0))
    case("spec-not-object", "IMPORT_NOT_FORMAT", lambda ls: ls[0].__setitem__("spec", "x"))
    case("no-eval-name", "IMPORT_NOT_FORMAT", lambda ls: ls[0]["spec"].pop("eval_name"))
    case("unknown-line", "IMPORT_NOT_FORMAT", lambda ls: ls.append({"hello": 1}))
    case("no-events", "IMPORT_EMPTY", lambda ls: ls.__delitem__(slice(2, None)))
    case("no-final-report", "ok", lambda ls: ls.pop(1))
    case("no-run-id-no-time", "ok", lambda ls: (ls[0]["spec"].pop("run_id"), ls[0]["spec"].pop("created_at")))
    case("error-event", "ok", lambda ls: ls.append(event("test-match.s1.0", "error", {"type": "TimeoutError", "message": "took too long"})))
    case("metrics-score", "ok", lambda ls: ls.append(event("test-match.s1.1", "metrics", {"score": 0.4, "choice": "B"})))
    case("metrics-score-out-of-range", "ok", lambda ls: ls.append(event("test-match.s1.1", "metrics", {"score": 4})))
    case(
        "chat-prompt",
        "ok",
        lambda ls: ls[2]["data"].__setitem__(
            "prompt", [{"role": "system", "content": "Complete."}, {"role": "user", "content": "OpenAI was founded in 20"}]
        ),
    )
    case("several-sampled", "ok", lambda ls: ls[2]["data"].__setitem__("sampled", ["2015", "15"]))
    case("expected-list", "ok", lambda ls: ls[3]["data"].__setitem__("expected", ["15", "2015"]))
    case(
        "extra-events",
        "ok",
        lambda ls: ls.append(event("test-match.s1.0", "function_call", {"name": "f", "arguments": {}, "return_value": 1})),
    )
    case("sampling-only", "ok", lambda ls: ls.__delitem__(slice(3, None)))
    case("reversed", "ok", lambda ls: ls.reverse())

    # FuzzyMatch (evals.elsuite.basic.fuzzy_match): a match event and a metrics event (accuracy, f1_score) per sample;
    # its final report is the mean of each metric over the metrics events (`np.mean(recorder.get_scores(name))`),
    # computed here from the events written (oaieval itself was not run)
    def fuzzy(ls: list[Doc]) -> None:
        matches = [e for e in ls if e.get("type") == "match"]
        f1 = [0.5, 1.0, 0.25]
        for i, match in enumerate(matches):
            ls.append(event(match["sample_id"], "metrics", {"accuracy": float(match["data"]["correct"]), "f1_score": f1[i % len(f1)]}))
        metrics = [e["data"] for e in ls if e.get("type") == "metrics"]
        report = {name: sum(m[name] for m in metrics) / len(metrics) for name in ("accuracy", "f1_score")}
        next(e for e in ls if "final_report" in e)["final_report"] = report

    case("fuzzy-match", "ok", fuzzy)
    # a dummy completion function records no sampling event: the answer is only the match event's `sampled`
    case("no-sampling-events", "ok", lambda ls: ls.__setitem__(slice(None), [e for e in ls if e.get("type") != "sampling"]))
    w.close()


def deepeval_fixtures() -> None:
    w = Writer("deepeval")
    path = DATA / "deepeval" / "test_run.json"
    base = json.loads(path.read_text())
    common_broken(w, path.read_bytes(), ".json")

    def tc(index: int, change: Callable[[Doc], None]) -> Callable[[Doc], None]:
        return lambda d: change(d["testCases"][index])

    variants(
        w,
        base,
        ".json",
        {
            "valid": (lambda d: None, "ok"),
            "no-test-cases": (lambda d: d.pop("testCases"), "IMPORT_NOT_FORMAT"),
            "test-cases-not-list": (lambda d: d.__setitem__("testCases", {}), "IMPORT_NOT_FORMAT"),
            "zero-test-cases": (lambda d: d.__setitem__("testCases", []), "IMPORT_EMPTY"),
            "case-not-object": (lambda d: d["testCases"].__setitem__(0, "x"), "IMPORT_NOT_FORMAT"),
            "case-no-name": (tc(0, lambda c: c.pop("name")), "IMPORT_NOT_FORMAT"),
            "metric-no-name": (tc(0, lambda c: c["metricsData"][0].pop("name")), "IMPORT_NOT_FORMAT"),
            "metric-error": (
                tc(1, lambda c: c["metricsData"][0].update({"error": "judge timed out", "score": 0.3, "success": False})),
                "ok",
            ),
            "metric-score-above-one": (tc(0, lambda c: c["metricsData"][0].__setitem__("score", 5)), "ok"),
            "no-metrics": (tc(1, lambda c: c.pop("metricsData")), "ok"),
            "empty-input": (tc(0, lambda c: c.__setitem__("input", "")), "ok"),
            "tool-objects": (tc(0, lambda c: c.__setitem__("toolsCalled", [{"name": "search", "inputParameters": {"q": "x"}}])), "ok"),
            "conversational": (lambda d: d.__setitem__("conversationalTestCases", [{"name": "chat", "turns": []}]), "ok"),
            "identifier": (lambda d: d.__setitem__("identifier", "nightly-7"), "ok"),
            "no-output": (tc(0, lambda c: c.pop("actualOutput")), "ok"),
            "tags": (tc(0, lambda c: c.__setitem__("tags", ["rag", "smoke"])), "ok"),
            "conversational-only": (lambda d: _conversations(d, only=True), "ok"),
            "conversational-and-single-turn": (lambda d: _conversations(d, only=False), "ok"),
        },
    )
    w.close()


def _conversations(run: Doc, only: bool) -> None:
    """Conversational test cases as DeepEval 4 saves them (``ConversationalApiTestCase``: name, success, metricsData,
    runDuration, turns of role / content / order, order, scenario, expectedOutcome…), one named and ordered as the
    run's first single-turn case; the run's own aggregates (``testPassed``, ``testFailed``, ``metricsScores``) are
    recomputed over all its cases as DeepEval's test run does (DeepEval itself was not run for this fixture)."""

    def metric(name: str, score: float, threshold: float = 0.5) -> Doc:
        return {"name": name, "threshold": threshold, "success": score >= threshold, "score": score, "reason": "", "strictMode": False}

    def conversation(name: str, order: int, scores: list[float]) -> Doc:
        turns = [
            {"role": "user", "content": "Book a table for two.", "order": 0},
            {"role": "assistant", "content": "For which evening?", "order": 1},
            {"role": "user", "content": "Friday.", "order": 2},
            {"role": "assistant", "content": "Booked for Friday.", "order": 3},
        ]
        data = [metric("Knowledge Retention", scores[0]), metric("Conversation Completeness", scores[1])]
        return {
            "name": name,
            "success": all(m["success"] for m in data),
            "metricsData": data,
            "runDuration": 0.01,
            "turns": turns,
            "order": order,
            "scenario": "a booking",
            "expectedOutcome": "a table is booked",
        }

    first = run["testCases"][0]
    run["conversationalTestCases"] = [conversation(first["name"], first["order"], [1.0, 0.75]), conversation("test_case_1", 1, [0.25, 1.0])]
    if only:
        run["testCases"] = []
    cases = run["testCases"] + run["conversationalTestCases"]
    run["testPassed"] = sum(1 for c in cases if c["success"])
    run["testFailed"] = len(cases) - run["testPassed"]
    scores: dict[str, Doc] = {}
    for case in cases:
        for m in case.get("metricsData") or []:
            entry = scores.setdefault(m["name"], {"metric": m["name"], "scores": [], "passes": 0, "fails": 0, "errors": 0})
            entry["scores"].append(m["score"])
            entry["passes" if m["success"] else "fails"] += 1
    run["metricsScores"] = list(scores.values())


if __name__ == "__main__":
    for make in (inspect_fixtures, promptfoo_fixtures, lm_eval_fixtures, openai_evals_fixtures, deepeval_fixtures):
        make()
