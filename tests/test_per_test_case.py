"""The per-test-case view and the raw values of the reference summary (SPEC 4.7, RFC 0004, issue 40): each reducer
against an oracle written here with Python's ``statistics`` module (not the summary's code), the two SDKs giving
the same numbers on the same documents (whole and streamed, ``graders`` before or after the rows), and partial
summaries merging to the one-pass summary."""

from __future__ import annotations

import json
import math
import random
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from evalschema.pipeline import validate
from evalschema.summary import SummaryBuilder, merge, summarize
from evalschema_models.common import ReducerMethod

METHODS = [method.value for method in ReducerMethod]
GRADERS = ("rating", "exact", "judge")


def _document(seed: int) -> dict[str, Any]:
    """A valid 1.3.0 result set: uneven attempts (some errored), a 1-10 rating with raw values, reducers declared."""
    rng = random.Random(seed)
    results: list[dict[str, Any]] = []
    for case in range(rng.randint(1, 9)):
        for attempt in rng.sample(range(1, 6), rng.randint(1, 5)):
            row: dict[str, Any] = {"test_case_id": f"tc-{case}", "attempt": attempt, "grader_results": [], "passed": False}
            if rng.random() < 0.15:
                row["error"] = {"type": "runner_error", "message": "epoch failed"}
                results.append(row)
                continue
            for grader in rng.sample(GRADERS, rng.randint(1, 3)):
                if grader == "rating":
                    raw = rng.choice([1, 3, 5, 7, 7, 10, 6.5])
                    result = {"grader_id": grader, "type": "model graded", "score": (raw - 1) / 9, "raw_score": raw, "passed": raw >= 7}
                else:
                    score = None if rng.random() < 0.1 else rng.choice([0.0, 1.0, 0.5, 0.25, round(rng.random(), 3)])
                    result = {"grader_id": grader, "type": "custom", "score": score, "passed": score is not None and score >= 0.5}
                row["grader_results"].append(result)
            row["passed"] = any(g["passed"] for g in row["grader_results"])
            results.append(row)
    rng.shuffle(results)
    graders = {
        grader: {"type": "custom", "reducer": {"method": rng.choice(METHODS), "k": rng.randint(1, 3), "threshold": rng.choice([0.5, 1, 7])}}
        for grader in rng.sample(GRADERS, rng.randint(0, 3))
    }
    if "rating" in graders:
        graders["rating"]["scale"] = {"min": 1, "max": 10}
    document: dict[str, Any] = {"version": "1.3.0", "suite_id": "s", "run_id": f"r{seed}", "started_at": "2026-12-07T09:00:00Z"}
    document["results"] = results
    document["graders"] = graders  # after the rows: a streamed reader learns the reducers only at the end
    return document


def _reduce(method: str, k: int, threshold: float, values: list[float], counted: list[float]) -> float | None:
    """SPEC 4.7's table, with the statistics module and math.comb."""
    if method == "mean":
        return statistics.mean(values)
    if method == "median":
        return statistics.median(values)
    if method == "mode":
        return Counter(values).most_common(1)[0][0]
    if method in ("max", "min"):
        return max(values) if method == "max" else min(values)
    n, c = len(counted), sum(v >= threshold for v in counted)
    if method == "at_least":
        return 1.0 if c >= k else 0.0
    if n < k:
        return None
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def _oracle(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each grader's avg_raw_score and per_test_case, by the SPEC's definitions."""
    values: dict[str, dict[str, list[tuple[int, int, float, float | None]]]] = {}
    for index, row in enumerate(document["results"]):
        if "error" in row:
            continue
        for result in row["grader_results"]:
            if result["score"] is not None:
                cases = values.setdefault(result["grader_id"], {})
                cases.setdefault(row["test_case_id"], []).append((row.get("attempt", 1), index, result["score"], result.get("raw_score")))
    out: dict[str, dict[str, Any]] = {}
    for grader, cases in values.items():
        reducer = document.get("graders", {}).get(grader, {}).get("reducer", {"method": "mean"})
        method, k, threshold = reducer["method"], reducer.get("k", 1), reducer.get("threshold", 1)
        reduced, reduced_raw, raws = [], [], []
        for group in cases.values():
            group.sort()
            scores = [score for _, _, score, _ in group]
            raw = [r for _, _, _, r in group if r is not None]
            raws += raw
            r = _reduce(method, k, threshold, scores, [r if r is not None else s for _, _, s, r in group])
            if r is not None:
                reduced.append(r)
            if raw and method not in ("at_least", "pass_at"):
                value = _reduce(method, k, threshold, raw, raw)
                assert value is not None  # the methods that keep the scale always give a value
                reduced_raw.append(value)
        view: dict[str, Any] = {
            "reducer": method,
            "test_cases": len(reduced),
            "avg_score": statistics.mean(reduced) if reduced else None,
            "stderr": statistics.stdev(reduced) / math.sqrt(len(reduced)) if len(reduced) > 1 else None,
        }
        if raws and method not in ("at_least", "pass_at"):
            view["avg_raw_score"] = statistics.mean(reduced_raw)
            view["raw_stderr"] = statistics.stdev(reduced_raw) / math.sqrt(len(reduced_raw)) if len(reduced_raw) > 1 else None
        out[grader] = {"per_test_case": view, **({"avg_raw_score": statistics.mean(raws)} if raws else {})}
    return out


def _close(got: Any, want: Any, where: str) -> None:
    if isinstance(want, float) and isinstance(got, (int, float)):
        assert abs(got - want) <= 1e-12, f"{where}: {got} != {want}"
    elif isinstance(want, dict):
        assert set(got) == set(want), f"{where}: {sorted(got)} != {sorted(want)}"
        for key in want:
            _close(got[key], want[key], f"{where}/{key}")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


SEEDS = range(60)


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_summary_follows_the_spec(seed: int) -> None:
    document = _document(seed)
    assert validate(document, "resultset").valid
    by_grader = summarize(document).to_dict()["by_grader"]
    oracle = _oracle(document)
    for grader, want in oracle.items():
        got = {key: by_grader[grader][key] for key in want}
        _close(got, want, grader)
    assert {g for g, t in by_grader.items() if "avg_raw_score" in t} == {g for g, t in oracle.items() if "avg_raw_score" in t}


def test_every_reducer_is_exercised() -> None:
    used = {grader["reducer"]["method"] for seed in SEEDS for grader in _document(seed)["graders"].values()}
    assert used == set(METHODS)


@pytest.mark.parametrize("seed", range(0, 60, 7))
def test_partial_summaries_merge_to_the_whole(seed: int) -> None:
    document = _document(seed)
    rows = document["results"]
    parts = []
    for start, end in ((0, len(rows) // 3), (len(rows) // 3, len(rows) // 2), (len(rows) // 2, len(rows))):
        part = SummaryBuilder(compact=bool(start))
        for row in rows[start:end]:
            part.add(row)
        parts.append(part)
    merged = merge(parts)
    merged.provenance = document["graders"]
    assert merged.build().to_dict() == summarize(document).to_dict()


def test_merged_result_sets_keep_each_graders_first_declaration() -> None:
    """Rows of several result sets merged (a cluster's summary): each grader reduces by the first declaration read
    of it — whichever result set declares it, in any grouping of the merges — never by the mean because the first
    result set declares nothing, nor by a later declaration."""
    first, second, third = (_document(seed) for seed in (1, 2, 4))
    first["graders"] = {"judge": {"type": "custom", "reducer": {"method": "max"}}}
    second["graders"] = {
        "judge": {"type": "custom", "reducer": {"method": "min"}},
        "exact": {"type": "custom", "reducer": {"method": "min"}},
    }
    third.pop("graders")
    documents = [third, first, second]
    declared = {"judge": first["graders"]["judge"], "exact": second["graders"]["exact"]}
    whole = summarize({"results": [row for d in documents for row in d["results"]], "graders": declared}).to_dict()
    assert {whole["by_grader"][g]["per_test_case"]["reducer"] for g in declared} == {"max", "min"}

    def state(document: dict[str, Any]) -> SummaryBuilder:
        builder = SummaryBuilder()
        builder.provenance = document.get("graders")
        for row in document["results"]:
            builder.add(row)
        return builder

    parts = [state(d) for d in documents]
    assert merge(parts).build().to_dict() == whole
    assert merge([merge(parts[:2]), parts[2]]).build().to_dict() == whole
    assert merge([parts[0], merge(parts[1:])]).build().to_dict() == whole
    assert first["graders"]["judge"]["reducer"]["method"] == "max"  # the documents' own members are left as they were


def test_a_claimed_view_is_checked_when_streamed(tmp_path: Path) -> None:
    """The reducers come after the rows in the file: the streamed check still applies them (SPEC 4.5, 4.7)."""
    document = _document(3)
    reference = summarize(document).to_dict()
    document["summary"] = {"by_grader": {g: {"per_test_case": t["per_test_case"]} for g, t in reference["by_grader"].items()}}
    wrong = json.loads(json.dumps(document))
    grader = next(iter(wrong["summary"]["by_grader"]))
    wrong["summary"]["by_grader"][grader]["per_test_case"]["test_cases"] += 1
    for name, doc in (("right.json", document), ("wrong.json", wrong)):
        (tmp_path / name).write_text(
            json.dumps({k: doc[k] for k in ("version", "suite_id", "run_id", "started_at", "summary", "results", "graders")})
        )
    for name, expected in (("right.json", []), ("wrong.json", [f"/summary/by_grader/{grader}/per_test_case/test_cases"])):
        run = subprocess.run(
            [sys.executable, "-m", "evalschema", "validate", "--stream", "always", "--format", "json", str(tmp_path / name)],
            capture_output=True,
            text=True,
            check=False,
        )
        report = json.loads(run.stdout)
        found = [f["pointer"] for entry in report["files"] for f in entry["warnings"] if f["code"] == "SUMMARY_MISMATCH"]
        assert found == expected, run.stdout


def test_typescript_gives_the_same_numbers(tmp_path: Path, built_js: Path) -> None:
    names = []
    for seed in SEEDS:
        name = f"r{seed}.json"
        (tmp_path / name).write_text(json.dumps(_document(seed)))
        names.append(name)
    for stream in ("never", "always"):
        python = subprocess.run(
            [sys.executable, "-m", "evalschema", "summarize", "--format", "json", "--stream", stream, *names],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        typescript = subprocess.run(
            ["node", str(built_js), "summarize", "--format", "json", "--stream", stream, *names],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
        )
        assert python.returncode == typescript.returncode == 0, python.stderr + typescript.stderr
        ours, theirs = json.loads(python.stdout), json.loads(typescript.stdout)
        assert any("per_test_case" in t for entry in ours for t in entry["summary"]["by_grader"].values())
        # the same doubles, not merely close ones (the summaries: attempt_statistics are compare's, checked elsewhere)
        assert [(t["path"], t["summary"]) for t in theirs] == [(o["path"], o["summary"]) for o in ours]
