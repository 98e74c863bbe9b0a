"""DuckDB over columnar exports (``evalschema export --to parquet``): views ``runs``, ``results`` and
``grader_results`` over every export under a folder, and ``summary`` / ``summary_by_grader``, the reference summary
(SPEC 4.3, 4.4) of each result set in SQL.

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
    avg(g.score) AS avg_score
  FROM grader_results g JOIN outcomes o USING (export, run_index, result_index)
  WHERE o.outcome <> 'errored' AND g.grader_id IS NOT NULL GROUP BY ALL;
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
    query = "SELECT export, run_index, grader_id, passed, failed, unscored, avg_score FROM summary_by_grader ORDER BY grader_id"
    for export, run_index, grader_id, passed, failed, unscored, average in con.execute(query).fetchall():
        out[(export, run_index)]["by_grader"][grader_id] = {"passed": passed, "failed": failed, "unscored": unscored, "avg_score": average}
    return out
