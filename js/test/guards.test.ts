import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { validate } from "evalschema";
import { JS, ROOT } from "./helpers.js";

// The generated type guards (codegen's TypeScript target: isX / validateX beside each type) on this repository's
// schemas: the root type of each schema file, found from the published IR, never named here.
type Guard = (value: unknown) => boolean;
type Validator = (value: unknown) => { instancePath: string; keyword: string; schemaPath: string; message: string }[];
const generated = (await import(pathToFileURL(join(JS, "dist", "generated", "index.js")).href)) as Record<string, unknown>;
const ir = JSON.parse(readFileSync(join(ROOT, "generated", "ir.json"), "utf-8")) as { modules: { file: string; root: string | null }[] };
const roots = new Map(ir.modules.filter((m) => m.root !== null).map((m) => [m.file, m.root as string]));

function guards(file: string): { is: Guard; validate: Validator } {
  const root = roots.get(file);
  assert.ok(root !== undefined, `no root type for ${file}`);
  return { is: generated[`is${root}`] as Guard, validate: generated[`validate${root}`] as Validator };
}

const examples = readdirSync(join(ROOT, "spec", "examples"))
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => ({ name, document: JSON.parse(readFileSync(join(ROOT, "spec", "examples", name), "utf-8")) as Record<string, unknown> }));

test("every example document is accepted by the guard of its schema file's root type", () => {
  assert.ok(examples.length > 0);
  for (const { name, document } of examples) {
    const file = String(document["$schema"]).split("/").pop()!;
    const { is, validate: findings } = guards(file);
    assert.deepEqual(findings(document), [], name);
    assert.equal(is(document), true, name);
  }
});

test("a document the schema refuses only through a conditional is refused by the guard, as by the SDK", () => {
  const example = examples.find(({ document }) => String(document["$schema"]).endsWith("/grader.json") && "params" in document);
  assert.ok(example !== undefined);
  const { params: _params, ...withoutParams } = example.document;
  const { is, validate: findings } = guards("grader.json");
  assert.equal(validate(withoutParams).valid, false); // the schema's verdict, through the SDK
  assert.equal(is(withoutParams), false);
  const found = findings(withoutParams);
  assert.ok(found.length > 0);
  assert.ok(found.every((f) => f.schemaPath.startsWith("#/")), JSON.stringify(found));
});

test("JSON's data model: an integer-valued number is an integer, a string or a boolean is not", () => {
  const { document } = examples.find(({ document }) => String(document["$schema"]).endsWith("/grader.json") && "weight" in document)!;
  const { is } = guards("grader.json");
  assert.equal(is({ ...document, weight: 2.0 }), true);
  assert.equal(is({ ...document, weight: "2" }), false);
  assert.equal(is({ ...document, weight: true }), false);
  assert.equal(is({ ...document, weight: -1 }), false); // a bound the type cannot say
});
