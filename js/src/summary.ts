/**
 * The reference summary of a result set (SPEC.md, "The outcome model"; mirrors evalschema/summary.py).
 *
 * Each row is classified once, in precedence order: errored (has `error`) > invalidated (an invalidating
 * constraint violation) > unscored (no grader result with a score) > passed / failed (its `passed`).
 * Errored and unscored rows leave the pass-rate and score denominators; invalidated rows stay, as failures
 * with a row score of 0.
 */

import { compareCodePoints } from "./findings.js";
import { get, has, isObject, type JsonObject } from "./json.js";

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

/**
 * A running mean: the same additions in the same order as summing a list left to right, as Python's sum() of
 * floats (3.11), so the result is bit-identical, without keeping a list of every score of a large result set.
 */
class Mean {
  private total = 0;
  private count = 0;

  add(value: number): void {
    this.total += value;
    this.count += 1;
  }

  value(): number | null {
    return this.count === 0 ? null : this.total / this.count;
  }
}

function rate(part: number, whole: number): number | null {
  return whole ? part / whole : null;
}

const NO_ITEMS: readonly unknown[] = Object.freeze([]);

/**
 * The items of a list, or none. The summary runs on every row of a result set that carries one: it loops over
 * lists by index rather than through generators, and allocates nothing for an absent list.
 */
function items(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : NO_ITEMS;
}

/** The outcome of one result row. */
export function classify(result: JsonObject): Outcome {
  if (has(result, "error")) return "errored";
  const violations = items(get(result, "constraint_violations"));
  for (let i = 0; i < violations.length; i++) {
    const v = violations[i];
    if (isObject(v) && get(v, "invalidates_result") === true) return "invalidated";
  }
  const graderResults = items(get(result, "grader_results"));
  let scored = false;
  for (let i = 0; i < graderResults.length && !scored; i++) {
    const g = graderResults[i];
    scored = isObject(g) && score(g) !== null;
  }
  if (!scored) return "unscored";
  return get(result, "passed") === true ? "passed" : "failed";
}

function rowScore(result: JsonObject, outcome: Outcome): number | null {
  if (outcome === "invalidated") return 0;
  if (outcome === "errored" || outcome === "unscored") return null;
  // a mean of this row's scores, summed left to right as Mean does (no object per row)
  let total = 0;
  let count = 0;
  const graderResults = items(get(result, "grader_results"));
  for (let i = 0; i < graderResults.length; i++) {
    const g = graderResults[i];
    const s = isObject(g) ? score(g) : null;
    if (s !== null) {
      total += s;
      count += 1;
    }
  }
  return count === 0 ? null : total / count;
}

/** The attempt of a row: its `attempt` when that is a whole number, else 1 (as `attempt_number` in Python). */
function attemptNumber(result: JsonObject): number {
  if (!has(result, "attempt")) return 1;
  const attempt = result["attempt"];
  return typeof attempt === "number" && Number.isInteger(attempt) ? attempt : 1;
}

/** The scored attempts at one test case, folded as they come (Python sorts them by attempt number). */
interface CaseAttempts {
  /** The lowest attempt number so far; among equal numbers the earliest row counts (a stable sort). */
  first: number;
  firstPassed: boolean;
  anyPassed: boolean;
  allPassed: boolean;
}

function addAttempt(perCase: Map<string, CaseAttempts>, result: JsonObject, outcome: Outcome): void {
  const testCase = get(result, "test_case_id");
  if (typeof testCase !== "string" || outcome === "errored" || outcome === "unscored") return;
  const attempt = attemptNumber(result);
  const passed = outcome === "passed";
  const known = perCase.get(testCase);
  if (known === undefined) {
    perCase.set(testCase, { first: attempt, firstPassed: passed, anyPassed: passed, allPassed: passed });
    return;
  }
  if (attempt < known.first) {
    known.first = attempt;
    known.firstPassed = passed;
  }
  known.anyPassed ||= passed;
  known.allPassed &&= passed;
}

function attemptRollup(perCase: ReadonlyMap<string, CaseAttempts>): AttemptSummary {
  let first = 0;
  let any = 0;
  let all = 0;
  for (const c of perCase.values()) {
    if (c.firstPassed) first++;
    if (c.anyPassed) any++;
    if (c.allPassed) all++;
  }
  const scored = perCase.size;
  return { test_cases: scored, first_attempt_pass_rate: rate(first, scored), any_pass_rate: rate(any, scored), all_pass_rate: rate(all, scored) };
}

interface Totals {
  passed: number;
  failed: number;
  unscored: number;
  scores: Mean;
}

/** Compute the reference summary of a result set (rows that are not objects are ignored). One pass over the rows. */
export function summarize(resultset: JsonObject | object): Summary {
  const rows = items(get(resultset as JsonObject, "results"));
  const counts: Record<Outcome, number> = { passed: 0, failed: 0, invalidated: 0, errored: 0, unscored: 0 };
  let total = 0;
  const rowScores = new Mean();
  const graders = new Map<string, Totals>();
  // the attempt rollup exists only when some row has an `attempt`
  const perCase = rows.some((r) => isObject(r) && has(r, "attempt")) ? new Map<string, CaseAttempts>() : null;
  for (let index = 0; index < rows.length; index++) {
    const result = rows[index];
    if (!isObject(result)) continue;
    const outcome = classify(result);
    total++;
    counts[outcome] += 1;
    const s = rowScore(result, outcome);
    if (s !== null) rowScores.add(s);
    if (perCase !== null) addAttempt(perCase, result, outcome);
    if (outcome === "errored") continue;
    const graderResults = items(get(result, "grader_results"));
    for (let i = 0; i < graderResults.length; i++) {
      const graderResult = graderResults[i];
      if (!isObject(graderResult)) continue;
      const graderId = get(graderResult, "grader_id");
      if (typeof graderId !== "string") continue;
      let totals = graders.get(graderId);
      if (!totals) graders.set(graderId, (totals = { passed: 0, failed: 0, unscored: 0, scores: new Mean() }));
      const value = score(graderResult);
      if (value === null) totals.unscored += 1;
      else {
        totals.scores.add(value);
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
    byGrader[id] = { passed: t.passed, failed: t.failed, unscored: t.unscored, avg_score: t.scores.value() };
  }
  const out: Summary = {
    total,
    passed: counts.passed,
    failed,
    skipped,
    errored: counts.errored,
    invalidated: counts.invalidated,
    unscored: counts.unscored,
    pass_rate: rate(counts.passed, counts.passed + failed),
    avg_score: rowScores.value(),
    by_grader: byGrader,
  };
  if (perCase !== null) out.attempts = attemptRollup(perCase);
  return out;
}
