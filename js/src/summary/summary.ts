/**
 * The reference summary of a result set (SPEC.md, "The outcome model"; mirrors Python's `summarize`).
 *
 * Each row is classified once, in precedence order: errored (has `error`) > invalidated (an invalidating
 * constraint violation) > unscored (no grader result with a score) > passed / failed (its `passed`).
 * Errored and unscored rows leave the pass-rate and score denominators; invalidated rows stay, as failures
 * with a row score of 0.
 */

import { compareCodePoints } from "../core/findings.js";
import { define, get, has, isObject, type JsonObject } from "../core/json.js";
import { graderView, meanOf, Reducer, reducers, type CaseValue, type TestCaseSummary } from "./cases.js";

export type Outcome = "passed" | "failed" | "invalidated" | "errored" | "unscored";

export interface GraderSummary {
  passed: number;
  failed: number;
  unscored: number;
  avg_score: number | null;
  avg_raw_score?: number | null;
  per_test_case?: TestCaseSummary;
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

const BITS = new DataView(new ArrayBuffer(8));

/** A finite double as mantissa · 2^exponent, exactly (the mantissa a signed BigInt). */
function decompose(value: number): [bigint, number] {
  BITS.setFloat64(0, value);
  const high = BITS.getUint32(0);
  const low = BITS.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  let mantissa = (BigInt(high & 0xfffff) << 32n) | BigInt(low);
  if (biased !== 0) mantissa |= 1n << 52n;
  if (high >>> 31) mantissa = -mantissa;
  return [mantissa, biased === 0 ? -1074 : biased - 1075];
}

function bitLength(n: bigint): number {
  const approx = Number(n);
  if (approx !== Infinity) {
    let bits = Math.floor(Math.log2(approx)) + 1;
    if (1n << BigInt(bits - 1) > n) bits -= 1;
    else if (1n << BigInt(bits) <= n) bits += 1;
    return bits;
  }
  const hex = n.toString(16);
  return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
}

// From this magnitude on, a sum is beyond the largest double: as a sum of doubles, it is infinite (as in Python's summary).
const BEYOND_DOUBLES = (1n << 1024n) - (1n << 970n);

/**
 * The mean of `count` (> 0) values whose exact sum is `mantissa` · 2^`exponent`, rounded once (to nearest, ties
 * to even, subnormals included), as Python's int / int; infinite when the sum is beyond doubles.
 */
function exactMean(mantissa: bigint, exponent: number, count: number): number {
  if (mantissa === 0n) return 0;
  const negative = mantissa < 0n;
  const n = negative ? -mantissa : mantissa;
  const beyond = exponent >= 0 ? n << BigInt(exponent) >= BEYOND_DOUBLES : n >= BEYOND_DOUBLES << BigInt(-exponent);
  if (beyond) return negative ? -Infinity : Infinity;
  const d = BigInt(count);
  const shift = 55 + bitLength(d) - bitLength(n); // the quotient gets at least 55 bits
  const num = shift >= 0 ? n << BigInt(shift) : n;
  const den = shift >= 0 ? d : d << BigInt(-shift);
  const q = num / den;
  const inexact = num % den !== 0n;
  const weight = exponent - shift; // q's last bit is worth 2^weight
  const lowest = Math.max(bitLength(q) - 1 + weight - 52, -1074); // the last bit the double keeps
  const drop = BigInt(lowest - weight);
  let kept = q >> drop;
  const rest = q - (kept << drop);
  const half = 1n << (drop - 1n);
  if (rest > half || (rest === half && (inexact || (kept & 1n) === 1n))) kept += 1n;
  const value = Number(kept) * 2 ** lowest;
  return negative ? -value : value;
}

/** A BigInt mantissa · 2^exponent plus a finite double, exactly. */
function addExact(mantissa: bigint, exponent: number, value: number): [bigint, number] {
  const [m, e] = decompose(value);
  if (mantissa === 0n) return [m, e];
  if (e >= exponent) return [mantissa + (m << BigInt(e - exponent)), exponent];
  return [(mantissa << BigInt(exponent - e)) + m, e];
}

/** From this magnitude on, a value (or a partial sum) is added to the BigInt sum: partial sums never overflow. */
const HUGE = 2 ** 1000;
/** The quotient's fast path needs products and remainders far from overflow and from subnormals. */
const FAST_LOW = 2 ** -900;
const FAST_HIGH = 2 ** 900;
const FAST_COUNT = 2 ** 30;
/** Veltkamp's splitter for doubles: 2^27 + 1. */
const SPLITTER = 134217729;

/** The unit in the last place of a positive normal double, and whether the double is a power of two. */
function ulpOf(value: number): { ulp: number; powerOfTwo: boolean } {
  BITS.setFloat64(0, value);
  const high = BITS.getUint32(0);
  const low = BITS.getUint32(4);
  const biased = (high >>> 20) & 0x7ff;
  BITS.setUint32(0, (biased - 52) << 20);
  BITS.setUint32(4, 0);
  return { ulp: BITS.getFloat64(0), powerOfTwo: (high & 0xfffff) === 0 && low === 0 };
}

/**
 * `(hi + lo) / count` rounded once (to nearest), from doubles alone, or null when doubles cannot tell it for
 * certain (then the BigInt path decides). `hi + lo` is the exact sum but for a rounding of `lo` (the sum of the
 * smaller partials), and |lo| is at most about half an ulp of |hi| (else null).
 *
 * A double-double quotient: q1 = hi / count, the remainder hi + lo - q1 · count exactly up to one rounding
 * (Dekker's product: q1 · count = p + e exactly; hi - p is exact by Sterbenz's lemma), q2 = remainder / count,
 * s = q1 + q2 rounded and err its exact rounding error (Fast2Sum). The true quotient is s + err + δ with |δ| far
 * below ulp(s) · 2^-40 (the roundings of lo, the remainder and q2 are each below ulp(s) · 2^-48); s is its
 * rounding unless err + δ may reach half the gap to s's neighbour on its side (a tie, or too close to one to
 * tell): then null.
 */
/** The exact error of the rounded sum `sum` of `x` and `y` (Knuth's TwoSum). */
function sumError(x: number, y: number, sum: number): number {
  const virtual = sum - x;
  return x - (sum - virtual) + (y - virtual);
}

/** Whether `quotient` · `count` is exactly `target` (Dekker's product: no overflow or underflow in its range). */
function timesIs(quotient: number, count: number, target: number): boolean {
  const p = quotient * count;
  return p === target && productError(quotient, count, p) === 0;
}

/** The rounding error of the double product `p` = `a` · `b` (Dekker's splitting: `a` · `b` = `p` + the result). */
function productError(a: number, b: number, p: number): number {
  let c = SPLITTER * a;
  const ah = c - (c - a);
  const al = a - ah;
  c = SPLITTER * b;
  const bh = c - (c - b);
  const bl = b - bh;
  return ah * bh - p + ah * bl + al * bh + al * bl;
}

function fastQuotient(hi: number, lo: number, count: number, loExact: boolean): number | null {
  const negative = hi < 0;
  if (negative) {
    hi = -hi;
    lo = -lo;
  }
  if (!(hi > FAST_LOW && hi < FAST_HIGH) || count > FAST_COUNT || Math.abs(lo) > hi * 2 ** -50) return null;
  const q1 = hi / count;
  const p = q1 * count;
  const e = productError(q1, count, p);
  const b = hi - p - e;
  const r = b + lo;
  const q2 = r / count;
  const s = q1 + q2;
  const err = q2 - (s - q1);
  const { ulp, powerOfTwo } = ulpOf(s);
  const margin = ulp * 2 ** -30;
  const room = err >= 0 ? ulp / 2 : powerOfTwo ? ulp / 4 : ulp / 2;
  if (Math.abs(err) + margin >= room) {
    // at (or too near to tell) a tie: s is still the exact quotient's rounding, ties to even, when nothing before
    // it was rounded: then q1 + q2 is the exact quotient, and s its rounding by IEEE (exact sums of scores divided
    // by 2 or 4 meet true ties often)
    const exact = loExact && (q2 === 0 || Math.abs(q2) > FAST_LOW) && sumError(hi - p, -e, b) === 0 && sumError(b, lo, r) === 0 && timesIs(q2, count, r);
    if (!exact) return null;
  }
  return negative ? -s : s;
}

/**
 * An exact sum of doubles and their count: the mean is the exact one rounded once, whatever the order of the
 * additions, as Python's summary keeps it (there, so that partial summaries merge to the one-pass summary).
 *
 * The sum is kept as Shewchuk's non-overlapping partials (Python's `math.fsum`): exact, in doubles, with no
 * allocation per value; values and partial sums of HUGE magnitude or more go to a BigInt mantissa at the smallest
 * exponent added so far, so that no partial sum overflows. The mean of a sum held in partials is divided in
 * doubles when that is certainly the rounded exact quotient (`fastQuotient`); otherwise, and always with
 * `exactOnly` (for tests), in BigInts (`exactMean`).
 */
export class Mean {
  private readonly partials: number[] = [];
  private mantissa = 0n;
  private exponent = 0;
  private count = 0;
  private up = 0; // values that are +Infinity (a row mean beyond doubles)
  private down = 0;

  constructor(private readonly exactOnly = false) {}

  add(value: number): void {
    this.count += 1;
    if (value === Infinity) this.up += 1;
    else if (value === -Infinity) this.down += 1;
    else if (value !== 0) {
      if (this.exactOnly || Math.abs(value) >= HUGE) {
        [this.mantissa, this.exponent] = addExact(this.mantissa, this.exponent, value);
        return;
      }
      // msum: add `value` to the partials, keeping each rounding error as a partial
      const partials = this.partials;
      let x = value;
      let kept = 0;
      for (let j = 0; j < partials.length; j++) {
        let y = partials[j]!;
        if (Math.abs(x) < Math.abs(y)) {
          const t = x;
          x = y;
          y = t;
        }
        const hi = x + y;
        const lo = y - (hi - x);
        if (lo !== 0) partials[kept++] = lo;
        x = hi;
      }
      partials.length = kept;
      partials.push(x);
      if (Math.abs(x) >= HUGE) {
        for (const part of partials) if (part !== 0) [this.mantissa, this.exponent] = addExact(this.mantissa, this.exponent, part);
        partials.length = 0;
      }
    }
  }

  /** The exact sum divided by `count`, rounded once (0 for no values; `count` > 0). */
  sumOver(count: number): number {
    return this.up || this.down ? NaN : this.quotient(count);
  }

  /** The exact sum's mean, rounded once. */
  private mean(): number {
    return this.quotient(this.count);
  }

  private quotient(count: number): number {
    const partials = this.partials;
    if (this.mantissa === 0n) {
      if (partials.length === 0 || (partials.length === 1 && partials[0] === 0)) return 0;
      // the largest partial, and the others' sum (rounded once more: far below what fastQuotient can tell)
      let lo = 0;
      for (let i = 0; i < partials.length - 1; i++) lo += partials[i]!;
      const fast = fastQuotient(partials[partials.length - 1]!, lo, count, partials.length <= 2);
      if (fast !== null) return fast;
    }
    let mantissa = this.mantissa;
    let exponent = this.exponent;
    for (const part of partials) if (part !== 0) [mantissa, exponent] = addExact(mantissa, exponent, part);
    return exactMean(mantissa, exponent, count);
  }

  value(): number | null {
    if (this.count === 0) return null;
    let mean = this.mean();
    if (this.up) mean += Infinity;
    if (this.down) mean -= Infinity;
    return mean;
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
  // the exact mean of this row's scores, rounded once
  const scores = new Mean();
  const graderResults = items(get(result, "grader_results"));
  for (let i = 0; i < graderResults.length; i++) {
    const g = graderResults[i];
    const s = isObject(g) ? score(g) : null;
    if (s !== null) scores.add(s);
  }
  return scores.value();
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

/**
 * A case's attempts are usually kept packed in one number, so that a result set with millions of test cases
 * keeps one small entry per case: the first attempt number times 8, plus three bits (that attempt passed, any
 * passed, all passed). Attempt numbers too large to pack exactly keep the object.
 */
type Folded = number | CaseAttempts;
const FIRST_PASSED = 1;
const ANY_PASSED = 2;
const ALL_PASSED = 4;
const PACKABLE = 2 ** 48;

function unpack(known: Folded): CaseAttempts {
  if (typeof known !== "number") return known;
  const first = Math.floor(known / 8);
  const flags = known - first * 8;
  return { first, firstPassed: (flags & FIRST_PASSED) !== 0, anyPassed: (flags & ANY_PASSED) !== 0, allPassed: (flags & ALL_PASSED) !== 0 };
}

function foldAttempt(known: Folded | undefined, attempt: number, passed: boolean): Folded {
  const c: CaseAttempts =
    known === undefined ? { first: attempt, firstPassed: passed, anyPassed: passed, allPassed: passed } : unpack(known);
  if (known !== undefined) {
    if (attempt < c.first) {
      c.first = attempt;
      c.firstPassed = passed;
    }
    c.anyPassed ||= passed;
    c.allPassed &&= passed;
  }
  if (Math.abs(c.first) > PACKABLE) return c;
  return c.first * 8 + (c.firstPassed ? FIRST_PASSED : 0) + (c.anyPassed ? ANY_PASSED : 0) + (c.allPassed ? ALL_PASSED : 0);
}

interface Totals {
  passed: number;
  failed: number;
  unscored: number;
  scores: Mean;
}

/**
 * The reference summary, one row at a time: memory holds counts per grader and per test case, never rows.
 * `summarize` uses it over a whole document; the streaming validator feeds it rows as they are read.
 */
export class SummaryBuilder {
  private readonly counts: Record<Outcome, number> = { passed: 0, failed: 0, invalidated: 0, errored: 0, unscored: 0 };
  private total = 0;
  private readonly rowScores = new Mean();
  private readonly graders = new Map<string, Totals>();
  /** The attempt rollup exists only when some row has an `attempt`; the cases are folded from the first row on. */
  private hasAttempts = false;
  private readonly perCase = new Map<string, Folded>();
  /** Each grader's scored values by test case (SPEC §4.7): grader id -> test case id -> values in reading order. */
  private readonly caseValues = new Map<string, Map<string, CaseValue[]>>();

  /** Count one row (an object) and return its outcome. */
  add(result: JsonObject): Outcome {
    const outcome = classify(result);
    this.total++;
    this.counts[outcome] += 1;
    const s = rowScore(result, outcome);
    if (s !== null) this.rowScores.add(s);
    if (has(result, "attempt")) this.hasAttempts = true;
    const testCase = get(result, "test_case_id");
    if (typeof testCase === "string" && outcome !== "errored" && outcome !== "unscored") {
      this.perCase.set(testCase, foldAttempt(this.perCase.get(testCase), attemptNumber(result), outcome === "passed"));
    }
    if (outcome === "errored") return outcome;
    const attempt = attemptNumber(result);
    const graderResults = items(get(result, "grader_results"));
    for (let i = 0; i < graderResults.length; i++) {
      const graderResult = graderResults[i];
      if (!isObject(graderResult)) continue;
      const graderId = get(graderResult, "grader_id");
      if (typeof graderId !== "string") continue;
      let totals = this.graders.get(graderId);
      if (!totals) this.graders.set(graderId, (totals = { passed: 0, failed: 0, unscored: 0, scores: new Mean() }));
      const value = score(graderResult);
      if (value === null) totals.unscored += 1;
      else {
        if (typeof testCase === "string") {
          const raw = get(graderResult, "raw_score");
          let byCase = this.caseValues.get(graderId);
          if (!byCase) this.caseValues.set(graderId, (byCase = new Map()));
          let values = byCase.get(testCase);
          if (!values) byCase.set(testCase, (values = []));
          values.push({ attempt, score: value, raw: typeof raw === "number" && Number.isFinite(raw) ? raw : null });
        }
        totals.scores.add(value);
        if (get(graderResult, "passed") === true) totals.passed += 1;
        else totals.failed += 1;
      }
    }
    return outcome;
  }

  /** The summary; `provenance`: the result set's `graders`, whose reducers the per-test-case view follows. */
  build(provenance?: unknown): Summary {
    const counts = this.counts;
    const declared = reducers(provenance);
    const skipped = counts.errored + counts.unscored;
    const failed = counts.failed + counts.invalidated;
    const byGrader: Record<string, GraderSummary> = {};
    for (const id of [...this.graders.keys()].sort(compareCodePoints)) {
      const t = this.graders.get(id)!;
      // defined, not assigned: a grader id such as "__proto__" is a key like any other
      const totals: GraderSummary = { passed: t.passed, failed: t.failed, unscored: t.unscored, avg_score: t.scores.value() };
      // the mean raw value, where the grader's results carry raw values, and the per-test-case view (SPEC §4.7)
      const perCase = this.caseValues.get(id) ?? new Map<string, CaseValue[]>();
      const raws: number[] = [];
      for (const values of perCase.values()) for (const v of values) if (v.raw !== null) raws.push(v.raw);
      if (raws.length > 0) totals.avg_raw_score = meanOf(raws, () => new Mean());
      if (this.hasAttempts) totals.per_test_case = graderView(perCase.values(), declared.get(id) ?? new Reducer(), () => new Mean());
      define(byGrader, id, totals);
    }
    const out: Summary = {
      total: this.total,
      passed: counts.passed,
      failed,
      skipped,
      errored: counts.errored,
      invalidated: counts.invalidated,
      unscored: counts.unscored,
      pass_rate: rate(counts.passed, counts.passed + failed),
      avg_score: this.rowScores.value(),
      by_grader: byGrader,
    };
    if (this.hasAttempts) out.attempts = attemptRollup(this.perCase);
    return out;
  }
}

function attemptRollup(perCase: ReadonlyMap<string, Folded>): AttemptSummary {
  let first = 0;
  let any = 0;
  let all = 0;
  for (const folded of perCase.values()) {
    const c = unpack(folded);
    if (c.firstPassed) first++;
    if (c.anyPassed) any++;
    if (c.allPassed) all++;
  }
  const scored = perCase.size;
  return { test_cases: scored, first_attempt_pass_rate: rate(first, scored), any_pass_rate: rate(any, scored), all_pass_rate: rate(all, scored) };
}

/** Compute the reference summary of a result set (rows that are not objects are ignored). One pass over the rows. */
export function summarize(resultset: JsonObject | object): Summary {
  const rows = items(get(resultset as JsonObject, "results"));
  const builder = new SummaryBuilder();
  for (let index = 0; index < rows.length; index++) {
    const result = rows[index];
    if (isObject(result)) builder.add(result);
  }
  return builder.build(get(resultset as JsonObject, "graders"));
}
