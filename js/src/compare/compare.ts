/**
 * `compare(base, new, options)`: the comparison document of two result sets (SPEC.md §12); mirrors
 * Python's `compare` and its comparison document step for step, so that both SDKs give the same document: the
 * same counts, flips and findings, numbers within 1e-9 (closed forms) and identical bootstrap resamples.
 */

import * as codes from "../generated/rules.js";
import type {
  AttemptStats,
  Changes,
  Comparison,
  Finding as ComparisonFinding,
  Flip,
  FlipChange,
  GraderDelta,
  GraderProvenance,
  IntervalMethod,
  PassAtK,
  Power,
  Run,
  RowOutcome,
  RunRate,
} from "../generated/comparison.js";
import { VERSION } from "../generated/version.js";
import { COMPARED_GRADER_FIELDS } from "../generated/constants.js";
import { compareCodePoints } from "../core/findings.js";
import { define, get, isObject, type JsonObject } from "../core/json.js";
import { render } from "../core/messages.js";
import * as stats from "./compareStats.js";
import { CaseValues, graderFields } from "./compareCases.js";
import { createHash } from "node:crypto";

export interface CompareOptions {
  alpha?: number;
  seed?: number;
  resamples?: number;
  grader?: string | null;
  maxDrop?: number | null;
  suiteDigest?: string | null;
  strict?: boolean;
}

const PASSED = 0, FAILED = 1, INVALIDATED = 2, ERRORED = 3, UNSCORED = 4;
const OUTCOMES: Record<RowOutcome, number> = { passed: PASSED, failed: FAILED, invalidated: INVALIDATED, errored: ERRORED, unscored: UNSCORED };
const OUTCOME_NAMES = Object.keys(OUTCOMES) as RowOutcome[];
/** Every flip, in reporting order: typed against the generated union, so a schema change breaks the build. */
const FLIP_RANK: Record<FlipChange, number> = { regression: 0, newly_invalidated: 1, newly_errored: 2, improvement: 3, no_longer_errored: 4 };
const G_ABSENT = 0, G_FAILED = 1, G_PASSED = 2, G_NULL = 3;
const MAX_K = 20;
const GRADER_FIELDS = COMPARED_GRADER_FIELDS;
const PROVENANCE = ["run_id", "suite_id", "suite_version", "suite_digest", "started_at", "runner", "provider"] as const;

type Change = keyof Changes;

function* objects(value: unknown): Generator<JsonObject> {
  if (Array.isArray(value)) for (const item of value) if (isObject(item)) yield item;
}

function score(result: JsonObject): number | null {
  const value = get(result, "score");
  return typeof value === "number" ? value : null;
}

function attemptNumber(row: JsonObject): number {
  const attempt = get(row, "attempt");
  return typeof attempt === "number" && Number.isInteger(attempt) ? attempt : 1;
}

function rowOutcome(row: JsonObject, grader: string | null): number {
  if (get(row, "error") !== undefined) return ERRORED;
  for (const v of objects(get(row, "constraint_violations"))) if (get(v, "invalidates_result") === true) return INVALIDATED;
  let results = [...objects(get(row, "grader_results"))];
  if (grader !== null) {
    results = results.filter((g) => get(g, "grader_id") === grader);
    if (results.length === 0 || score(results[0]!) === null) return UNSCORED;
    return get(results[0]!, "passed") === true ? PASSED : FAILED;
  }
  if (!results.some((g) => score(g) !== null)) return UNSCORED;
  return get(row, "passed") === true ? PASSED : FAILED;
}

function changeOf(base: number, next: number): Change {
  if (next === ERRORED) return base === ERRORED ? "excluded" : "newly_errored";
  if (base === ERRORED) return "no_longer_errored";
  if (base === UNSCORED || next === UNSCORED) return "excluded";
  if (next === INVALIDATED && base !== INVALIDATED) return "newly_invalidated";
  if (base === PASSED && next !== PASSED) return "regression";
  if (base !== PASSED && next === PASSED) return "improvement";
  return "unchanged";
}

function graderState(g: JsonObject): number {
  const value = score(g);
  return value === null ? G_NULL : get(g, "passed") === true ? G_PASSED : G_FAILED;
}

interface BaseRow {
  outcome: number;
  states: Map<string, number>;
  scores: Map<string, number>;
  matched: boolean;
}

interface Case {
  passSum: number;
  pairs: number;
  graders: Map<string, { sum: number; count: number }>;
}

function attemptStats(perCase: Map<string, [number, number]>): AttemptStats {
  const counts = new Map<string, number>();
  for (const [n, c] of perCase.values()) counts.set(`${n},${c}`, (counts.get(`${n},${c}`) ?? 0) + 1);
  const entries = [...counts.entries()]
    .map(([key, m]) => [...key.split(",").map(Number), m] as [number, number, number])
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let multi = 0;
  let flipped = 0;
  let top = 0;
  for (const [n, c, m] of entries) {
    if (n >= 2) multi += m;
    if (n >= 2 && c > 0 && c < n) flipped += m;
    top = Math.max(top, n);
  }
  const byK: PassAtK[] = [];
  for (let k = 1; k <= Math.min(MAX_K, top); k++) {
    let total = 0, at = 0, hat = 0;
    for (const [n, c, m] of entries) {
      if (n < k) continue;
      total += m;
      at += m * stats.passAtK(n, c, k);
      hat += m * stats.passHatK(n, c, k);
    }
    byK.push({ k, test_cases: total, pass_at_k: at / total, pass_hat_k: hat / total });
  }
  return { test_cases: perCase.size, multi_attempt_cases: multi, flip_rate: multi ? flipped / multi : null, by_k: byK };
}

function addAttempt(perCase: Map<string, [number, number]>, caseId: string, outcome: number): void {
  if (outcome === ERRORED || outcome === UNSCORED) return;
  const entry = perCase.get(caseId) ?? [0, 0];
  entry[0] += 1;
  if (outcome === PASSED) entry[1] += 1;
  perCase.set(caseId, entry);
}

function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function envelopeOf(document: unknown): [JsonObject, unknown[]] {
  if (!isObject(document)) throw new TypeError("a result set is a JSON object");
  const envelope: JsonObject = {};
  for (const [key, value] of Object.entries(document)) if (key !== "results") define(envelope, key, value);
  const rows = get(document, "results");
  return [envelope, Array.isArray(rows) ? rows : []];
}

/** Each grader's provenance, by grader id: a Map, as any id (`__proto__`, `constructor`) is a key like another. */
function graderProvenance(envelope: JsonObject, types: Map<string, string>): Map<string, GraderProvenance> {
  const out = new Map<string, GraderProvenance>();
  const declared = get(envelope, "graders");
  if (isObject(declared)) {
    for (const [id, entry] of Object.entries(declared)) {
      if (!isObject(entry)) continue;
      const record: GraderProvenance = {};
      for (const field of GRADER_FIELDS) {
        const value = get(entry, field);
        if (typeof value === "string") record[field] = value;
      }
      out.set(id, record);
    }
  }
  for (const [id, kind] of types) {
    const record = out.get(id) ?? {};
    record.type ??= kind;
    out.set(id, record);
  }
  return out;
}

/** A map of grader ids as the comparison document's object (in the map's order). */
function asRecord<T>(map: ReadonlyMap<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [id, value] of map) define(out, id, value);
  return out;
}

/** The comparison document of two result sets (its schema: schemas/comparison.json). */
export function compare(base: unknown, next: unknown, options: CompareOptions = {}): Comparison {
  const alpha = options.alpha ?? 0.05;
  const seed = options.seed ?? stats.DEFAULT_SEED;
  const resamples = options.resamples ?? stats.DEFAULT_RESAMPLES;
  const grader = options.grader ?? null;
  const strict = options.strict ?? false;
  const [baseEnvelope, baseRows] = envelopeOf(base);
  const [newEnvelope, newRows] = envelopeOf(next);
  const types: [Map<string, string>, Map<string, string>] = [new Map(), new Map()];
  const attempts: [Map<string, [number, number]>, Map<string, [number, number]>] = [new Map(), new Map()];
  let ignored = 0, duplicates = 0, baseCount = 0, newCount = 0;

  const keyed = (row: unknown, side: 0 | 1): [string, string, number, JsonObject] | null => {
    if (!isObject(row) || typeof get(row, "test_case_id") !== "string") {
      ignored += 1;
      return null;
    }
    const caseId = get(row, "test_case_id") as string;
    const attempt = attemptNumber(row);
    for (const g of objects(get(row, "grader_results"))) {
      const id = get(g, "grader_id");
      const kind = get(g, "type");
      if (typeof id === "string" && typeof kind === "string" && !types[side].has(id)) types[side].set(id, kind);
    }
    return [caseId, `${attempt}\u0000${caseId}`, attempt, row];
  };

  // per run: every scored value of every row (repeated ones too, as its summary counts them), for the per-test-case view
  const caseValues: [CaseValues, CaseValues] = [new CaseValues(), new CaseValues()];
  const baseByKey = new Map<string, BaseRow>();
  for (const item of baseRows) {
    caseValues[0].add(item);
    const k = keyed(item, 0);
    if (k === null) continue;
    const [caseId, key, , row] = k;
    if (baseByKey.has(key)) {
      duplicates += 1;
      continue;
    }
    baseCount += 1;
    const outcome = rowOutcome(row, grader);
    const entry: BaseRow = { outcome, states: new Map(), scores: new Map(), matched: false };
    for (const g of objects(get(row, "grader_results"))) {
      const id = get(g, "grader_id");
      if (typeof id !== "string" || entry.states.has(id)) continue;
      entry.states.set(id, graderState(g));
      const value = score(g);
      if (value !== null) entry.scores.set(id, value);
    }
    baseByKey.set(key, entry);
    addAttempt(attempts[0], caseId, outcome);
  }

  const newOnly = new Set<string>();
  const cases = new Map<string, Case>();
  const table = [0, 0, 0, 0];
  const changes: Changes = { regression: 0, newly_invalidated: 0, newly_errored: 0, improvement: 0, no_longer_errored: 0, unchanged: 0, excluded: 0 };
  let excludedErrored = 0, excludedUnscored = 0, paired = 0;
  const flips: Flip[] = [];
  const graderIds = new Set<string>();
  const graderTotals = new Map<string, [number, number]>();

  for (const item of newRows) {
    caseValues[1].add(item);
    const k = keyed(item, 1);
    if (k === null) continue;
    const [caseId, key, attempt, row] = k;
    const nextOutcome = rowOutcome(row, grader);
    const entry = baseByKey.get(key);
    if (entry === undefined) {
      if (newOnly.has(key)) {
        duplicates += 1;
        continue;
      }
      newOnly.add(key);
      newCount += 1;
      addAttempt(attempts[1], caseId, nextOutcome);
      continue;
    }
    if (entry.matched) {
      duplicates += 1;
      continue;
    }
    entry.matched = true;
    paired += 1;
    newCount += 1;
    addAttempt(attempts[1], caseId, nextOutcome);
    const baseOutcome = entry.outcome;
    const change = changeOf(baseOutcome, nextOutcome);
    changes[change] += 1;
    if (baseOutcome === ERRORED || nextOutcome === ERRORED) excludedErrored += 1;
    else if (baseOutcome === UNSCORED || nextOutcome === UNSCORED) excludedUnscored += 1;
    let record = cases.get(caseId);
    if (record === undefined) {
      record = { passSum: 0, pairs: 0, graders: new Map() };
      cases.set(caseId, record);
    }
    if (change !== "excluded" && change !== "newly_errored" && change !== "no_longer_errored") {
      const bp = baseOutcome === PASSED, np = nextOutcome === PASSED;
      table[(bp ? 0 : 2) + (np ? 0 : 1)]! += 1;
      record.passSum += Number(np) - Number(bp);
      record.pairs += 1;
    }
    const changed: string[] = [];
    const seen = new Set<string>();
    for (const g of objects(get(row, "grader_results"))) {
      const id = get(g, "grader_id");
      if (typeof id !== "string" || seen.has(id)) continue;
      seen.add(id);
      const state = entry.states.get(id) ?? G_ABSENT;
      const value = score(g);
      if (state !== graderState(g)) changed.push(id);
      if (value === null || state === G_ABSENT || state === G_NULL || baseOutcome === ERRORED || nextOutcome === ERRORED) continue;
      const baseScore = entry.scores.get(id)!;
      const acc = record.graders.get(id) ?? { sum: 0, count: 0 };
      acc.sum += value - baseScore;
      acc.count += 1;
      record.graders.set(id, acc);
      // the two means' sums in pairing order, as Python's `grader_totals` (a sum of doubles depends on its order)
      const totals = graderTotals.get(id) ?? [0, 0];
      totals[0] += baseScore;
      totals[1] += value;
      graderTotals.set(id, totals);
      graderIds.add(id);
    }
    for (const [id, state] of entry.states) if (!seen.has(id) && state !== G_ABSENT) changed.push(id);
    if (change in FLIP_RANK) {
      const flip: Flip = {
        test_case_id: caseId,
        attempt,
        change: change as FlipChange,
        base: OUTCOME_NAMES[baseOutcome]!,
        new: OUTCOME_NAMES[nextOutcome]!,
        graders_changed: changed.sort(compareCodePoints),
      };
      if (nextOutcome === INVALIDATED) {
        const ids = new Set<string>();
        for (const v of objects(get(row, "constraint_violations"))) {
          const id = get(v, "id");
          if (get(v, "invalidates_result") === true && typeof id === "string") ids.add(id);
        }
        flip.constraint_ids = [...ids].sort(compareCodePoints);
      }
      if (nextOutcome === ERRORED) {
        const error = get(row, "error");
        const kind = isObject(error) ? get(error, "type") : undefined;
        flip.error_type = typeof kind === "string" ? kind : null;
      }
      flips.push(flip);
    }
  }

  // --- the document (as Python's comparison document) ---
  const z = stats.zValue(alpha);
  const [a, b, c, d] = table as [number, number, number, number];
  const n = a + b + c + d;
  const test = stats.mcnemar(b, c);
  const difference = n ? (c - b) / n : null;
  const pairedInterval = stats.newcombePaired(a, b, c, d, z);
  const nCases = cases.size;
  let ids = [...graderIds].sort(compareCodePoints);
  if (grader !== null) ids = ids.filter((id) => id === grader);
  const bootstrap = resamples > 0 && nCases * resamples <= stats.DRAW_BUDGET && nCases > 0;
  const ordered = [...cases.entries()];
  if (bootstrap) ordered.sort((x, y) => compareCodePoints(x[0], y[0]));
  const metrics: stats.Metric[] = [[ordered.map(([, r]) => r.passSum), ordered.map(([, r]) => r.pairs)]];
  for (const id of ids) {
    metrics.push([ordered.map(([, r]) => r.graders.get(id)?.sum ?? 0), ordered.map(([, r]) => r.graders.get(id)?.count ?? 0)]);
  }
  const intervals = bootstrap
    ? stats.clusterBootstrap(metrics, nCases, resamples, seed, alpha)
    : metrics.map(([sums, counts]) => stats.clusterNormal(sums, counts, z));
  const method: IntervalMethod = bootstrap ? "paired_bootstrap" : "cluster_normal";
  const declared = [get(baseEnvelope, "graders"), get(newEnvelope, "graders")] as const; // each run's reducers
  const graders: GraderDelta[] = ids.map((id, j) => {
    const [sums, counts] = metrics[j + 1]!;
    let pairs = 0, withPairs = 0;
    for (let i = 0; i < counts.length; i++) {
      pairs += counts[i]!;
      if (counts[i]! > 0) withPairs += 1;
    }
    const [baseTotal, newTotal] = graderTotals.get(id) ?? [0, 0];
    const interval = intervals[j + 1]!;
    return {
      grader_id: id,
      pairs,
      test_cases: withPairs,
      base_mean: pairs ? stats.finite(baseTotal / pairs) : null,
      new_mean: pairs ? stats.finite(newTotal / pairs) : null,
      difference: stats.mean(sums, pairs),
      interval: interval === null ? null : [...interval],
      method,
      ...graderFields(caseValues, declared, id, z),
    };
  });

  const significant = n > 0 && test.p < alpha;
  const reasons: ("significant_drop" | "drop_exceeds_max")[] = [];
  if (difference !== null && difference < 0) {
    if (significant) reasons.push("significant_drop");
    if (options.maxDrop !== undefined && options.maxDrop !== null && -difference > options.maxDrop) reasons.push("drop_exceeds_max");
  }
  const outcome = n === 0 ? "no_data" : significant && difference !== null && difference !== 0 ? (difference < 0 ? "regression" : "improvement") : "no_significant_change";

  // --- comparability (Python's `comparability`) ---
  const findings: ComparisonFinding[] = [];
  const severity = strict ? "error" : "warning";
  const finding = (code: string, pointer: string, message: string): void => {
    findings.push({ code, severity, pointer, message });
  };
  if (get(baseEnvelope, "suite_id") !== get(newEnvelope, "suite_id")) {
    finding(codes.COMPARE_SUITE_MISMATCH, "/suite_id", render(codes.COMPARE_SUITE_MISMATCH, { base: get(baseEnvelope, "suite_id"), new: get(newEnvelope, "suite_id") }));
  }
  const digests = [get(baseEnvelope, "suite_digest"), get(newEnvelope, "suite_digest")];
  if (digests[0] !== undefined && digests[1] !== undefined && digests[0] !== digests[1]) {
    finding(codes.COMPARE_SUITE_DIGEST_MISMATCH, "/suite_digest", render(codes.COMPARE_SUITE_DIGEST_MISMATCH, { base: digests[0], new: digests[1] }));
  }
  const expected = options.suiteDigest ?? null;
  if (expected !== null) {
    ["base", "new"].forEach((name, i) => {
      if (digests[i] !== undefined && digests[i] !== expected) {
        finding(codes.COMPARE_SUITE_DIGEST_MISMATCH, "/suite_digest", render(codes.COMPARE_SUITE_DIGEST_MISMATCH, { side: name, value: digests[i], expected }, "given"));
      }
    });
  }
  const provenance = [graderProvenance(baseEnvelope, types[0]), graderProvenance(newEnvelope, types[1])] as const;
  const allIds = [...new Set([...provenance[0].keys(), ...provenance[1].keys()])].sort(compareCodePoints);
  for (const id of allIds) {
    const before = provenance[0].get(id), after = provenance[1].get(id);
    if (before === undefined || after === undefined) {
      finding(codes.COMPARE_GRADER_CHANGED, `/graders/${escapeToken(id)}`, render(codes.COMPARE_GRADER_CHANGED, { name: id, side: after === undefined ? "base" : "new" }, "only_in"));
      continue;
    }
    for (const field of GRADER_FIELDS) {
      if (before[field] !== after[field]) {
        finding(codes.COMPARE_GRADER_CHANGED, `/graders/${escapeToken(id)}/${field}`, render(codes.COMPARE_GRADER_CHANGED, { name: id, field, base: before[field], new: after[field] }));
      }
    }
  }
  const onlyBase = baseCount - paired;
  if (onlyBase || newOnly.size) {
    finding(codes.COMPARE_TEST_CASES_DIFFER, "/results", render(codes.COMPARE_TEST_CASES_DIFFER, { base: onlyBase, new: newOnly.size }));
  }

  const run = (envelope: JsonObject, side: 0 | 1): Run => {
    // Python's key order (provenance, then graders): the command's JSON is written byte for byte as Python's
    const out: Record<string, unknown> = {};
    for (const name of PROVENANCE) {
      const value = get(envelope, name);
      if (value !== undefined) out[name] = value;
    }
    out["graders"] = asRecord(provenance[side]);
    return out as unknown as Run;
  };
  const rate = (x: number): RunRate => {
    const interval = stats.wilson(x, n, z);
    return { passed: x, scored: n, rate: n ? x / n : null, interval: interval === null ? null : [...interval] };
  };
  flips.sort((x, y) => FLIP_RANK[x.change] - FLIP_RANK[y.change] || compareCodePoints(x.test_case_id, y.test_case_id) || x.attempt - y.attempt);
  return {
    version: VERSION,
    base: run(baseEnvelope, 0),
    new: run(newEnvelope, 1),
    options: { alpha, seed, resamples, grader, max_drop: options.maxDrop ?? null },
    comparable: findings.length === 0,
    findings,
    pairs: {
      base_rows: baseCount,
      new_rows: newCount,
      paired,
      only_in_base: onlyBase,
      only_in_new: newOnly.size,
      duplicates,
      ignored_rows: ignored,
      comparable: n,
      excluded_errored: excludedErrored,
      excluded_unscored: excludedUnscored,
      test_cases: nCases,
    },
    changes,
    pass_rate: {
      base: rate(a + b),
      new: rate(a + c),
      difference,
      interval: pairedInterval === null ? null : [...pairedInterval],
      interval_method: "newcombe_hybrid_score",
      clustered_interval: intervals[0] === null || intervals[0] === undefined ? null : [...intervals[0]],
      clustered_method: method,
    },
    mcnemar: { both_passed: a, base_only: b, new_only: c, neither: d, discordant: b + c, method: test.method, statistic: test.statistic, p_value: test.p },
    power: powerOf(n, alpha),
    graders,
    attempts: { base: attemptStats(attempts[0]), new: attemptStats(attempts[1]) },
    verdict: { outcome, significant, gate_failed: reasons.length > 0, gate_reasons: reasons },
    flips,
  };
}

/**
 * The fewest discordant pairs, all flipped the same way, whose McNemar p is below `alpha`; null when even all
 * `pairs` flipping one way would not be (Python's `fewest_significant`; ⌊log₂(2/α)⌋ + 1 in the exact range).
 */
export function fewestSignificant(pairs: number, alpha: number): number | null {
  for (let k = 1; k <= pairs; k++) if (stats.mcnemar(k, 0).p < alpha) return k;
  return null;
}

/** The comparison document's `power` (SPEC §12.7): what `pairs` comparable pairs can show at `alpha` (`pairs_needed`
 * is looked for up to `search` pairs, as Python's `power`). */
export function powerOf(pairs: number, alpha: number, search = 1 << 20): Power {
  const fewest = fewestSignificant(pairs, alpha);
  return { fewest_flips: fewest, smallest_change: fewest === null ? null : fewest / pairs, pairs_needed: fewestSignificant(search, alpha) };
}

/** RFC 8785 (JCS) text of a JSON value: keys sorted by UTF-16 code units, no whitespace, ECMAScript numbers. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  return JSON.stringify(value) ?? "null";
}

/** The suite digest (SPEC §12.6): `sha256:` and the hex SHA-256 of the suite document's RFC 8785 text (Python's
 * `suite_digest`). */
export function suiteDigest(suite: unknown): string {
  return "sha256:" + createHash("sha256").update(canonical(suite), "utf8").digest("hex");
}

/**
 * pass@k, pass^k and the flip rate of one result set (SPEC §12.5), for `summarize`: a stage fed the rows (whole or
 * in batches) with the summary's (mirrors Python's `compare.files.attempt_statistics`). A repeated (test case,
 * attempt) counts once, its first row.
 */
export class AttemptTally {
  private readonly perCase = new Map<string, [number, number]>();
  private readonly seen = new Set<string>();

  rows(batch: readonly unknown[]): never[] {
    for (const row of batch) {
      if (!isObject(row)) continue;
      const caseId = get(row, "test_case_id");
      if (typeof caseId !== "string") continue;
      const key = `${attemptNumber(row)}\u0000${caseId}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      addAttempt(this.perCase, caseId, rowOutcome(row, null));
    }
    return [];
  }

  statistics(): AttemptStats {
    return attemptStats(this.perCase);
  }
}
