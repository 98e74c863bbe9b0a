/**
 * The per-test-case view of a grader (SPEC §4.7; mirrors Python's `evalschema.summary.cases`): its values over
 * the attempts at one test case reduce to one value by the grader's declared reducer (`graders.<id>.reducer` of
 * the result set; `mean` without one), then test cases are averaged, with the standard error of that mean; the
 * same for the source's raw values where a grader has them.
 *
 * Every mean is exact, rounded once (`Mean`), and every other step one IEEE operation in the order Python takes,
 * so both SDKs give the same doubles.
 */

import type { ReducerMethod } from "../generated/common.js";
import { get, isObject } from "../core/json.js";

/** The reducer methods, keyed by the generated type: the compiler refuses a missing or an extra one. (Not the
 * generated `isReducerMethod`: its module loads Ajv's compiler, which a valid document's run never needs.) */
const METHODS: Readonly<Record<ReducerMethod, true>> = { mean: true, median: true, mode: true, max: true, min: true, at_least: true, pass_at: true };

function isReducerMethod(value: unknown): value is ReducerMethod {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(METHODS, value);
}

/** One value of a grader at one attempt, in reading order. */
export interface CaseValue {
  attempt: number;
  score: number;
  raw: number | null;
}

/** An exact mean (the summary's `Mean`), passed in to keep this module below the summary. */
export interface ExactMean {
  add(value: number): void;
  value(): number | null;
  /** The exact sum divided by `count`, rounded once. */
  sumOver(count: number): number;
}

export interface TestCaseSummary {
  reducer: string;
  test_cases: number;
  avg_score: number | null;
  stderr: number | null;
  avg_raw_score?: number | null;
  raw_stderr?: number | null;
}

export class Reducer {
  readonly method: ReducerMethod;
  readonly k: number;
  readonly threshold: number;

  /** A declared reducer, read defensively (an unknown or malformed one is `mean`, as in Python). */
  constructor(declared?: unknown) {
    const d = isObject(declared) ? declared : {};
    const method = get(d, "method");
    this.method = isReducerMethod(method) ? method : "mean";
    const k = get(d, "k") ?? 1;
    this.k = typeof k === "number" && Number.isInteger(k) && k >= 1 ? k : 1;
    const threshold = get(d, "threshold") ?? 1;
    this.threshold = typeof threshold === "number" ? threshold : 1;
  }

  get keepsScale(): boolean {
    return this.method !== "at_least" && this.method !== "pass_at";
  }

  reduce(values: readonly number[], counted: readonly number[], mean: () => ExactMean): number | null {
    switch (this.method) {
      case "mean": {
        const m = mean();
        for (const v of values) m.add(v);
        return m.value();
      }
      case "median": {
        const ordered = [...values].sort((a, b) => a - b);
        const middle = Math.floor(ordered.length / 2);
        return ordered.length % 2 ? ordered[middle]! : (ordered[middle - 1]! + ordered[middle]!) / 2;
      }
      case "mode": {
        // the most frequent value; among equally frequent ones, the first seen (Python's Counter.most_common)
        const counts = new Map<number, number>();
        for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
        let best = values[0]!;
        let most = 0;
        for (const [v, n] of counts) {
          if (n > most) {
            best = v;
            most = n;
          }
        }
        return best;
      }
      case "max":
        return Math.max(...values);
      case "min":
        return Math.min(...values);
      default:
        break;
    }
    const n = counted.length;
    let reached = 0;
    for (const v of counted) if (v >= this.threshold) reached++;
    if (this.method === "at_least") return reached >= this.k ? 1 : 0;
    // pass_at: the unbiased estimator of pass@k (Chen et al. 2021), as a product in ascending order
    if (n < this.k) return null;
    if (n - reached < this.k) return 1;
    let product = 1;
    for (let i = n - reached + 1; i <= n; i++) product *= 1 - this.k / i;
    return 1 - product;
  }
}

/** Each grader's declared reducer, from a result set's `graders` member. */
export function reducers(provenance: unknown): Map<string, Reducer> {
  const out = new Map<string, Reducer>();
  if (!isObject(provenance)) return out;
  for (const id of Object.keys(provenance)) {
    const entry = provenance[id];
    if (isObject(entry) && isObject(get(entry, "reducer"))) out.set(id, new Reducer(get(entry, "reducer")));
  }
  return out;
}

/** Python's `sorted(values, key=attempt)`: by attempt, equal attempts in reading order. */
function byAttempt(values: readonly CaseValue[]): CaseValue[] {
  return values
    .map((v, i) => [v, i] as const)
    .sort((a, b) => a[0].attempt - b[0].attempt || a[1] - b[1])
    .map(([v]) => v);
}

/** sqrt(S / (n - 1)) / sqrt(n), S the exact sum of the squared deviations (each rounded) from `mean`. */
export function standardError(values: readonly number[], mean: number | null, exact: () => ExactMean): number | null {
  const n = values.length;
  if (n < 2 || mean === null || !Number.isFinite(mean)) return null;
  const m = exact();
  for (const v of values) {
    const deviation = v - mean;
    const square = deviation * deviation;
    // beyond doubles (huge scores, in a document that is not valid): no standard error, as in Python
    if (!Number.isFinite(square)) return null;
    m.add(square);
  }
  const variance = m.sumOver(n - 1);
  return Number.isFinite(variance) ? Math.sqrt(variance) / Math.sqrt(n) : null;
}

/** The per-test-case metrics of one grader, from its values grouped by test case. */
export function graderView(perCase: Iterable<readonly CaseValue[]>, reducer: Reducer, exact: () => ExactMean): TestCaseSummary {
  const scores: number[] = [];
  const raws: number[] = [];
  let hasRaw = false;
  for (const values of perCase) {
    const ordered = byAttempt(values);
    const rawValues = ordered.filter((v) => v.raw !== null).map((v) => v.raw!);
    hasRaw ||= rawValues.length > 0;
    const counted = ordered.map((v) => (v.raw !== null ? v.raw : v.score));
    const reduced = reducer.reduce(
      ordered.map((v) => v.score),
      counted,
      exact,
    );
    if (reduced !== null) scores.push(reduced);
    if (rawValues.length > 0 && reducer.keepsScale) {
      const reducedRaw = reducer.reduce(rawValues, rawValues, exact);
      if (reducedRaw !== null) raws.push(reducedRaw);
    }
  }
  const mean = meanOf(scores, exact);
  const view: TestCaseSummary = { reducer: reducer.method, test_cases: scores.length, avg_score: mean, stderr: standardError(scores, mean, exact) };
  if (hasRaw && reducer.keepsScale) {
    const rawMean = meanOf(raws, exact);
    view.avg_raw_score = rawMean;
    view.raw_stderr = standardError(raws, rawMean, exact);
  }
  return view;
}

export function meanOf(values: readonly number[], exact: () => ExactMean): number | null {
  const m = exact();
  for (const v of values) m.add(v);
  return m.value();
}
