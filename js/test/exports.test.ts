import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { summarize, type ReferenceSummary, type Result, type ResultSet, type Summary } from "evalschema";
import { ROOT } from "./helpers.js";

test("plain named type exports: Result, ResultSet, Summary (the schema's); the computed summary is ReferenceSummary", () => {
  // compile-time: these imports and assignments fail `tsc` if the names are not exported as these types
  const document = JSON.parse(readFileSync(join(ROOT, "spec", "examples", "resultset-multi-attempt.json"), "utf-8")) as ResultSet;
  const first: Result | undefined = document.results[0];
  assert.ok(first !== undefined);
  const reference: ReferenceSummary = summarize(document);
  // the schema's Summary is what a result set carries: its fields are optional, so it is not the computed one
  const carried: Summary | undefined = document.summary;
  const schemas: Summary = {};
  assert.ok(carried === undefined || typeof carried === "object");
  assert.equal(Object.keys(schemas).length, 0);
  assert.equal(reference.total, document.results.length);
});
