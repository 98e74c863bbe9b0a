/**
 * The rules JSON Schema cannot express (the ledger marks them `code`), for one document at a time
 * (mirrors Python's document rules).
 *
 * Every function takes a document that may be schema-invalid: it checks the types it relies on and skips what
 * it cannot read, so it never throws on bad input.
 */

import * as codes from "../generated/rules.js";
import { MIGRATION_KEY } from "../generated/constants.js";
import { finding, pointer, type Finding } from "../core/findings.js";
import { get, has, isObject, objects, type JsonObject } from "../core/json.js";
import { render, suggest } from "../core/messages.js";
import { current } from "../schemas/schemas.js";

type Where = readonly (string | number)[];

/** Whether a pattern is a valid ECMA-262 regular expression with the unicode flag (JSON Schema's dialect). */
const MODIFIERS = /\(\?[imsx]*-?[imsx]*:/y;

/**
 * ECMA-262 syntax newer than the dialect (ES2024 with the unicode flag), which one engine accepts and another
 * refuses: duplicate named groups (even in different alternatives) and inline modifier groups `(?i:…)`. The same
 * scan as Python's `newer_syntax`.
 */
export function newerSyntax(source: string): [string, string] | null {
  const names = new Set<string>();
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (inClass) inClass = ch !== "]";
    else if (ch === "[") inClass = true;
    else if (ch === "(" && source.startsWith("(?", i)) {
      if (source.startsWith("(?<", i) && !source.startsWith("(?<=", i) && !source.startsWith("(?<!", i)) {
        const end = source.indexOf(">", i + 3);
        const name = end > 0 ? source.slice(i + 3, end) : "";
        if (names.has(name)) return ["duplicate_group", name];
        names.add(name);
      } else {
        MODIFIERS.lastIndex = i;
        const match = MODIFIERS.exec(source);
        if (match !== null && match[0] !== "(?:") return ["modifier", ""];
      }
    }
  }
  return null;
}

/** Why `source` is not a regular expression of the dialect (a message variant of INVALID_REGEX and its `name`), or null. */
export function regexError(source: string): [string, string] | null {
  const newer = newerSyntax(source);
  if (newer !== null) return newer;
  try {
    new RegExp(source, "u");
    return null;
  } catch {
    // the engine's own words differ from engine to engine: the message names the dialect, not the engine's reason
    return ["default", ""];
  }
}

function regexFinding(where: Where, source: unknown): Finding | null {
  if (typeof source !== "string") return null;
  const problem = regexError(source);
  if (problem === null) return null;
  const [variant, name] = problem;
  return finding(pointer(...where), codes.INVALID_REGEX, "error", render(codes.INVALID_REGEX, { value: source, name }, variant));
}

let declared: Map<string, string[]> | undefined;

/** Each well-known grader type's parameter names, read from the grader schema: the per-type branches of its
 * GRADER_PARAMS_INVALID subschema (`if` type is X `then` params has these properties). Mirrors Python. */
export function declaredParams(): Map<string, string[]> {
  if (declared) return declared;
  declared = new Map();
  const root = current().files.get("grader.json");
  const rules = isObject(root) && Array.isArray(root["allOf"]) ? root["allOf"] : [];
  for (const rule of rules) {
    if (!isObject(rule) || rule["x-rule"] !== codes.GRADER_PARAMS_INVALID || !Array.isArray(rule["allOf"])) continue;
    for (const branch of rule["allOf"]) {
      const at = (node: unknown, ...keys: string[]): unknown => keys.reduce((n, k) => (isObject(n) ? n[k] : undefined), node);
      const kind = at(branch, "if", "properties", "type");
      const names = at(branch, "then", "properties", "params", "properties");
      const types = isObject(kind) ? (has(kind, "const") ? [kind["const"]] : Array.isArray(kind["enum"]) ? kind["enum"] : []) : [];
      for (const type of types) if (typeof type === "string") declared.set(type, isObject(names) ? Object.keys(names) : []);
    }
  }
  return declared;
}

let wellKnown: string[] | undefined;

/** The well-known grader types, read from the grader schema: those CUSTOM_GRADER_HANDLER's condition leaves out
 * (`if` type is not one of these `then` params.handler is required). Mirrors Python's `well_known_types`. */
export function wellKnownTypes(): string[] {
  if (wellKnown) return wellKnown;
  const root = current().files.get("grader.json");
  const rules = isObject(root) && Array.isArray(root["allOf"]) ? root["allOf"] : [];
  const at = (node: unknown, ...keys: string[]): unknown => keys.reduce((n, k) => (isObject(n) ? n[k] : undefined), node);
  const rule = rules.find((r) => isObject(r) && r["x-rule"] === codes.CUSTOM_GRADER_HANDLER);
  const types = at(rule, "if", "properties", "type", "not", "enum");
  wellKnown = Array.isArray(types) ? types.filter((t): t is string => typeof t === "string") : [];
  return wellKnown;
}

/** GRADER_TYPE_NEAR_MISS: a type that is no well-known one but close to one (`exact-match`) is a typo more often
 * than a custom grader; it is said even when the grader names a handler (then no other rule fires). */
function* nearMiss(kind: unknown, where: Where): Generator<Finding> {
  const known = wellKnownTypes();
  if (typeof kind === "string" && !known.includes(kind) && suggest(kind, known) !== "") {
    const message = render(codes.GRADER_TYPE_NEAR_MISS, { value: kind, allowed: known });
    yield finding(pointer(...where, "type"), codes.GRADER_TYPE_NEAR_MISS, "warning", message);
  }
}

/** The checks of one grader object a schema cannot make: its regex compiles, and a well-known type's params carry
 * only the names its schema declares (UNKNOWN_GRADER_PARAM, a warning until the schema closes them). */
function* graderRegex(grader: JsonObject, where: Where): Generator<Finding> {
  const params = get(grader, "params");
  if (get(grader, "type") === "regex" && isObject(params)) {
    const f = regexFinding([...where, "params", "pattern"], get(params, "pattern"));
    if (f) yield f;
  }
  const kind = get(grader, "type");
  yield* nearMiss(kind, where);
  const names = typeof kind === "string" ? declaredParams().get(kind) : undefined;
  if (names !== undefined && isObject(params)) {
    for (const name of Object.keys(params)) {
      if (names.includes(name)) continue;
      const message = render(codes.UNKNOWN_GRADER_PARAM, { name, value: kind, declared: names });
      yield finding(pointer(...where, "params", name), codes.UNKNOWN_GRADER_PARAM, "warning", message);
    }
  }
}

export function* graderRules(document: JsonObject): Generator<Finding> {
  yield* graderRegex(document, []);
}

export function* testcaseRules(document: JsonObject, where: Where = []): Generator<Finding> {
  for (const [index, grader] of objects(get(document, "graders"))) yield* graderRegex(grader, [...where, "graders", index]);
}

export function* suiteRules(document: JsonObject): Generator<Finding> {
  const graders = [...objects(get(document, "graders"))];
  const cases = [...objects(get(document, "test_cases"))];
  for (const [index, grader] of graders) yield* graderRegex(grader, ["graders", index]);
  for (const [caseIndex, testCase] of cases) {
    yield* testcaseRules(testCase, ["test_cases", caseIndex]);
  }
}

function invalidating(violations: readonly unknown[]): boolean {
  for (const v of violations) if (isObject(v) && get(v, "invalidates_result") === true) return true;
  return false;
}

/** The rules on a result set's own fields (everything but its rows). */
export function* resultsetDocumentRules(document: JsonObject): Generator<Finding> {
  const group = get(document, "group");
  if (isObject(group) && typeof get(group, "group_id") === "string" && get(group, "parent_group_id") === get(group, "group_id")) {
    yield finding(pointer("group", "parent_group_id"), codes.SELF_PARENT, "error", render(codes.SELF_PARENT, { value: get(group, "group_id") }));
  }
}

/**
 * The hand-written row rule of a result set (ERROR_WITH_INVALIDATING_VIOLATION), fed rows in order: a whole
 * document's, or batches as a stream reads them (mirrors Python's `ResultRows`). No state across rows; the rows'
 * uniqueness and reference rules are declared by the schema and checked by annotated.ts.
 */
export class ResultRows {
  /** Rows `results`, the first of which is row `start` of the document. */
  *check(results: readonly unknown[], start = 0): Generator<Finding> {
    for (let k = 0; k < results.length; k++) {
      const result: unknown = results[k];
      if (!isObject(result) || !has(result, "error")) continue; // the common case: nothing to check
      const violations = get(result, "constraint_violations");
      if (Array.isArray(violations) && invalidating(violations)) {
        yield finding(
          pointer("results", start + k, "error"),
          codes.ERROR_WITH_INVALIDATING_VIOLATION,
          "warning",
          render(codes.ERROR_WITH_INVALIDATING_VIOLATION),
        );
      }
    }
  }
}

export { MIGRATION_KEY } from "../generated/constants.js";

/** Evals whose placeholders `evalschema migrate` left for a person to decide (MIGRATION_PLACEHOLDER; mirrors Python). */
function* placeholders(document: JsonObject): Generator<Finding> {
  const places: [Where, unknown][] = [[["evals"], get(document, "evals")]];
  const prompts = get(document, "prompts");
  if (isObject(prompts)) {
    const names = Object.keys(prompts).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      const prompt = prompts[name];
      if (isObject(prompt)) places.push([["prompts", name, "evals"], get(prompt, "evals")]);
    }
  }
  for (const [where, evals] of places) {
    for (const [index, entry] of objects(evals)) {
      const extensions = get(entry, "extensions");
      if (!isObject(extensions) || !has(extensions, MIGRATION_KEY)) continue;
      const marker = extensions[MIGRATION_KEY];
      const decide = isObject(marker) ? get(marker, "decide") : undefined;
      const message =
        Array.isArray(decide) && decide.length > 0
          ? render(codes.MIGRATION_PLACEHOLDER, { names: decide, name: MIGRATION_KEY })
          : render(codes.MIGRATION_PLACEHOLDER, { name: MIGRATION_KEY }, "unspecified");
      yield finding(pointer(...where, index, "extensions", MIGRATION_KEY), codes.MIGRATION_PLACEHOLDER, "warning", message);
    }
  }
}

export function* packRules(document: JsonObject): Generator<Finding> {
  const prompts = get(document, "prompts");
  const validators: [Where, JsonObject][] = [];
  if (isObject(prompts)) {
    // JSON objects are unordered: visit prompts in a canonical order (UTF-16 code units) so "the later
    // duplicate" is the same in every implementation, whatever order the parser kept
    const ordered = Object.entries(prompts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, prompt] of ordered) {
      if (!isObject(prompt)) continue;
      const id = get(prompt, "id");
      if (typeof id === "string" && id !== name) {
        yield finding(
          pointer("prompts", name, "id"),
          codes.PROMPT_ID_MISMATCH,
          "error",
          render(codes.PROMPT_ID_MISMATCH, { value: id, name }),
        );
      }
      for (const [i, v] of objects(get(prompt, "validators"))) validators.push([["prompts", name, "validators", i], v]);
    }
  }
  yield* placeholders(document);
  for (const [where, validator] of validators) {
    const params = get(validator, "params");
    if (get(validator, "type") === "regex_match" && isObject(params)) {
      const f = regexFinding([...where, "params", "pattern"], get(params, "pattern"));
      if (f) yield f;
    }
  }
}
