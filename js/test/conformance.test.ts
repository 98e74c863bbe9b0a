import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { validate, type Kind } from "evalschema";
import { jsonFiles, pairs, ROOT } from "./helpers.js";

interface Fixture {
  description: string;
  kind: Kind | null;
  document: unknown;
  suite?: unknown;
  options?: { strict?: boolean; allow_unknown?: boolean };
  expect: { valid: boolean; errors: { code: string; pointer: string }[]; warnings: { code: string; pointer: string }[] };
}

const fixtures = jsonFiles(join(ROOT, "spec", "conformance")) as [string, Fixture][];

test("there are conformance fixtures", () => {
  assert.ok(fixtures.length >= 200, `only ${fixtures.length} fixtures`);
});

for (const [name, fixture] of fixtures) {
  test(`conformance: ${name}`, () => {
    const report = validate(fixture.document, {
      kind: fixture.kind,
      strict: fixture.options?.strict ?? false,
      allowUnknown: fixture.options?.allow_unknown ?? false,
      suite: fixture.suite,
    });
    assert.deepEqual(
      { valid: report.valid, errors: pairs(report.errors), warnings: pairs(report.warnings) },
      { valid: fixture.expect.valid, errors: pairs(fixture.expect.errors), warnings: pairs(fixture.expect.warnings) },
      fixture.description,
    );
  });
}
