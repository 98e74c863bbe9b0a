import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { summarize, type ReferenceSummary, type Result, type ResultSet, type Summary } from "evalschema";
import { ROOT } from "./helpers.js";

test("plain named type exports: Result, ResultSet; the computed summary is ReferenceSummary (Summary: its deprecated alias)", () => {
  // compile-time: these imports and assignments fail `tsc` if the names are not exported as these types
  const document = JSON.parse(readFileSync(join(ROOT, "spec", "examples", "resultset-multi-attempt.json"), "utf-8")) as ResultSet;
  const first: Result | undefined = document.results[0];
  assert.ok(first !== undefined);
  const reference: ReferenceSummary = summarize(document);
  const old: Summary = reference;
  assert.equal(typeof old.total, "number");
  assert.equal(reference.total, document.results.length);
});
