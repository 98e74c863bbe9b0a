// The fast validator writes `if` conditions and `propertyNames` subschemas as its own code (conditions.ts,
// conditionCode.ts). The specification's schemas use a few of the keywords it supports (fastpath.test.ts checks
// those); here every supported keyword, in every way code is written for it (one expression, loops, nested), must
// give Ajv's own answer for a pool of values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JS } from "./helpers.js";

// internal modules, not part of the package's API: loaded from the build by path
const internal = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(JS, "dist", ...path.split("/"))).href)) as T;
const compile = await internal<{
  fastTree: (tree: unknown) => unknown;
  compileFast: (fast: unknown) => (value: unknown) => boolean;
  compileAllErrors: (tree: unknown) => (value: unknown) => boolean;
}>("schemas/compile.js");

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
];

/** The fast validator of `schema` against Ajv over `schema` itself, for every value; and that the fast tree did
 * replace the keyword (else the comparison would be Ajv against itself). */
function agree(schema: Record<string, unknown>, replaced: string): void {
  const fast = compile.fastTree(schema) as Record<string, unknown>;
  assert.ok(replaced in fast, `${JSON.stringify(schema)}: not written as plain code`);
  const [mine, ajv] = [compile.compileFast(fast), compile.compileAllErrors(schema)];
  for (const value of VALUES) assert.equal(mine(value), ajv(value), `${JSON.stringify(schema)} of ${JSON.stringify(value)}`);
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
