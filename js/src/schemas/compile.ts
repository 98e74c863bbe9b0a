/**
 * Ajv validators of schema trees (schemas.ts inlines each kind's schema into one tree), compiled at run time or
 * written out as code at build time (scripts/prebuild.mjs → prebuilt.ts).
 *
 * Ajv is loaded on first use, with `require`: a document whose kind has prebuilt validators and no error never
 * loads it (most of a small document's start-up was Ajv loading and compiling). Only its types are imported.
 */

import { createRequire } from "node:module";
import type * as AjvModule from "ajv/dist/2020.js";
import type { Ajv2020, CodeOptions, KeywordCxt, ValidateFunction } from "ajv/dist/2020.js";
import { parseCondition, type Condition } from "./conditions.js";
import { conditionCode, everyNameCode, knownNamesCode } from "./conditionCode.js";
import { FORMATS } from "./formats.js";
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUED } from "./applicators.js";
import { has, isObject, type JsonObject } from "../core/json.js";
import { ROW_ANNOTATION_KEYWORDS } from "../generated/constants.js";

const require = createRequire(import.meta.url);
let ajvModule: typeof AjvModule | undefined;

/** Ajv's module (its 2020-12 class and code generation helpers), loaded the first time a validator is compiled. */
function ajv(): typeof AjvModule {
  return (ajvModule ??= require("ajv/dist/2020.js") as typeof AjvModule);
}

/**
 * Keyword replacing `if`/`then`/`else` in the fast tree: its value is `{ if, then?, else? }`, and the condition
 * is plain code that allocates nothing (see conditions.ts for why).
 */
const PLAIN_IF = "x-plain-if";

/**
 * Keyword replacing `propertyNames` in the fast tree when `parseCondition` supports its subschema: every key
 * of an object is checked by plain code. Ajv's `anyOf` / `not` under `propertyNames` allocate an error
 * object (and an instance path string) per failing branch even when the name is accepted: a result set's
 * metadata keys made that most of the fast validator's garbage.
 */
const PLAIN_NAMES = "x-plain-names";

/**
 * Keyword replacing `additionalProperties: false` in the fast tree: its value is `{ names, patterns }`, the sibling
 * `properties`' names and `patternProperties`' patterns, and every key of an object must be one of the names or match
 * one of the patterns. Ajv checks the names of an object with more than 8 properties by `hasOwnProperty` on the schema:
 * a result set's rows have 10, and that lookup cost about 0.13 µs a row; comparisons with the names, about 0.03.
 */
const PLAIN_CLOSED = "x-plain-closed";

/** This specification's annotations, and the type of their values: they carry meaning for the mapping to findings
 * and for the rules, none for validation. */
const SPEC_ANNOTATIONS = [
  ["x-rule", "string"],
  ["x-deprecation", "object"],
  ["x-compatibility", "object"],
  ["x-unique", "array"],
  ["x-references", "array"],
] as const;

/** Keywords the fast tree leaves out: they never change whether a document is valid (and the prebuilt code carries
 * the tree's values as constants). */
const LEFT_OUT: ReadonlySet<string> = new Set([...ROW_ANNOTATION_KEYWORDS, ...SPEC_ANNOTATIONS.map(([keyword]) => keyword)]);

/**
 * The tree the fast validator is compiled from: `tree` with every `if` whose condition `parseCondition`
 * supports turned into PLAIN_IF (and such a `propertyNames` into PLAIN_NAMES), `additionalProperties: false` into
 * PLAIN_CLOSED, and without annotations (LEFT_OUT). It accepts exactly the documents `tree` accepts; it only
 * allocates and looks up less.
 */
export function fastTree(node: unknown, done = new WeakMap<object, unknown>()): unknown {
  if (Array.isArray(node)) return node.map((sub) => fastTree(sub, done));
  if (!isObject(node)) return node;
  const known = done.get(node);
  if (known !== undefined) return known;
  const plain = has(node, "if") && parseCondition(node["if"]) !== null;
  const out: JsonObject = {};
  const condition: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (LEFT_OUT.has(key)) continue;
    if (key === "propertyNames" && parseCondition(value) !== null) {
      out[PLAIN_NAMES] = value;
      continue;
    }
    if (key === "additionalProperties" && value === false) {
      const closed = closedNames(node);
      if (closed !== null) {
        out[PLAIN_CLOSED] = closed;
        continue;
      }
    }
    let copy = value;
    if (SCHEMA_VALUED.has(key) || SCHEMA_LISTS.has(key)) copy = fastTree(value, done);
    else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      copy = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, fastTree(sub, done)]));
    }
    if (plain && (key === "if" || key === "then" || key === "else")) condition[key] = copy;
    else out[key] = copy;
  }
  if (plain) out[PLAIN_IF] = condition;
  done.set(node, out);
  return out;
}

/**
 * The names and patterns of a schema with `additionalProperties: false` (PLAIN_CLOSED), or null to leave Ajv's keyword:
 * a property named `__proto__`, which Ajv counts in one of its two ways of checking names and not in the other.
 */
function closedNames(node: JsonObject): { names: string[]; patterns: string[] } | null {
  const [properties, patterns] = [node["properties"], node["patternProperties"]];
  const names = isObject(properties) ? Object.keys(properties) : [];
  if (names.includes("__proto__")) return null;
  return { names, patterns: isObject(patterns) ? Object.keys(patterns) : [] };
}

/** A fast tree's condition, parsed: `fastTree` only writes the keyword where it parses. */
function supported(keyword: string, schema: unknown): Condition {
  const condition = parseCondition(schema);
  if (condition === null) throw new Error(`${keyword}: unsupported condition`);
  return condition;
}

/**
 * An Ajv instance for this specification's trees. `source`: keep each validator's code, for `prebuiltSource`; the
 * formats generated code refers to are then the parameter `formats` of a prebuilt file's function.
 */
function newAjv(allErrors: boolean, source = false): Ajv2020 {
  const { Ajv2020, _ } = ajv();
  const code: CodeOptions = source ? { source: true, formats: _`formats` } : {};
  const instance = new Ajv2020({
    allErrors,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateFormats: true,
    loadSchema: undefined,
    code,
  });
  for (const [keyword, schemaType] of SPEC_ANNOTATIONS) instance.addKeyword({ keyword, schemaType });
  instance.addKeyword({
    keyword: PLAIN_IF,
    schemaType: "object",
    // generated code, as Ajv's own `if`: a `compile`d keyword would get a fresh context object per call
    code(cxt: KeywordCxt): void {
      const { gen, data, schema } = cxt;
      const holds = conditionCode(cxt, supported(PLAIN_IF, schema["if"]), data);
      const valid = gen.let("valid", true);
      const clauseValid = gen.name("_valid");
      const clause = (name: "then" | "else") => (): void => {
        if (!has(schema, name)) return;
        cxt.subschema({ keyword: PLAIN_IF, schemaProp: name }, clauseValid);
        gen.assign(valid, clauseValid);
      };
      gen.if(holds, clause("then"), clause("else"));
      cxt.pass(valid);
    },
  });
  instance.addKeyword({
    keyword: PLAIN_NAMES,
    type: "object",
    schemaType: ["object", "boolean"],
    code(cxt: KeywordCxt): void {
      const { data, schema } = cxt;
      cxt.pass(everyNameCode(cxt, supported(PLAIN_NAMES, schema), data));
    },
  });
  instance.addKeyword({
    keyword: PLAIN_CLOSED,
    type: "object",
    schemaType: "object",
    code(cxt: KeywordCxt): void {
      const { data, schema, it } = cxt;
      it.props = true; // as `additionalProperties`: every property of the object counts as evaluated
      cxt.pass(knownNamesCode(cxt, schema["names"] as string[], schema["patterns"] as string[], data));
    },
  });
  const addFormats = require("ajv-formats") as (a: Ajv2020, o: { mode: "full" }) => Ajv2020;
  addFormats(instance, { mode: "full" });
  for (const [name, format] of Object.entries(FORMATS)) instance.addFormat(name, format);
  return instance;
}

/**
 * Two Ajv instances, as the Python SDK's `is_valid` then `iter_errors`: most documents are valid, and for them
 * one pass that stops at the first error, over the allocation-light fast tree, is all the schema path costs.
 */
let fastAjv: Ajv2020 | undefined;
let allErrorsAjv: Ajv2020 | undefined;

/** The validator that stops at the first error, of a fast tree (`fastTree`). */
export function compileFast(fast: unknown): (value: unknown) => boolean {
  return (fastAjv ??= newAjv(false)).compile(fast as JsonObject);
}

/** The validator reporting every error, of an inlined tree. */
export function compileAllErrors(tree: unknown): ValidateFunction {
  return (allErrorsAjv ??= newAjv(true)).compile(tree as JsonObject);
}

/** The formats a tree names (`format` keywords), to know what generated code will look up. */
function formatsNamed(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const sub of node) formatsNamed(sub, found);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "format" && typeof value === "string") found.add(value);
      else if (SCHEMA_VALUED.has(key) || SCHEMA_LISTS.has(key) || key === PLAIN_IF) formatsNamed(value, found);
      else if (SCHEMA_MAPS.has(key) && isObject(value)) formatsNamed(Object.values(value), found);
    }
  }
  return found;
}

/**
 * The source of one prebuilt file (see prebuilt.ts): a CommonJS module exporting a function of `formats` that
 * returns the fast validator of each named fast tree. Ajv writes
 * the code (its `standalone` output); its run-time helpers are `require`d from the installed Ajv.
 */
export function prebuiltSource(fastTrees: ReadonlyMap<string, unknown>): string {
  const instance = newAjv(false, true);
  const exported: Record<string, string> = {};
  const names: string[] = [];
  const formats = new Set<string>();
  for (const [name, fast] of fastTrees) {
    const id = `prebuilt:${names.length}`;
    instance.addSchema(fast as JsonObject, id);
    exported[`prebuilt${names.length}`] = id;
    names.push(name);
    formatsNamed(fast, formats);
  }
  const standalone = (require("ajv/dist/standalone") as { default: (a: Ajv2020, refs: Record<string, string>) => string }).default;
  const code = standalone(instance, exported).replace(/^"use strict";/, "");
  const table = names.map((name, i) => `    ${JSON.stringify(name)}: exports.prebuilt${i},`).join("\n");
  return [
    "// Generated by scripts/prebuild.mjs at build time (Ajv's standalone code); do not edit. See prebuilt.ts.",
    '"use strict";',
    "module.exports = function validators(formats) {",
    "  const exports = {};",
    // a format this specification does not define itself is ajv-formats' (as newAjv registers them)
    ...([...formats].every((name) => has(FORMATS, name)) ? [] : ['  formats = { ...require("ajv-formats/dist/formats").fullFormats, ...formats };']),
    code,
    "  return {",
    table,
    "  };",
    "};",
    "",
  ].join("\n");
}
