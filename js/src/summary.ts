/**
 * The reference summary of a result set (SPEC.md, "The outcome model"; mirrors evalschema/summary.py).
 *
 * Each row is classified once, in precedence order: errored (has `error`) > invalidated (an invalidating
 * constraint violation) > unscored (no grader result with a score) > passed / failed (its `passed`).
 * Errored and unscored rows leave the pass-rate and score denominators; invalidated rows stay, as failures
 * with a row score of 0.
 */

import { compareCodePoints } from "./findings.js";
import { get, has, objects, type JsonObject } from "./json.js";

export type Outcome = "passed" | "failed" | "invalidated" | "errored" | "unscored";

export interface GraderSummary {
  passed: number;
  failed: number;
  unscored: number;
  avg_score: number | null;
}

export interface AttemptSummary {
  test_cases: number;
  first_attempt_pass_rate: number | null;
  any_pass_rate: number | null;
  all_pass_rate: number | null;
}

/** The reference numbers of a result set, with the schema's `summary` field names. */
export interface Summary {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  errored: number;
  invalidated: number;
  unscored: number;
  pass_rate: number | null;
  avg_score: number | null;
  by_grader: Record<string, GraderSummary>;
  attempts?: AttemptSummary;
}

function score(graderResult: JsonObject): number | null {
  const value = get(graderResult, "score");
  return typeof value === "number" ? value : null;
}

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let total = 0;
  for (const v of values) total += v; // left to right, as Python's sum() of floats (3.11)
  return total / values.length;
}

function rate(part: number, whole: number): number | null {
  return whole ? part / whole : null;
}

/** The outcome of one result row. */
export function classify(result: JsonObject): Outcome {
  if (has(result, "error")) return "errored";
  for (const [, v] of objects(get(result, "constraint_violations"))) if (get(v, "invalidates_result") === true) return "invalidated";
  let scored = false;
  for (const [, g] of objects(get(result, "grader_results"))) if (score(g) !== null) scored = true;
  if (!scored) return "unscored";
  return get(result, "passed") === true ? "passed" : "failed";
}

function rowScore(result: JsonObject, outcome: Outcome): number | null {
  if (outcome === "invalidated") return 0;
  if (outcome === "errored" || outcome === "unscored") return null;
  const scores: number[] = [];
  for (const [, g] of objects(get(result, "grader_results"))) {
    const s = score(g);
    if (s !== null) scores.push(s);
  }
  return mean(scores);
}

/** The attempt of a row: its `attempt` when that is a whole number, else 1 (as `attempt_number` in Python). */
function attemptNumber(result: JsonObject): number {
  if (!has(result, "attempt")) return 1;
  const attempt = result["attempt"];
  return typeof attempt === "number" && Number.isInteger(attempt) ? attempt : 1;
}

function attemptRollup(rows: readonly [JsonObject, Outcome][]): AttemptSummary | undefined {
  if (!rows.some(([result]) => has(result, "attempt"))) return undefined;
  const perCase = new Map<string, [number, Outcome][]>();
  for (const [result, outcome] of rows) {
    const testCase = get(result, "test_case_id");
    if (typeof testCase !== "string" || outcome === "errored" || outcome === "unscored") continue;
    let list = perCase.get(testCase);
    if (!list) perCase.set(testCase, (list = []));
    list.push([attemptNumber(result), outcome]);
  }
  const cases = [...perCase.values()].map((attempts) => [...attempts].sort((a, b) => a[0] - b[0]));
  const scored = cases.length;
  return {
    test_cases: scored,
    first_attempt_pass_rate: rate(cases.filter((c) => c[0]![1] === "passed").length, scored),
    any_pass_rate: rate(cases.filter((c) => c.some(([, o]) => o === "passed")).length, scored),
    all_pass_rate: rate(cases.filter((c) => c.every(([, o]) => o === "passed")).length, scored),
  };
}

interface Totals {
  passed: number;
  failed: number;
  unscored: number;
  scores: number[];
}

/** Compute the reference summary of a result set (rows that are not objects are ignored). */
export function summarize(resultset: JsonObject | object): Summary {
  const rows: [JsonObject, Outcome][] = [...objects(get(resultset as JsonObject, "results"))].map(([, r]) => [r, classify(r)]);
  const counts: Record<Outcome, number> = { passed: 0, failed: 0, invalidated: 0, errored: 0, unscored: 0 };
  const rowScores: number[] = [];
  const graders = new Map<string, Totals>();
  for (const [result, outcome] of rows) {
    counts[outcome] += 1;
    const s = rowScore(result, outcome);
    if (s !== null) rowScores.push(s);
    if (outcome === "errored") continue;
    for (const [, graderResult] of objects(get(result, "grader_results"))) {
      const graderId = get(graderResult, "grader_id");
      if (typeof graderId !== "string") continue;
      let totals = graders.get(graderId);
      if (!totals) graders.set(graderId, (totals = { passed: 0, failed: 0, unscored: 0, scores: [] }));
      const value = score(graderResult);
      if (value === null) totals.unscored += 1;
      else {
        totals.scores.push(value);
        if (get(graderResult, "passed") === true) totals.passed += 1;
        else totals.failed += 1;
      }
    }
  }
  const skipped = counts.errored + counts.unscored;
  const failed = counts.failed + counts.invalidated;
  const byGrader: Record<string, GraderSummary> = {};
  for (const id of [...graders.keys()].sort(compareCodePoints)) {
    const t = graders.get(id)!;
    byGrader[id] = { passed: t.passed, failed: t.failed, unscored: t.unscored, avg_score: mean(t.scores) };
  }
  const out: Summary = {
    total: rows.length,
    passed: counts.passed,
    failed,
    skipped,
    errored: counts.errored,
    invalidated: counts.invalidated,
    unscored: counts.unscored,
    pass_rate: rate(counts.passed, counts.passed + failed),
    avg_score: mean(rowScores),
    by_grader: byGrader,
  };
  const attempts = attemptRollup(rows);
  if (attempts !== undefined) out.attempts = attempts;
  return out;
}
