"""DuckDB over columnar exports (``evalschema export --to parquet``): views ``runs``, ``results`` and
``grader_results`` over every export under a folder, and ``summary`` / ``summary_by_grader``, the reference summary
(SPEC 4.3, 4.4) of each result set in SQL, with ``summary_by_grader_case``, each grader's per-test-case view (SPEC 4.7:
its values per test case reduced by the reducer the run's ``graders`` declares, then averaged over test cases).

A result set is identified by ``export`` (the folder its tables are in) and ``run_index``. Counts and every rate
are the reference values exactly (integers, and one division of integers, as in ``summarize``); averages are
DuckDB's ``avg`` of doubles, which agree with the reference (an exact mean rounded once) within SPEC 4.5's 1e-9.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .core.extras import require


def _table(folder: Path, name: str) -> str:
    pattern = str(folder / "**" / f"{name}.parquet").replace("'", "''")
    # the export a row comes from: the folder holding its table
    return f"SELECT regexp_replace(filename, '/[^/]*$', '') AS export, * EXCLUDE (filename) FROM read_parquet('{pattern}', filename = true, union_by_name = true)"


SUMMARY = """
CREATE OR REPLACE TEMP VIEW row_scores AS
  SELECT export, run_index, result_index, count(score) AS scored_graders, avg(score) AS mean_score
  FROM grader_results GROUP BY ALL;
CREATE OR REPLACE TEMP VIEW outcomes AS
  SELECT r.export, r.run_index, r.result_index, r.test_case_id, r.attempt,
    CASE
      WHEN r.error IS NOT NULL THEN 'errored'
      WHEN coalesce(list_bool_or(list_transform(r.constraint_violations, lambda v: coalesce(v.invalidates_result, false))), false)
        THEN 'invalidated'
      WHEN coalesce(s.scored_graders, 0) = 0 THEN 'unscored'
      WHEN r.passed THEN 'passed'
      ELSE 'failed'
    END AS outcome,
    s.mean_score
  FROM results r LEFT JOIN row_scores s USING (export, run_index, result_index);
CREATE OR REPLACE TEMP VIEW cases AS
  SELECT export, run_index, test_case_id,
    arg_min(outcome = 'passed', (coalesce(attempt, 1), result_index)) AS first_passed,
    bool_or(outcome = 'passed') AS any_passed, bool_and(outcome = 'passed') AS all_passed
  FROM outcomes WHERE outcome IN ('passed', 'failed', 'invalidated') GROUP BY ALL;
CREATE OR REPLACE TEMP VIEW summary AS
  WITH counts AS (
    SELECT export, run_index, count(*) AS total,
      count(*) FILTER (outcome = 'passed') AS passed,
      count(*) FILTER (outcome IN ('failed', 'invalidated')) AS failed,
      count(*) FILTER (outcome IN ('errored', 'unscored')) AS skipped,
      count(*) FILTER (outcome = 'errored') AS errored,
      count(*) FILTER (outcome = 'invalidated') AS invalidated,
      count(*) FILTER (outcome = 'unscored') AS unscored,
      avg(CASE outcome WHEN 'invalidated' THEN 0.0 WHEN 'passed' THEN mean_score WHEN 'failed' THEN mean_score END) AS avg_score,
      bool_or(attempt IS NOT NULL) AS has_attempts
    FROM outcomes GROUP BY ALL
  ), rollup AS (
    SELECT export, run_index, count(*) AS test_cases, count(*) FILTER (first_passed) AS first_passed,
      count(*) FILTER (any_passed) AS any_passed, count(*) FILTER (all_passed) AS all_passed
    FROM cases GROUP BY ALL
  )
  SELECT runs.export, runs.run_index, coalesce(total, 0) AS total, coalesce(passed, 0) AS passed,
    coalesce(failed, 0) AS failed, coalesce(skipped, 0) AS skipped, coalesce(errored, 0) AS errored,
    coalesce(invalidated, 0) AS invalidated, coalesce(unscored, 0) AS unscored,
    CASE WHEN coalesce(passed, 0) + coalesce(failed, 0) > 0 THEN passed / (passed + failed) END AS pass_rate,
    counts.avg_score, coalesce(has_attempts, false) AS has_attempts, coalesce(test_cases, 0) AS test_cases,
    CASE WHEN test_cases > 0 THEN rollup.first_passed / test_cases END AS first_attempt_pass_rate,
    CASE WHEN test_cases > 0 THEN rollup.any_passed / test_cases END AS any_pass_rate,
    CASE WHEN test_cases > 0 THEN rollup.all_passed / test_cases END AS all_pass_rate
  FROM runs LEFT JOIN counts USING (export, run_index) LEFT JOIN rollup USING (export, run_index);
CREATE OR REPLACE TEMP VIEW summary_by_grader AS
  SELECT g.export, g.run_index, g.grader_id,
    count(*) FILTER (g.score IS NOT NULL AND g.passed) AS passed,
    count(*) FILTER (g.score IS NOT NULL AND NOT coalesce(g.passed, false)) AS failed,
    count(*) FILTER (g.score IS NULL) AS unscored,
    avg(g.score) AS avg_score,
    avg(g.raw_score) FILTER (g.score IS NOT NULL) AS avg_raw_score
  FROM grader_results g JOIN outcomes o USING (export, run_index, result_index)
  WHERE o.outcome <> 'errored' AND g.grader_id IS NOT NULL GROUP BY ALL;
CREATE OR REPLACE TEMP VIEW grader_reducers AS
  SELECT export, run_index, entry.key AS grader_id, entry.value.reducer."method"::VARCHAR AS method,
    coalesce(entry.value.reducer.k, 1) AS k, coalesce(entry.value.reducer.threshold, 1.0) AS threshold
  FROM (SELECT export, run_index, unnest(map_entries(graders)) AS entry FROM runs WHERE graders IS NOT NULL)
  WHERE entry.value.reducer IS NOT NULL;
CREATE OR REPLACE TEMP VIEW case_values AS
  SELECT g.export, g.run_index, g.grader_id, o.test_case_id, coalesce(o.attempt, 1) AS attempt, g.result_index,
    g.grader_index, g.score, g.raw_score, coalesce(r.method, 'mean') AS method, coalesce(r.k, 1) AS k,
    coalesce(r.threshold, 1.0) AS threshold
  FROM grader_results g JOIN outcomes o USING (export, run_index, result_index)
    LEFT JOIN grader_reducers r USING (export, run_index, grader_id)
  WHERE o.outcome <> 'errored' AND g.grader_id IS NOT NULL AND g.score IS NOT NULL AND o.test_case_id IS NOT NULL;
CREATE OR REPLACE TEMP VIEW case_modes AS
  -- the most frequent value of a test case; among equally frequent ones, the first in attempt order
  SELECT export, run_index, grader_id, test_case_id, which, arg_min(value, (-n, first)) AS value
  FROM (
    SELECT export, run_index, grader_id, test_case_id, 'score' AS which, score AS value, count(*) AS n,
      min((attempt, result_index, grader_index)) AS first
    FROM case_values GROUP BY ALL
    UNION ALL
    SELECT export, run_index, grader_id, test_case_id, 'raw' AS which, raw_score AS value, count(*) AS n,
      min((attempt, result_index, grader_index)) AS first
    FROM case_values WHERE raw_score IS NOT NULL GROUP BY ALL
  ) GROUP BY ALL;
CREATE OR REPLACE TEMP VIEW case_reduced AS
  WITH cases AS (
    SELECT export, run_index, grader_id, test_case_id, any_value(method) AS method, any_value(k) AS k,
      count(*) AS n, count(*) FILTER (coalesce(raw_score, score) >= threshold) AS reached,
      avg(score) AS mean_score, quantile_cont(score, 0.5) AS median_score, max(score) AS max_score,
      min(score) AS min_score, count(raw_score) AS raw_n, avg(raw_score) AS mean_raw,
      quantile_cont(raw_score, 0.5) AS median_raw, max(raw_score) AS max_raw, min(raw_score) AS min_raw
    FROM case_values GROUP BY ALL
  )
  SELECT c.export, c.run_index, c.grader_id, c.test_case_id, c.method, raw_n,
    CASE c.method
      WHEN 'mean' THEN mean_score WHEN 'median' THEN median_score WHEN 'max' THEN max_score
      WHEN 'min' THEN min_score WHEN 'mode' THEN ms.value
      WHEN 'at_least' THEN CASE WHEN reached >= k THEN 1.0 ELSE 0.0 END
      WHEN 'pass_at' THEN CASE WHEN n < k THEN NULL WHEN n - reached < k THEN 1.0
        ELSE 1.0 - list_reduce(list_transform(range(n - reached + 1, n + 1), lambda i: 1.0 - k / i), lambda a, b: a * b, 1.0) END
    END AS reduced,
    CASE WHEN raw_n = 0 OR c.method IN ('at_least', 'pass_at') THEN NULL ELSE CASE c.method
      WHEN 'mean' THEN mean_raw WHEN 'median' THEN median_raw WHEN 'max' THEN max_raw
      WHEN 'min' THEN min_raw WHEN 'mode' THEN mr.value END
    END AS reduced_raw
  FROM cases c
    LEFT JOIN case_modes ms ON ms.which = 'score' AND (ms.export, ms.run_index, ms.grader_id, ms.test_case_id) = (c.export, c.run_index, c.grader_id, c.test_case_id)
    LEFT JOIN case_modes mr ON mr.which = 'raw' AND (mr.export, mr.run_index, mr.grader_id, mr.test_case_id) = (c.export, c.run_index, c.grader_id, c.test_case_id);
CREATE OR REPLACE TEMP VIEW summary_by_grader_case AS
  SELECT export, run_index, grader_id, any_value(method) AS reducer, count(reduced) AS test_cases,
    avg(reduced) AS avg_score, sqrt(var_samp(reduced)) / sqrt(count(reduced)) AS stderr,
    sum(raw_n) > 0 AND any_value(method) NOT IN ('at_least', 'pass_at') AS has_raw,
    avg(reduced_raw) AS avg_raw_score, sqrt(var_samp(reduced_raw)) / sqrt(count(reduced_raw)) AS raw_stderr
  FROM case_reduced GROUP BY ALL;
"""


def connect(folder: str | Path) -> Any:
    """An in-memory DuckDB connection with the views over every export under ``folder``."""
    require("duckdb", "sql", "DuckDB views")
    import duckdb

    root = Path(folder)
    con = duckdb.connect()
    for name in ("runs", "results", "grader_results"):
        con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {_table(root, name)}")
    con.execute(SUMMARY)
    return con


def summaries(con: Any) -> dict[tuple[str, int], dict[str, Any]]:
    """Each result set's summary, from the ``summary`` views, shaped as ``Summary.to_dict()``."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    columns = ["total", "passed", "failed", "skipped", "errored", "invalidated", "unscored", "pass_rate", "avg_score"]
    query = f"SELECT export, run_index, {', '.join(columns)}, has_attempts, test_cases, first_attempt_pass_rate, any_pass_rate, all_pass_rate FROM summary"
    for row in con.execute(query).fetchall():
        key = (row[0], row[1])
        summary = dict(zip(columns, row[2:11], strict=True))
        summary["by_grader"] = {}
        if row[11]:
            summary["attempts"] = dict(
                zip(["test_cases", "first_attempt_pass_rate", "any_pass_rate", "all_pass_rate"], row[12:16], strict=True)
            )
        out[key] = summary
    declared = {
        (e, r, g): method for e, r, g, method in con.execute("SELECT export, run_index, grader_id, method FROM grader_reducers").fetchall()
    }
    query = (
        "SELECT export, run_index, grader_id, passed, failed, unscored, avg_score, avg_raw_score FROM summary_by_grader ORDER BY grader_id"
    )
    for export, run_index, grader_id, passed, failed, unscored, average, raw_average in con.execute(query).fetchall():
        totals = {"passed": passed, "failed": failed, "unscored": unscored, "avg_score": average}
        if raw_average is not None:
            totals["avg_raw_score"] = raw_average
        summary = out[(export, run_index)]
        if "attempts" in summary:  # the per-test-case view, as the reference summary gives it when rows carry attempts
            reducer = declared.get((export, run_index, grader_id)) or "mean"
            totals["per_test_case"] = {"reducer": reducer, "test_cases": 0, "avg_score": None, "stderr": None}
        summary["by_grader"][grader_id] = totals
    query = "SELECT export, run_index, grader_id, reducer, test_cases, avg_score, stderr, has_raw, avg_raw_score, raw_stderr FROM summary_by_grader_case"
    for export, run_index, grader_id, reducer, cases, average, error, has_raw, raw_average, raw_error in con.execute(query).fetchall():
        totals = out[(export, run_index)]["by_grader"][grader_id]
        if "per_test_case" not in totals:
            continue
        view = {"reducer": reducer, "test_cases": cases, "avg_score": average, "stderr": error if cases > 1 else None}
        if has_raw:
            view["avg_raw_score"], view["raw_stderr"] = raw_average, raw_error
        totals["per_test_case"] = view
    return out
