/**
 * CONSTRAINT_GRADER_UNKNOWN (an `x-references` rule over each row, rules/annotated.ts): a row whose references are
 * all found is screened without building a set (`allFound`); one that is not, or that is too large to screen
 * (past the comparison budget), is judged by the sets. Either way the findings are the same: every dangling
 * reference, where it is, and nothing else.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { validate } from "evalschema";

function row(graders: readonly string[], references: readonly unknown[]): Record<string, unknown> {
  return {
    test_case_id: "t",
    grader_results: graders.map((id) => ({ grader_id: id, type: "custom", score: 1, passed: true })),
    constraint_violations: references.map((id, k) => ({ id: `v${k}`, type: "authorization", grader_id: id })),
    passed: false,
  };
}

/** The pointers of CONSTRAINT_GRADER_UNKNOWN findings of a result set with these rows. */
function dangling(rows: readonly Record<string, unknown>[]): string[] {
  const document = { version: "1.1.0", suite_id: "s", run_id: "r", started_at: "2026-11-30T09:00:00Z", results: rows };
  return validate(document)
    .errors.filter((f) => f.code === "CONSTRAINT_GRADER_UNKNOWN")
    .map((f) => f.pointer);
}

test("CONSTRAINT_GRADER_UNKNOWN: references found, not found, and rows too large to screen", () => {
  const many = Array.from({ length: 120 }, (_, i) => `g${i}`);
  const rows = [
    row(["a", "b"], ["b", "a", "b"]), // all found: nothing
    row(["a", "b"], ["a", "c", "b", "d"]), // two dangling, in order
    row([], ["a"]), // no grader results at all
    row(many, [...many].reverse()), // 120 × 120 comparisons, past the budget, all found: nothing
    row(many, [...many.slice(0, 60), "missing", ...many.slice(60)]), // one dangling, met within the budget
    row(many, [...[...many].reverse(), "missing"]), // one dangling, met past the budget
  ];
  assert.deepEqual(dangling(rows), [
    "/results/1/constraint_violations/1/grader_id",
    "/results/1/constraint_violations/3/grader_id",
    "/results/2/constraint_violations/0/grader_id",
    "/results/4/constraint_violations/60/grader_id",
    "/results/5/constraint_violations/120/grader_id",
  ]);
});

test("CONSTRAINT_GRADER_UNKNOWN: a reference that is not a string, or an empty one, is judged as a string is", () => {
  // a number is no reference (the schema reports its type); "" names no grader result, so it dangles
  const rows = [row(["a"], [7, "", "a"])];
  assert.deepEqual(dangling(rows), ["/results/0/constraint_violations/1/grader_id"]);
});
