/**
 * DUPLICATE_ATTEMPT over many rows (rules/annotated.ts `FirstRows`): the first row of each (test case, attempt)
 * is found whether a test case has a few attempts (scanned) or many (looked up by key text), read whole or
 * streamed in small batches.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { validate, type Finding } from "evalschema";
import { JS } from "./helpers.js";

interface Streaming {
  checkFile(path: string, options: object, tuning: object): { report: { errors: Finding[] } };
}
const streaming = (await import(pathToFileURL(join(JS, "dist", "pipeline.js")).href)) as Streaming;

function row(id: unknown, attempt: unknown): Record<string, unknown> {
  return { test_case_id: id, attempt, grader_results: [], passed: false };
}

test("DUPLICATE_ATTEMPT: the first row of each key, with few and with many attempts at one test case", () => {
  const rows: Record<string, unknown>[] = [];
  for (let a = 1; a <= 40; a++) rows.push(row("many", a)); // past the scan limit
  rows.push(row("few", 1), row("few", 2), row("many", 3), row("few", 2), row("many", 40), row("many", 41));
  rows.push(row("few", 1), row("many", 41), row("x", 1.5), row("x", 1.5), row(7, 1), row(7, 1), row("few", -0), row("few", 0));
  for (let a = 1; a <= 20; a++) rows.push(row("late", a % 17)); // crosses the limit holding duplicates
  const document = { version: "1.1.0", suite_id: "s", run_id: "r", started_at: "2026-11-30T09:00:00Z", runner: { name: "b", version: "1" }, results: rows };
  // the expected findings: the first index of each (id, attempt) key of string ids and integer attempts
  const first = new Map<string, number>();
  const expected: [string, string][] = [];
  rows.forEach((r, i) => {
    if (typeof r["test_case_id"] !== "string" || !Number.isInteger(r["attempt"])) return;
    const key = JSON.stringify([r["test_case_id"], r["attempt"] === 0 ? 0 : r["attempt"]]);
    const seen = first.get(key);
    if (seen === undefined) first.set(key, i);
    else expected.push([`/results/${i}/attempt`, `/results/${seen}/attempt`]);
  });
  assert.ok(expected.length >= 7, JSON.stringify(expected));
  const found = (errors: readonly Finding[]): Finding[] => errors.filter((f) => f.code === "DUPLICATE_ATTEMPT");
  const whole = found(validate(document).errors);
  assert.deepEqual(whole.map((f) => f.pointer), expected.map(([at]) => at));
  whole.forEach((f, k) => assert.ok(f.message.includes(expected[k]![1]), `${f.message} names ${expected[k]![1]}`));
  const path = join(mkdtempSync(join(tmpdir(), "first-rows-")), "r.json");
  writeFileSync(path, JSON.stringify(document));
  const sizes = { chunkBytes: 256, batchItems: 3, batchBytes: 300, firstWindow: 64 };
  const streamed = streaming.checkFile(path, { streamRows: true }, { sizes }).report.errors;
  // placed in the file (line and column) when streamed; the same findings otherwise
  assert.deepEqual(found(streamed).map(({ line: _l, column: _c, ...rest }) => rest), whole);
});

test("DUPLICATE_ATTEMPT: thousands of test cases (the first rows' columns grow and keep what they held)", { timeout: 30_000 }, () => {
  // 1,250 test cases with attempts 1 and 2 (2,500 first rows, past the columns' first size), then all repeated
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < 5000; i++) rows.push(row(`t${i % 1250}`, 1 + (Math.floor(i / 1250) % 2)));
  const document = { version: "1.1.0", suite_id: "s", run_id: "r", started_at: "2026-11-30T09:00:00Z", results: rows };
  const found = validate(document).errors.filter((f) => f.code === "DUPLICATE_ATTEMPT");
  assert.deepEqual(
    found.map((f) => f.pointer),
    rows.slice(2500).map((_, k) => `/results/${2500 + k}/attempt`),
  );
  found.forEach((f, k) => assert.ok(f.message.includes(`/results/${k}/attempt`), `${f.message} names /results/${k}/attempt`));
});
