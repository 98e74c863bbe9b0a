// Messages are data (issue 17): the renderer fills each rule's ledger template, and tests/data/messages/render.json
// (also run by tests/test_messages.py) pins what both SDKs write for the same inputs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PARAMETERS, RULES, render, template } from "evalschema";
import { ROOT } from "./helpers.js";

interface Case {
  code: string;
  variant?: string;
  params: Record<string, unknown>;
  expected: string;
}

const cases = JSON.parse(readFileSync(join(ROOT, "tests", "data", "messages", "render.json"), "utf-8")) as Case[];

test("the parameters are those spec/ledger.schema.json allows", () => {
  const schema = JSON.parse(readFileSync(join(ROOT, "spec", "ledger.schema.json"), "utf-8")) as { $defs: { template: { pattern: string } } };
  const names = schema.$defs.template.pattern.split("\\{(")[1]!.split(")\\}")[0]!.split("|");
  assert.deepEqual([...names].sort(), [...PARAMETERS].sort());
});

test("every rule has a message template with known parameters only", () => {
  for (const [code, rule] of Object.entries(RULES)) {
    const message: unknown = rule.message;
    const variants = typeof message === "string" ? [message] : Object.values(message as Record<string, string>);
    for (const text of variants) {
      for (const [, name] of text.matchAll(/\{([^{}]*)\}/g)) assert.ok(PARAMETERS.has(name!), `${code}: ${name}`);
    }
    assert.ok(variants.includes(template(code)), code);
  }
});

for (const [index, c] of cases.entries()) {
  test(`render ${c.code} (${index}) as the shared table says`, () => {
    assert.equal(render(c.code, c.params, c.variant ?? "default"), c.expected);
  });
}
