/** Rules that need two documents: a result set checked against the suite it claims to be a run of (mirrors Python's `SuiteIndex`). */

import * as codes from "../generated/rules.js";
import { MISSING_SHOWN, PARTIAL_KEY } from "../generated/constants.js";
import { finding, pointer, type Finding } from "../core/findings.js";
import { get, has, isObject, objects, type JsonObject } from "../core/json.js";
import { ordered, render } from "../core/messages.js";

/** A test case's graders as id → type (null when a reference names no suite grader). */
function caseGraders(testCase: JsonObject, shared: Map<string, string | null>): Map<string, string | null> {
  const graders = new Map<string, string | null>();
  const refs = get(testCase, "graders");
  if (Array.isArray(refs)) {
    for (const ref of refs as unknown[]) {
      // a dangling reference is the suite's own DANGLING_REFERENCE, not a missing result
      if (typeof ref === "string") {
        if (shared.has(ref)) graders.set(ref, shared.get(ref) ?? null);
      }
      else if (isObject(ref) && typeof get(ref, "id") === "string") {
        const kind = get(ref, "type");
        graders.set(get(ref, "id") as string, typeof kind === "string" ? kind : null);
      }
    }
  }
  return graders;
}

export { PARTIAL_KEY };

export function isPartial(resultset: JsonObject): boolean {
  const metadata = get(resultset, "metadata");
  return isObject(metadata) && get(metadata, PARTIAL_KEY) === true;
}

/**
 * A suite's test cases as the cross-document rules read them, and nothing more (mirrors Python's `CaseIndex`): each
 * case id (its first definition) with its graders (id → type). Cases with the same graders share one map, so a
 * suite of many cases costs about its ids (a large `test_cases_file` is indexed line by line: `follow`).
 */
export class CaseIndex {
  readonly suiteId: unknown;
  readonly cases = new Map<string, ReadonlyMap<string, string | null>>();
  private readonly shared = new Map<string, string | null>();
  private readonly maps = new Map<string, Map<string, string | null>>();

  constructor(suite: JsonObject) {
    this.suiteId = get(suite, "id");
    for (const [, grader] of objects(get(suite, "graders"))) {
      const id = get(grader, "id");
      if (typeof id === "string" && !this.shared.has(id)) {
        const kind = get(grader, "type");
        this.shared.set(id, typeof kind === "string" ? kind : null);
      }
    }
    for (const [, testCase] of objects(get(suite, "test_cases"))) this.add(testCase);
  }

  /** One more test case (after the suite's others). */
  add(testCase: JsonObject): void {
    const id = get(testCase, "id");
    if (typeof id !== "string" || this.cases.has(id)) return;
    const graders = caseGraders(testCase, this.shared);
    // read only: one map for every case with the same graders
    const key = JSON.stringify([...graders]);
    let map = this.maps.get(key);
    if (map === undefined) this.maps.set(key, (map = graders));
    this.cases.set(id, map);
  }
}

/** Suites whose test cases are held as their `CaseIndex` only, not in `test_cases` (Python's `IndexedSuite`). */
const INDEXED = new WeakMap<JsonObject, CaseIndex>();

/** `suite` (without its `test_cases`) standing for a suite whose test cases are `index`: what the cross-document
 * rules need of a suite whose cases are too many to hold whole. */
export function indexedSuite(suite: JsonObject, index: CaseIndex): JsonObject {
  INDEXED.set(suite, index);
  return suite;
}

/** A suite's test cases and their graders, indexed once, to check result rows against (in any batches), then the
 * result set's own fields and the test cases no row was seen for (`finish`). */
export class SuiteIndex {
  private readonly cases: ReadonlyMap<string, ReadonlyMap<string, string | null>>;
  private readonly run = new Set<string>();
  private caseIds: string[] | null = null;
  private readonly unknown = new Map<string, string>();
  private readonly suiteId: unknown;

  constructor(suite: JsonObject) {
    // read only: an indexed suite's index serves every result set checked against it
    const index = INDEXED.get(suite) ?? new CaseIndex(suite);
    this.suiteId = index.suiteId;
    this.cases = index.cases;
  }

  /** Rows `results`, the first of which is row `start` of the result set. */
  *check(results: readonly unknown[], start = 0): Generator<Finding> {
    for (let k = 0; k < results.length; k++) {
      const result: unknown = results[k];
      if (isObject(result)) yield* this.row(start + k, result);
    }
  }

  /**
   * UNKNOWN_TEST_CASE's message: the closest ids and the first few the suite defines (each unknown id's message
   * made once: every row of a run against the wrong suite names one).
   */
  private unknownCase(caseId: string): string {
    this.caseIds ??= ordered(this.cases.keys());
    let message = this.unknown.get(caseId);
    if (message === undefined) {
      if (this.unknown.size > 10_000) this.unknown.clear();
      message = render(codes.UNKNOWN_TEST_CASE, { name: caseId, defined: this.caseIds });
      this.unknown.set(caseId, message);
    }
    return message;
  }

  private *row(index: number, result: JsonObject): Generator<Finding> {
    const caseId = get(result, "test_case_id");
    if (typeof caseId !== "string") return;
    const expected = this.cases.get(caseId);
    if (expected !== undefined) this.run.add(caseId);
    if (expected === undefined) {
      yield finding(pointer("results", index, "test_case_id"), codes.UNKNOWN_TEST_CASE, "error", this.unknownCase(caseId));
      return;
    }
    const seen = new Set<string>();
    for (const [gIndex, graderResult] of objects(get(result, "grader_results"))) {
      const graderId = get(graderResult, "grader_id");
      if (typeof graderId !== "string") continue;
      seen.add(graderId);
      if (!expected.has(graderId)) {
        yield finding(
          pointer("results", index, "grader_results", gIndex, "grader_id"),
          codes.UNKNOWN_GRADER,
          "error",
          render(codes.UNKNOWN_GRADER, { name: graderId, test_case: caseId, defined: ordered(expected.keys()) }),
        );
        continue;
      }
      const want = expected.get(graderId) ?? null;
      const got = get(graderResult, "type");
      if (want !== null && typeof got === "string" && got !== want) {
        yield finding(
          pointer("results", index, "grader_results", gIndex, "type"),
          codes.GRADER_TYPE_MISMATCH,
          "error",
          render(codes.GRADER_TYPE_MISMATCH, { name: graderId, expected: want, value: got }),
        );
      }
    }
    const missing = [...expected.keys()].filter((g) => !seen.has(g));
    if (missing.length > 0 && !has(result, "error") && Array.isArray(get(result, "grader_results"))) {
      yield finding(
        pointer("results", index, "grader_results"),
        codes.GRADER_RESULT_MISSING,
        "error",
        render(codes.GRADER_RESULT_MISSING, { names: missing }),
      );
    }
  }

  /** The result set's own fields against the suite (`resultset` may lack its rows), once every row was checked:
   * the suite it names, and the suite's test cases that have no result. */
  *finish(resultset: JsonObject): Generator<Finding> {
    const claimed = get(resultset, "suite_id");
    if (typeof claimed === "string" && typeof this.suiteId === "string" && claimed !== this.suiteId) {
      yield finding(
        pointer("suite_id"),
        codes.SUITE_ID_MISMATCH,
        "error",
        render(codes.SUITE_ID_MISMATCH, { value: claimed, expected: this.suiteId }),
      );
      return; // a run of another suite: which of this suite's cases it lacks means nothing
    }
    if (!Array.isArray(get(resultset, "results")) || isPartial(resultset)) return;
    const missing = [...this.cases.keys()].filter((c) => !this.run.has(c));
    if (missing.length > 0) {
      const more = missing.length - MISSING_SHOWN;
      const params = { count: missing.length, names: missing.slice(0, MISSING_SHOWN), more };
      yield finding(pointer("results"), codes.TEST_CASE_NOT_RUN, "error", render(codes.TEST_CASE_NOT_RUN, params, more > 0 ? "more" : "default"));
    }
  }
}
