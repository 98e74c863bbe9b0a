// The API's `suite` follows a suite's `test_cases_file` as the CLI's `--suite` does (issue 43, item 6): given as a
// path, relative to the suite's folder; given as an object, relative to `base`, or refused saying so.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SuiteError, validate, validateFile, validateJson, type Report } from "evalschema";

const SUITE = { version: "1.1.0", id: "support-bot", graders: [{ id: "exact", type: "exact_match" }], test_cases_file: "cases.jsonl" };

function resultset(...cases: string[]): Record<string, unknown> {
  const results = cases.map((t) => ({ test_case_id: t, grader_results: [{ grader_id: "exact", type: "exact_match", score: 1, passed: true }], passed: true }));
  return { version: "1.1.0", suite_id: "support-bot", run_id: "r1", started_at: "2026-11-30T09:00:00Z", results };
}

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "evalschema-suite-api-"));
  writeFileSync(join(dir, "suite.json"), JSON.stringify(SUITE));
  writeFileSync(join(dir, "cases.jsonl"), ["a", "b"].map((id) => JSON.stringify({ id, input: "hi", graders: ["exact"] })).join("\n") + "\n");
  return dir;
}

const codes = (report: Report): string[][] => [...report.errors, ...report.warnings].map((f) => [f.code, f.pointer]).sort();

test("a suite path follows its test_cases_file", () => {
  const dir = folder();
  const suite = join(dir, "suite.json");
  assert.deepEqual(codes(validate(resultset("a", "b"), { suite })), []);
  assert.deepEqual(codes(validate(resultset("a", "zz"), { suite })), [["TEST_CASE_NOT_RUN", "/results"], ["UNKNOWN_TEST_CASE", "/results/1/test_case_id"]]);
  writeFileSync(join(dir, "rs.json"), JSON.stringify(resultset("a", "b")));
  assert.deepEqual(codes(validateFile(join(dir, "rs.json"), { suite })), []);
  assert.deepEqual(codes(validateJson(JSON.stringify(resultset("a", "b")), { suite })), []);
});

test("a suite object takes its base folder, or says it needs one", () => {
  const dir = folder();
  assert.deepEqual(codes(validate(resultset("a", "b"), { suite: SUITE, base: dir })), []);
  assert.throws(() => validate(resultset("a"), { suite: SUITE }), (e: unknown) => e instanceof SuiteError && /test_cases_file "cases\.jsonl".*base: FOLDER/.test(e.message));
});

test("an unreadable test cases file is said, not reported as unknown test cases", () => {
  const dir = folder();
  writeFileSync(join(dir, "cases.jsonl"), '{"id": "a", "input": "hi"}\n{not json\n');
  assert.throws(() => validate(resultset("a"), { suite: join(dir, "suite.json") }), (e: unknown) => e instanceof SuiteError && /line 2/.test(e.message));
  assert.throws(() => validate(resultset("a"), { suite: join(dir, "missing.json") }), (e: unknown) => e instanceof SuiteError && /missing\.json: FILE_UNREADABLE/.test(e.message));
});
