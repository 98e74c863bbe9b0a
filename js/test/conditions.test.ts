// The fast validator writes `if` conditions, `propertyNames` subschemas and `additionalProperties: false` as its own
// code (conditions.ts, conditionCode.ts). The specification's schemas use a few of the keywords it supports
// (fastpath.test.ts checks those); here every supported keyword, in every way code is written for it (one
// expression, loops, nested), must give Ajv's own answer for a pool of values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JS } from "./helpers.js";

// internal modules, not part of the package's API: loaded from the build by path
const internal = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(JS, "dist", ...path.split("/"))).href)) as T;
const compile = await internal<{
  fastTree: (tree: unknown) => unknown;
  compileFast: (fast: unknown) => (value: unknown) => boolean;
  compileAllErrors: (tree: unknown) => (value: unknown) => boolean;
  prebuiltSource: (trees: ReadonlyMap<string, unknown>) => string;
}>("schemas/compile.js");
const { FORMATS } = await internal<{ FORMATS: unknown }>("schemas/formats.js");

/** The validators of fast trees as the build writes them (Ajv's standalone code), loaded as the prebuilt files are. */
function standalone(trees: ReadonlyMap<string, unknown>): Record<string, (value: unknown) => boolean> {
  const folder = mkdtempSync(join(JS, ".conditions-test-")); // inside js/, where Ajv's run-time helpers resolve
  try {
    const file = join(folder, "validators.cjs");
    writeFileSync(file, compile.prebuiltSource(trees));
    return (createRequire(import.meta.url)(file) as (formats: unknown) => Record<string, (value: unknown) => boolean>)(FORMATS);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const CONDITIONS: unknown[] = [
  true,
  false,
  {},
  { const: { a: 1 } },
  { const: [1, 2] },
  { const: null },
  { enum: [1, "a", null, { b: 1 }, [true]] },
  { type: "integer" },
  { type: ["number", "string"] },
  { type: "object" },
  { type: "array" },
  { type: "boolean" },
  { type: "null" },
  { pattern: "^evalschema\\." },
  { not: { required: ["a"] } },
  { required: ["a", "b"] },
  { required: [] },
  { properties: {} },
  { not: { properties: {}, required: [] } },
  { required: ["a"], properties: { a: { const: true } } },
  { properties: { a: { properties: { b: { const: 1 } } }, b: { type: "string" } } },
  { properties: { a: { items: { type: "integer" } } } },
  { items: { not: { type: "null" } } },
  { contains: { required: ["a"], properties: { a: { const: true } } } },
  { not: { contains: { type: "null" } } },
  { anyOf: [{ items: { type: "integer" } }, { type: "string", pattern: "^a" }] },
  { allOf: [{ contains: { const: 1 } }, { items: { type: "number" } }] },
  { properties: { a: { contains: { properties: { b: { items: { const: 2 } } } } } } },
  { anyOf: [{ not: { items: { const: 1 } } }, { contains: { const: 2 } }], description: "annotations are no check" },
];

const VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  1,
  1.5,
  2,
  "",
  "a",
  "abc",
  "evalschema.x",
  [],
  [1],
  [1, 2],
  [2, 1],
  [1, null],
  [true],
  [{ a: true }],
  [{ a: false }, { a: true }],
  [{ b: [2, 2] }],
  [{ b: [2, 1] }],
  {},
  { a: 1 },
  { a: true },
  { a: null },
  { a: [1, 2] },
  { a: [1.5] },
  { a: { b: 1 } },
  { a: { b: 2 }, b: "x" },
  { a: 1, b: 2 },
  { b: 1 },
  { a: [{ b: [2] }] },
  { a: [{ b: [1] }] },
  { "evalschema.x": 1 },
  { "evalschema.x": 1, c: 2 },
  { "x-a": 1 },
  { a: 1, "x-b": 2, c: 3 },
  { k9: 1 },
  { z: 1 },
  JSON.parse('{"__proto__": 1}'),
  { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1, h: 1, i: 1 },
  { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1, h: 1, i: 1, j: 1 },
];

/**
 * The fast validator of `schema`, compiled and as the build writes it, against Ajv over `schema` itself, for every
 * value; and that the fast tree did replace the keyword (else the comparison would be Ajv against itself).
 */
function agree(schema: Record<string, unknown>, replaced: string): void {
  const fast = compile.fastTree(schema) as Record<string, unknown>;
  assert.ok(JSON.stringify(fast).includes(`"${replaced}"`), `${JSON.stringify(schema)}: not written as plain code`);
  const [mine, written, ajv] = [compile.compileFast(fast), standalone(new Map([["tree", fast]]))["tree"]!, compile.compileAllErrors(schema)];
  for (const value of VALUES) {
    const expected = ajv(value);
    assert.equal(mine(value), expected, `${JSON.stringify(schema)} of ${JSON.stringify(value)}`);
    assert.equal(written(value), expected, `${JSON.stringify(schema)} of ${JSON.stringify(value)}, as written at build time`);
  }
}

test("an `if` condition written as code holds exactly where Ajv says it does", () => {
  for (const condition of CONDITIONS) agree({ if: condition, then: false }, "x-plain-if");
  for (const condition of CONDITIONS) agree({ if: condition, else: false }, "x-plain-if");
});

test("a `propertyNames` subschema written as code holds of exactly the names Ajv says", () => {
  for (const condition of CONDITIONS) agree({ propertyNames: condition }, "x-plain-names");
});

test("a keyword the conditions do not support leaves Ajv's own `if`", () => {
  const schema = { if: { minLength: 2 }, then: false };
  assert.ok(!("x-plain-if" in (compile.fastTree(schema) as Record<string, unknown>)));
});

test("`additionalProperties: false` written as code accepts exactly the names Ajv accepts", () => {
  // more than 8 properties: Ajv's own code looks names up on the schema; up to 8, it compares
  const nine = Object.fromEntries([..."abcdefghi"].map((name) => [name, {}]));
  for (const schema of [
    { additionalProperties: false },
    { properties: { a: {} }, additionalProperties: false },
    { properties: nine, additionalProperties: false },
    // past 32 names, the code looks them up in a Set
    { properties: Object.fromEntries([..."abcdefghi", ...Array.from({ length: 40 }, (_, i) => `n${i}`)].map((name) => [name, {}])), additionalProperties: false },
    { properties: nine, patternProperties: { "^x-": {} }, additionalProperties: false },
    { patternProperties: { "^x-": {}, "\\d$": {} }, additionalProperties: false },
    // the properties it allows count as evaluated, as with Ajv's keyword
    { allOf: [{ properties: { a: {} }, additionalProperties: false }], unevaluatedProperties: false },
  ]) {
    agree(schema, "x-plain-closed");
  }
  // a property named __proto__ (Ajv's two ways of checking names disagree on it) keeps Ajv's keyword
  const proto = { properties: JSON.parse('{"__proto__": {}, "a": {}}') as unknown, additionalProperties: false };
  assert.ok(!JSON.stringify(compile.fastTree(proto)).includes("x-plain-closed"));
});
