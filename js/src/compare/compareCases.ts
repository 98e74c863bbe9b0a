/**
 * Compare's per-test-case view (SPEC §12.4, "Per grader, per test case"; mirrors Python's `evalschema.compare.cases`): next
 * to the per-row paired difference, each run's attempts at a test case reduce to one value by that run's own
 * declared reducer, as `summarize` reduces them (SPEC §4.7), and the reduced values of the test cases both runs
 * have are differenced. Each side keeps every scored value of every row it reads, as the summary does (errored rows
 * left out, repeated rows kept), so a side's view is the one `summarize` of that result set reports.
 */

import type { TestCaseDelta } from "../generated/comparison.js";
import { get, has, isObject, type JsonObject } from "../core/json.js";
import { graderView, meanOf, Reducer, reducers, standardError, type CaseValue, type TestCaseSummary } from "../summary/cases.js";
import { Mean } from "../summary/summary.js";

const exact = (): Mean => new Mean();

/** One run's scored values per grader and test case, in reading order. */
export class CaseValues {
  /** The summary's per-test-case view exists only when some row carries `attempt`. */
  hasAttempts = false;
  /** grader id -> test case id -> its values (Maps: any id is a key like another). */
  readonly values = new Map<string, Map<string, CaseValue[]>>();

  add(row: unknown): void {
    if (!isObject(row)) return;
    if (has(row, "attempt")) this.hasAttempts = true;
    const caseId = get(row, "test_case_id");
    const results = get(row, "grader_results");
    if (has(row, "error") || typeof caseId !== "string" || !Array.isArray(results)) return;
    const attempt = attemptNumber(row);
    for (const result of results) {
      if (!isObject(result)) continue;
      const graderId = get(result, "grader_id");
      const score = get(result, "score");
      if (typeof graderId !== "string" || typeof score !== "number") continue;
      const raw = get(result, "raw_score");
      let byCase = this.values.get(graderId);
      if (byCase === undefined) this.values.set(graderId, (byCase = new Map()));
      let held = byCase.get(caseId);
      if (held === undefined) byCase.set(caseId, (held = []));
      held.push({ attempt, score, raw: typeof raw === "number" && Number.isFinite(raw) ? raw : null });
    }
  }
}

function attemptNumber(row: JsonObject): number {
  const attempt = get(row, "attempt");
  return typeof attempt === "number" && Number.isInteger(attempt) ? attempt : 1;
}

/** One test case's reduced score (the step the summary's `graderView` takes for each test case). */
function reduced(values: readonly CaseValue[], reducer: Reducer): number | null {
  const ordered = values
    .map((v, i) => [v, i] as const)
    .sort((a, b) => a[0].attempt - b[0].attempt || a[1] - b[1])
    .map(([v]) => v);
  return reducer.reduce(
    ordered.map((v) => v.score),
    ordered.map((v) => (v.raw !== null ? v.raw : v.score)),
    exact,
  );
}

export interface PerTestCaseFields {
  base_per_test_case?: TestCaseSummary;
  new_per_test_case?: TestCaseSummary;
  per_test_case_difference?: TestCaseDelta;
}

/** The per-test-case members of one grader's `GraderDelta`: each side's view where its rows carry `attempt`, and
 * their paired difference where both do. */
export function graderFields(sides: readonly [CaseValues, CaseValues], provenance: readonly [unknown, unknown], graderId: string, z: number): PerTestCaseFields {
  const out: PerTestCaseFields = {};
  const perSide: Map<string, number>[] = [];
  (["base", "new"] as const).forEach((name, i) => {
    const side = sides[i]!;
    if (!side.hasAttempts) return;
    const reducer = reducers(provenance[i]).get(graderId) ?? new Reducer();
    const byCase = side.values.get(graderId) ?? new Map<string, CaseValue[]>();
    out[`${name}_per_test_case`] = graderView(byCase.values(), reducer, exact);
    const values = new Map<string, number>();
    for (const [caseId, held] of byCase) {
      const value = reduced(held, reducer);
      if (value !== null) values.set(caseId, value);
    }
    perSide.push(values);
  });
  if (perSide.length === 2) {
    const [base, next] = perSide as [Map<string, number>, Map<string, number>];
    const both = [...base.keys()].filter((caseId) => next.has(caseId));
    const differences = both.map((caseId) => next.get(caseId)! - base.get(caseId)!);
    const difference = meanOf(differences, exact);
    const stderr = standardError(differences, difference, exact);
    let interval: [number, number] | null = null;
    if (stderr !== null && difference !== null) {
      const low = difference - z * stderr, high = difference + z * stderr;
      if (Number.isFinite(low) && Number.isFinite(high)) interval = [low, high];
    }
    out.per_test_case_difference = {
      test_cases: both.length,
      base_mean: meanOf(
        both.map((caseId) => base.get(caseId)!),
        exact,
      ),
      new_mean: meanOf(
        both.map((caseId) => next.get(caseId)!),
        exact,
      ),
      difference,
      stderr,
      interval,
    };
  }
  return out;
}
