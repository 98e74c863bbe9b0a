/**
 * `if` conditions (and `propertyNames` subschemas) as plain code, for the fast validator (see `fastTree` in
 * compile.ts).
 *
 * Why: Ajv evaluates an `if` subschema as a composite rule, and a composite rule that fails allocates an error
 * object (and often an array) even when nobody reads it. Our conditions fail on almost every row ("this row has
 * an `error`", "every grader result is unscored"), so a 100k-row result set allocated over 100 MB of such
 * garbage, and the scavenges it triggered copied the freshly parsed document: the single largest cost of
 * validation. The conditions use a handful of keywords, so they are parsed here into a `Condition`, and compile.ts
 * writes each as code inside Ajv's own function: the members it names read by name, loops as plain loops, nothing
 * allocated. (Predicates composed of closures did the same without allocating, but every read went through a
 * generic keyed load and a call per keyword: about a tenth of a result set's validation.)
 *
 * Only the keywords below are supported, each with Ajv's semantics; any other keyword makes `parseCondition`
 * return null and the condition stays an ordinary Ajv `if`. This never decides findings: the fast validator
 * only says whether a document is valid, and the findings of an invalid one come from the all-errors validator
 * over the original schema (test/fastpath.test.ts holds the two to the same answers).
 */

import { isObject, type JsonObject } from "../core/json.js";

/** The JSON types a `type` keyword names. */
export type TypeName = "null" | "boolean" | "string" | "number" | "integer" | "array" | "object";

const TYPE_NAMES: ReadonlySet<string> = new Set<TypeName>(["null", "boolean", "string", "number", "integer", "array", "object"]);

/** A condition subschema, parsed: what the generated code tests of a value. */
export type Condition =
  | { readonly kind: "always"; readonly holds: boolean } // a boolean schema, or an object with no keyword that checks
  | { readonly kind: "type"; readonly names: readonly TypeName[] }
  | { readonly kind: "equal"; readonly values: readonly unknown[] } // `const` (one value) or `enum`
  | { readonly kind: "required"; readonly names: readonly string[] }
  | { readonly kind: "pattern"; readonly source: string }
  | { readonly kind: "not"; readonly inner: Condition }
  | { readonly kind: "properties"; readonly members: readonly (readonly [string, Condition])[] }
  | { readonly kind: "items" | "contains"; readonly inner: Condition }
  | { readonly kind: "allOf" | "anyOf"; readonly branches: readonly Condition[] };

/** Keywords with no effect on validation. */
const ANNOTATIONS = new Set(["$comment", "description", "title", "examples", "x-rule"]);

/** What holds of every value (no list of code is ever empty: Ajv's `and()` and `or()` need one item at least). */
const ALWAYS: Condition = { kind: "always", holds: true };

/** Every condition at once: a single one as itself. */
function allOf(branches: Condition[]): Condition {
  if (branches.length === 0) return ALWAYS;
  return branches.length === 1 ? branches[0]! : { kind: "allOf", branches };
}

/** Each of a list of subschemas parsed, or null when one of them is not supported. */
function parseAll(schemas: readonly unknown[]): Condition[] | null {
  const parsed: Condition[] = [];
  for (const schema of schemas) {
    const condition = parseCondition(schema);
    if (condition === null) return null;
    parsed.push(condition);
  }
  return parsed;
}

/** One keyword of a condition, or null when it is not supported. */
function parseKeyword(keyword: string, value: unknown): Condition | null {
  switch (keyword) {
    case "const":
      return { kind: "equal", values: [value] };
    case "enum":
      return Array.isArray(value) && value.length > 0 ? { kind: "equal", values: value } : null;
    case "type": {
      const names: unknown[] | null = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
      if (names === null || names.length === 0 || !names.every((name) => typeof name === "string" && TYPE_NAMES.has(name))) return null;
      return { kind: "type", names: names as TypeName[] };
    }
    case "required":
      if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) return null;
      return value.length === 0 ? ALWAYS : { kind: "required", names: value as string[] };
    case "pattern":
      return typeof value === "string" ? { kind: "pattern", source: value } : null;
    case "not": {
      const inner = parseCondition(value);
      return inner && { kind: "not", inner };
    }
    case "items":
    case "contains": {
      const inner = parseCondition(value);
      return inner && { kind: keyword, inner };
    }
    case "properties": {
      if (!isObject(value)) return null;
      const names = Object.keys(value);
      const conditions = parseAll(names.map((name) => value[name]));
      if (conditions === null) return null;
      return names.length === 0 ? ALWAYS : { kind: "properties", members: names.map((name, i) => [name, conditions[i]!] as const) };
    }
    case "allOf":
    case "anyOf": {
      if (!Array.isArray(value) || value.length === 0) return null;
      const branches = parseAll(value);
      return branches && { kind: keyword, branches };
    }
    default:
      return null;
  }
}

/** A condition subschema parsed, or null when it uses a keyword not supported here. */
export function parseCondition(schema: unknown): Condition | null {
  if (typeof schema === "boolean") return { kind: "always", holds: schema };
  if (!isObject(schema)) return null;
  const checks: Condition[] = [];
  for (const [keyword, value] of Object.entries(schema as JsonObject)) {
    if (ANNOTATIONS.has(keyword)) continue; // no effect: no check
    const check = parseKeyword(keyword, value);
    if (check === null) return null;
    checks.push(check);
  }
  return allOf(checks);
}
