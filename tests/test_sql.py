"""DuckDB over Parquet exports: the ``summary`` views give the reference summary of every example, every valid
result-set fixture and 100 generated result sets — counts and rates equal, averages within SPEC 4.5's 1e-9 — and
the README's one-query recipe runs."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from evalschema import columnar, sql
from evalschema.pipeline import validate
from evalschema.summary import summarize
from evalschema_models.common import ReducerMethod

ROOT = Path(__file__).resolve().parents[1]
METHODS = [method.value for method in ReducerMethod]
AVERAGES = {"avg_score", "first_attempt_pass_rate", "any_pass_rate", "all_pass_rate", "pass_rate", "stderr", "avg_raw_score", "raw_stderr"}


def _generated(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    results = []
    for index in range(rng.randint(0, 30)):
        row: dict[str, Any] = {"test_case_id": f"tc-{rng.randint(0, 6)}", "grader_results": []}
        if rng.random() < 0.5:
            row["attempt"] = rng.randint(1, 3)
        for grader in rng.sample(["a", "b", "c"], rng.randint(0, 3)):
            score = None if rng.random() < 0.2 else rng.choice([0.0, 1.0, 0.1, 0.3, rng.random()])
            result = {"grader_id": grader, "type": "custom", "score": score, "passed": bool(score and score >= 0.5)}
            if grader == "c" and score is not None:  # a 1-10 rating: its raw value beside the score (SPEC 4.7)
                result["raw_score"] = 1 + 9 * score
            row["grader_results"].append(result)
        row["passed"] = rng.random() < 0.6
        if rng.random() < 0.1:
            row["error"] = {"type": "timeout", "message": "late"}
        if rng.random() < 0.15:
            row["constraint_violations"] = [{"id": "c", "invalidates_result": rng.random() < 0.5}]
            if row["constraint_violations"][0]["invalidates_result"]:
                row["passed"] = False
        results.append(row)
        del index
    document: dict[str, Any] = {
        "version": "1.3.0",
        "suite_id": "s",
        "run_id": f"r{seed}",
        "started_at": "2026-11-30T09:00:00Z",
        "results": results,
    }
    if seed % 4:  # reducers declared for some graders: the per-test-case view follows them (SPEC 4.7)
        document["graders"] = {
            grader: {
                "type": "custom",
                "reducer": {"method": rng.choice(METHODS), "k": rng.randint(1, 3), "threshold": rng.choice([0.3, 1.0, 4.0])},
            }
            for grader in rng.sample(["a", "b", "c"], rng.randint(1, 3))
        }
    return document


def _cases() -> list[tuple[str, dict[str, Any]]]:
    out = [(p.name, json.loads(p.read_text("utf-8"))) for p in sorted((ROOT / "spec/examples").glob("resultset*.json"))]
    for path in sorted((ROOT / "spec/conformance").glob("*.json")):
        document = json.loads(path.read_text("utf-8"))["document"]
        if isinstance(document, dict) and "results" in document and validate(document, "resultset").valid:
            out.append((path.name, document))
    out += [(f"generated-{seed}", _generated(seed)) for seed in range(100)]
    return out


def _agrees(duck: Any, reference: Any, where: str) -> list[str]:
    if isinstance(reference, dict) and isinstance(duck, dict):
        if set(duck) != set(reference):
            return [f"{where}: keys {sorted(duck)} != {sorted(reference)}"]
        return [problem for key in reference for problem in _agrees(duck[key], reference[key], f"{where}/{key}")]
    if where.rsplit("/", 1)[-1] in AVERAGES and isinstance(reference, float) and isinstance(duck, float):
        return [] if abs(duck - reference) <= 1e-9 else [f"{where}: {duck} != {reference}"]
    return [] if (type(duck), duck) == (type(reference), reference) else [f"{where}: {duck!r} != {reference!r}"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, dict[str, Any]]]]:
    folder = tmp_path_factory.mktemp("exports")
    cases = _cases()
    for index, (_, document) in enumerate(cases):
        writer = columnar.Writer(folder / f"e{index:03}")
        writer.write(document)
        writer.close()
    return folder, cases


def test_duckdb_summary_is_the_reference_summary(exported: tuple[Path, list[tuple[str, dict[str, Any]]]]) -> None:
    folder, cases = exported
    assert len(cases) >= 100 + 3 + 20
    duck = sql.summaries(sql.connect(folder))
    problems: list[str] = []
    for index, (name, document) in enumerate(cases):
        key = (str(folder / f"e{index:03}"), 0)
        problems += _agrees(duck.get(key), summarize(document).to_dict(), name)
    assert not problems, "\n".join(problems[:30])


def test_the_readme_recipe_pass_rate_per_model_per_suite(exported: tuple[Path, list[tuple[str, dict[str, Any]]]]) -> None:
    folder, _ = exported
    con = sql.connect(folder)
    rows = con.execute(
        """
        SELECT runs.provider.model AS model, runs.suite_id, sum(s.passed) / sum(s.passed + s.failed) AS pass_rate
        FROM summary s JOIN runs USING (export, run_index)
        GROUP BY ALL ORDER BY model NULLS LAST, suite_id
        """
    ).fetchall()
    expected: dict[tuple[Any, Any], list[int]] = {}
    for _, document in _cases():
        summary = summarize(document)
        model = (document.get("provider") or {}).get("model")
        totals = expected.setdefault((model, document["suite_id"]), [0, 0])
        totals[0] += summary.passed
        totals[1] += summary.passed + summary.failed
    assert {(m, s): r for m, s, r in rows} == {k: (p / n if n else None) for k, (p, n) in expected.items()}
