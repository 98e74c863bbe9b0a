import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { summarize, validate, type ResultSet } from "evalschema";
import { jsonFiles, ROOT } from "./helpers.js";

const resultsets = jsonFiles(join(ROOT, "spec", "examples")).filter(([name]) => name.startsWith("resultset-")) as [string, ResultSet][];

test("there are example result sets", () => {
  assert.ok(resultsets.length >= 3);
});

function close(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === "number" && typeof actual === "number") {
    assert.ok(Math.abs(actual - expected) <= 1e-9, `${where}: ${actual} != ${expected}`);
  } else if (expected !== null && typeof expected === "object") {
    assert.ok(actual !== null && typeof actual === "object", `${where}: not an object`);
    // the carried summary may hold more than the reference computes (e.g. token totals): compare what both have
    for (const [key, value] of Object.entries(expected)) {
      if (key in (actual as object)) close((actual as Record<string, unknown>)[key], value, `${where}/${key}`);
    }
  } else assert.equal(actual, expected, where);
}

for (const [name, document] of resultsets) {
  test(`summary of ${name} agrees with the summary it carries`, () => {
    assert.ok(document.summary, `${name} carries no summary`);
    const reference = summarize(document);
    close(reference, document.summary, name);
    assert.ok(Object.keys(document.summary).filter((k) => k in reference).length >= 8, "too little to compare");
    assert.deepEqual(validate(document).warnings.filter((w) => w.code === "SUMMARY_MISMATCH"), []);
  });
}

test("the outcome model: precedence, denominators, attempts", () => {
  const summary = summarize({
    results: [
      { test_case_id: "a", attempt: 1, passed: true, grader_results: [{ grader_id: "g", score: 1, passed: true }] },
      { test_case_id: "a", attempt: 2, passed: false, grader_results: [{ grader_id: "g", score: 0, passed: false }] },
      { test_case_id: "b", passed: false, error: { type: "timeout" }, grader_results: [] },
      { test_case_id: "c", passed: false, grader_results: [{ grader_id: "g", score: null, passed: false }] },
      {
        test_case_id: "d",
        passed: false,
        grader_results: [{ grader_id: "g", score: 0.5, passed: true }],
        constraint_violations: [{ grader_id: "g", invalidates_result: true }],
      },
      "not an object",
    ],
  });
  assert.deepEqual(summary, {
    total: 5,
    passed: 1,
    failed: 2,
    skipped: 2,
    errored: 1,
    invalidated: 1,
    unscored: 1,
    pass_rate: 1 / 3,
    avg_score: 1 / 3,
    // per test case (SPEC §4.7): a's attempts reduce to 0.5, d's one value is 0.5 (invalidated rows keep their grader results)
    by_grader: { g: { passed: 2, failed: 1, unscored: 1, avg_score: 0.5, per_test_case: { reducer: "mean", test_cases: 2, avg_score: 0.5, stderr: 0 } } },
    attempts: { test_cases: 2, first_attempt_pass_rate: 0.5, any_pass_rate: 0.5, all_pass_rate: 0 },
  });
});

test("an empty result set has no rates", () => {
  const summary = summarize({ results: [] });
  assert.equal(summary.pass_rate, null);
  assert.equal(summary.avg_score, null);
  assert.equal("attempts" in summary, false);
});

test("grader ids that are Object.prototype's names are graders like any other (issue 39)", () => {
  const names = ["__proto__", "constructor", "toString", "hasOwnProperty"];
  const grade = (id: string, score: number) => ({ grader_id: id, type: "exact_match", score, passed: score > 0 });
  // parsed, as a document is: JSON.parse makes "__proto__" an own key
  const document = JSON.parse(
    JSON.stringify({
      version: "1.2.0",
      suite_id: "s",
      run_id: "r",
      started_at: "2026-11-30T00:00:00Z",
      results: [{ test_case_id: "__proto__", grader_results: names.map((id) => grade(id, 1)), passed: true }],
    }),
  ) as ResultSet;
  const byGrader = summarize(document).by_grader;
  assert.deepEqual(Object.keys(byGrader).sort(), [...names].sort());
  for (const id of names) assert.deepEqual(Object.getOwnPropertyDescriptor(byGrader, id)?.value, { passed: 1, failed: 0, unscored: 0, avg_score: 1 });
  assert.equal(Object.getPrototypeOf(byGrader), Object.prototype);
  // the summary it carries, equal to the reference summary, is no mismatch
  const carried = JSON.parse(JSON.stringify({ ...document, summary: summarize(document) })) as ResultSet;
  assert.deepEqual(validate(carried, { kind: "resultset" }).warnings, []);
});
