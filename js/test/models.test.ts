import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validate } from "evalschema";
import { ROOT } from "./helpers.js";

const document = JSON.parse(readFileSync(join(ROOT, "spec", "examples", "resultset-aobench-rbac.json"), "utf-8")) as Record<string, unknown>;

test("validate() takes a model-like object that serializes to the document", () => {
  class ResultSetModel {
    constructor(private readonly data: Record<string, unknown>) {}
    toJSON(): Record<string, unknown> {
      return this.data;
    }
  }
  assert.deepEqual(validate(new ResultSetModel(document)), validate(document));
  assert.equal(validate(new ResultSetModel(document)).valid, true);
});

test("validate() refuses another class instance with a TypeError that says what to pass", () => {
  class Opaque {
    readonly suite_id = "s";
  }
  assert.throws(() => validate(new Opaque()), { name: "TypeError", message: /takes a parsed JSON document \(a plain object\), not a Opaque instance/ });
  assert.equal(validate([1, 2]).errors[0]!.code, "UNKNOWN_KIND"); // parsed JSON that is not an object stays a finding
});
