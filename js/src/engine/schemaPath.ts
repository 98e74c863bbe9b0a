/**
 * The schema path: Ajv over the bundled schemas, errors mapped to ledger codes (mirrors Python's schema path, `SchemaOutcome`).
 *
 * Mapping (spec/conformance/README.md, "Pointer conventions"):
 * - an error inside a subschema annotated `x-rule` gets that rule's code;
 * - otherwise the failing keyword decides (`type` → TYPE_MISMATCH, `required` → REQUIRED_FIELD, …);
 * - a failed `oneOf`/`anyOf` is explained by the one alternative that accepts the value's JSON type, if
 *   exactly one does, and is a single SCHEMA_MISMATCH otherwise.
 * Ajv reports the errors of a failed `oneOf`/`anyOf`'s alternatives next to the `oneOf`/`anyOf` error itself;
 * they are regrouped under it here (python-jsonschema's `context`). Ajv's `if` errors ("must match then
 * schema") are dropped: the `then` errors they summarize are reported on their own.
 */

import type { ErrorObject } from "ajv";
import * as codes from "../generated/rules.js";
import { ROWS_STAND_ALONE } from "../generated/_rows.js";
import { escapeToken, finding, tokens, type Finding } from "../core/findings.js";
import { has, isObject, jsonType } from "../core/json.js";
import { render } from "../core/messages.js";
import { compiledKind, compiledProperty, computedRowsStandAlone, pinnedVersion, resolveRef, schemaLocation, type Kind } from "../schemas/schemas.js";

import { FORMAT_PROBLEMS, KEYWORD_CODES } from "../generated/constants.js";
import { formatProblem } from "../schemas/formats.js";
export { KEYWORD_CODES };
/** The failing keyword → its rule (spec/constants.json), indexable by any keyword. */
const keywordCodes: Readonly<Record<string, string>> = KEYWORD_CODES;

/** A deprecated property present in a document, with where its schema says so (`<file>#<JSON Pointer>`, the key of the generated `DEPRECATIONS`). */
export interface DeprecatedUse {
  pointer: string;
  name: string;
  value: unknown;
  location: string;
}

export interface SchemaOutcome {
  findings: Finding[];
  deprecated: DeprecatedUse[];
}

/** Whether a (resolved) subschema's `type` keyword admits a JSON type; no `type` admits all. */
export function acceptsType(schema: unknown, valueType: string): boolean {
  if (!isObject(schema) || !has(schema, "type")) return schema !== false;
  const declared = schema["type"];
  const allowed = new Set<unknown>(typeof declared === "string" ? [declared] : Array.isArray(declared) ? declared : []);
  if (allowed.has("integer")) allowed.add("number");
  return allowed.has(valueType);
}

interface Node {
  error: ErrorObject;
  path: string[];
  children: Node[];
}

function schemaTokens(schemaPath: string): string[] {
  const hash = schemaPath.indexOf("#");
  const fragment = hash < 0 ? schemaPath : schemaPath.slice(hash + 1);
  if (fragment === "" || fragment === "/") return [];
  return fragment
    .slice(1)
    .split("/")
    .map((t) => {
      let text = t;
      try {
        text = decodeURIComponent(t);
      } catch {
        /* keep as is */
      }
      return text.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

/** Every subschema visited along `path` (the root first). */
function* subschemas(tree: unknown, path: readonly string[]): Generator<unknown> {
  let node = tree;
  yield node;
  for (const step of path) {
    if (Array.isArray(node)) {
      const index = Number(step);
      if (!/^\d+$/.test(step) || index >= node.length) return;
      node = node[index];
    } else if (isObject(node) && has(node, step)) node = node[step];
    else return;
    yield node;
  }
}

function nodeAt(tree: unknown, path: readonly string[]): unknown {
  let last: unknown;
  let count = 0;
  for (const node of subschemas(tree, path)) {
    last = node;
    count++;
  }
  return count === path.length + 1 ? last : undefined;
}

/** The innermost `x-rule` on the way to the failing keyword, if any. */
function ruleOf(tree: unknown, path: readonly string[]): string | undefined {
  let rule: string | undefined;
  for (const node of subschemas(tree, path)) {
    if (isObject(node) && typeof node["x-rule"] === "string") rule = node["x-rule"];
  }
  return rule;
}

function valueAt(document: unknown, instancePath: string, skip = 0): unknown {
  let node = document;
  for (const token of tokens(instancePath).slice(skip)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length < path.length && prefix.every((t, i) => path[i] === t);
}

function within(instancePath: string, parent: string): boolean {
  return instancePath === parent || instancePath.startsWith(parent + "/");
}

/** Regroup Ajv's flat error list into python-jsonschema's shape: top-level errors, with a failed oneOf/anyOf's alternatives' errors as its children. */
function regroup(errors: readonly ErrorObject[]): Node[] {
  const nodes: Node[] = errors
    .filter((e) => e.keyword !== "if")
    .map((error) => ({ error, path: schemaTokens(error.schemaPath), children: [] }));
  const wrappers = nodes.filter((n) => n.error.keyword === "oneOf" || n.error.keyword === "anyOf");
  const top: Node[] = [];
  for (const node of nodes) {
    let parent: Node | undefined;
    for (const wrapper of wrappers) {
      if (wrapper === node) continue;
      if (!startsWith(node.path, wrapper.path) || !within(node.error.instancePath, wrapper.error.instancePath)) continue;
      if (!parent || wrapper.path.length > parent.path.length) parent = wrapper;
    }
    (parent ? parent.children : top).push(node);
  }
  return top;
}

/** The property names a closed object's subschema declares (its `properties`, through inlined `$ref`s and
 * `allOf`), for suggestions: `path` is the schema path of its `additionalProperties` keyword. */
function declaredNames(tree: unknown, path: readonly string[]): string[] {
  const names: string[] = [];
  const stack: unknown[] = [resolveRef(nodeAt(tree, path.slice(0, -1)))];
  for (let budget = 64; budget > 0 && stack.length > 0; budget--) {
    const node = stack.pop();
    if (!isObject(node)) continue;
    if (isObject(node["properties"])) names.push(...Object.keys(node["properties"]));
    if (Array.isArray(node["allOf"])) stack.push(...node["allOf"].map((branch) => resolveRef(branch)));
  }
  return names;
}

/** The message variant and parameters of a failed `keyword` whose schema value is `declared`: every parameter the
 * keyword's rule template may use (Python's `keyword_params`). */
export function keywordParams(keyword: string, instance: unknown, declared: unknown, node?: unknown): [string, Record<string, unknown>] {
  const params: Record<string, unknown> = { value: instance, keyword, limit: declared, expected: declared };
  // a bound beside its other one names the scale (a score: 0 to 1); a date or date-time says which part is wrong
  if ((keyword === "minimum" || keyword === "maximum") && isObject(node)) {
    const lower = node["minimum"];
    const upper = node["maximum"];
    if (typeof lower === "number" && typeof upper === "number") return ["scale", { ...params, lower, upper }];
  }
  if (keyword === "format") {
    const reason = formatProblem(String(declared), instance);
    if (reason !== null) return ["because", { ...params, format: String(declared), reason: (FORMAT_PROBLEMS as Readonly<Record<string, string>>)[reason] }];
  }
  if (keyword === "type") params["type"] = Array.isArray(declared) ? declared.map(String).join(" or ") : String(declared);
  else if (keyword === "pattern") params["pattern"] = declared;
  else if (keyword === "format") params["format"] = String(declared);
  else if (keyword === "enum") params["allowed"] = Array.isArray(declared) ? declared : [declared];
  else if (keyword === "propertyNames") params["name"] = instance;
  return [keyword === "const" ? "const" : "default", params];
}

/** (pointer, message) of the finding a failed keyword makes, the message its own rule's (Python's `_keyword_findings`). */
function keywordMessage(error: ErrorObject, value: unknown, path: readonly string[], tree: unknown): [string, string] {
  const keyword = error.keyword;
  const params = error.params as Record<string, unknown>;
  if (keyword === "required" || keyword === "dependentRequired") {
    const name = String(params["missingProperty"]);
    return [`${error.instancePath}/${escapeToken(name)}`, render(codes.REQUIRED_FIELD, { name })];
  }
  if (keyword === "additionalProperties") {
    const name = String(params["additionalProperty"]);
    return [`${error.instancePath}/${escapeToken(name)}`, render(codes.UNKNOWN_FIELD, { name, declared: declaredNames(tree, path) })];
  }
  const parent = keyword === "minimum" || keyword === "maximum" ? nodeAt(tree, path.slice(0, -1)) : undefined;
  const [variant, given] = keywordParams(keyword, value, nodeAt(tree, path), parent);
  return [error.instancePath, render(keywordCodes[keyword] ?? codes.SCHEMA_MISMATCH, given, variant)];
}

/** The value at an instance path of the document being validated. */
type Lookup = (instancePath: string) => unknown;

function mapError(node: Node, lookup: Lookup, tree: unknown, ruleMessages: Readonly<Record<string, string>>): Finding[] {
  const { error, path } = node;
  const rule = ruleOf(tree, path);
  if (rule !== undefined) {
    const statement = ruleMessages[rule] ?? rule;
    const value = lookup(error.instancePath);
    if (error.keyword === "required" || error.keyword === "dependentRequired" || error.keyword === "additionalProperties") {
      const [where, reason] = keywordMessage(error, value, path, tree);
      return [finding(where, rule, "error", render(rule, { statement, reason }, "because"))];
    }
    // "false was expected" adds nothing to the rule's own sentence, and a whole object is no help; under
    // propertyNames one engine gives the name and another the object: the rule's sentence says it all
    if (error.keyword === "const" || (value !== null && typeof value === "object") || path.includes("propertyNames")) return [finding(error.instancePath, rule, "error", render(rule, { statement }))];
    return [finding(error.instancePath, rule, "error", render(rule, { statement, value }, "got"))];
  }
  if (error.keyword === "oneOf" || error.keyword === "anyOf") {
    const branches = nodeAt(tree, path);
    if (Array.isArray(branches)) {
      const valueType = jsonType(lookup(error.instancePath));
      const accepting = branches.map((b, i) => (acceptsType(resolveRef(b), valueType) ? i : -1)).filter((i) => i >= 0);
      if (accepting.length === 1) {
        const index = String(accepting[0]);
        const inner = node.children.filter((child) => child.path[path.length] === index);
        const mapped = inner.flatMap((child) => mapError(child, lookup, tree, ruleMessages));
        if (mapped.length > 0) return mapped;
      }
    }
  }
  const excluded = error.keyword === "not" ? excludedPattern(nodeAt(tree, path)) : undefined;
  if (excluded !== undefined) {
    const message = render(codes.PATTERN_MISMATCH, { value: lookup(error.instancePath), pattern: excluded }, "excluded");
    return [finding(error.instancePath, codes.PATTERN_MISMATCH, "error", message)];
  }
  const [where, message] = keywordMessage(error, lookup(error.instancePath), path, tree);
  return [finding(where, keywordCodes[error.keyword] ?? codes.SCHEMA_MISMATCH, "error", message)];
}

/**
 * The pattern of a `not: {pattern: …}`: how the schemas say "only these characters" in a way every
 * regular-expression dialect reads alike (SPEC §3.1), so a pattern failure like any other (Python's `_excluded_pattern`).
 */
function excludedPattern(node: unknown): string | undefined {
  if (!isObject(node)) return undefined;
  const keys = Object.keys(node);
  return keys.length === 1 && typeof node["pattern"] === "string" ? node["pattern"] : undefined;
}

/** Deprecated properties present in the document, found by walking the schema's `properties`. */
export function findDeprecated(document: unknown, tree: unknown): DeprecatedUse[] {
  const found: DeprecatedUse[] = [];
  walkDeprecated(document, tree, [], found, 0);
  const byPointer = new Map<string, DeprecatedUse>();
  for (const use of found) byPointer.set(use.pointer, use);
  return [...byPointer.values()];
}

/** Subschema → whether the deprecation walk can reach a `deprecated: true` subschema from it. */
const leadsToDeprecated = new WeakMap<object, boolean>();

/**
 * Whether a deprecated subschema is reachable from `schema` along the keywords the walk follows. Computed once
 * per subschema (the trees are compiled once), it lets the walk skip every part of a document whose schema
 * holds no deprecation: for most kinds that is the whole document (Python's `_has_deprecations`).
 */
function reachesDeprecated(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const known = leadsToDeprecated.get(schema);
  if (known !== undefined) return known;
  leadsToDeprecated.set(schema, false); // the inlined trees are not recursive; this only guards against a cycle
  const children: unknown[] = [schema["additionalProperties"], schema["items"]];
  for (const keyword of ["allOf", "oneOf", "anyOf"] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) for (const item of branches) children.push(item);
  }
  if (isObject(schema["properties"])) for (const item of Object.values(schema["properties"])) children.push(item);
  const reaches = schema["deprecated"] === true || children.some(reachesDeprecated);
  leadsToDeprecated.set(schema, reaches);
  return reaches;
}

export function walkDeprecated(value: unknown, schema: unknown, where: string[], found: DeprecatedUse[], depth: number): void {
  if (depth > 64 || !reachesDeprecated(schema) || !isObject(schema)) return;
  if (schema["deprecated"] === true && where.length > 0) {
    found.push({ pointer: where.map((t) => "/" + escapeToken(t)).join(""), name: where[where.length - 1]!, value, location: schemaLocation(schema) });
  }
  for (const keyword of ["allOf", "oneOf", "anyOf"] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (keyword === "allOf" || acceptsType(resolveRef(branch), jsonType(value))) {
        walkDeprecated(value, branch, where, found, depth + 1);
      }
    }
  }
  if (isObject(value)) {
    const properties = isObject(schema["properties"]) ? schema["properties"] : {};
    const extra = schema["additionalProperties"];
    for (const [key, item] of Object.entries(value)) {
      if (has(properties, key)) walkDeprecated(item, properties[key], [...where, key], found, depth + 1);
      else if (isObject(extra)) walkDeprecated(item, extra, [...where, key], found, depth + 1);
    }
  } else if (Array.isArray(value) && isObject(schema["items"])) {
    value.forEach((item, index) => walkDeprecated(item, schema["items"], [...where, String(index)], found, depth + 1));
  }
}

/** Validate `document` as `kind` against the schema alone. */
export function check(document: unknown, kind: Kind, ruleMessages: Readonly<Record<string, string>>): SchemaOutcome {
  const { tree, isValid, allErrors } = compiledKind(kind);
  const findings: Finding[] = [];
  if (!isValid(document)) {
    const validate = allErrors();
    validate(document);
    const lookup = (instancePath: string): unknown => valueAt(document, instancePath);
    for (const node of regroup(validate.errors ?? [])) for (const item of mapError(node, lookup, tree, ruleMessages)) findings.push(item);
  }
  return { findings, deprecated: findDeprecated(document, tree) };
}

/**
 * An error found by validating a batch of array items against the array's subschema, as if the whole document
 * had been validated: schema path from the kind's root, instance path from the document's.
 */
function relocated(error: ErrorObject, array: string, start: number): ErrorObject {
  const path = error.instancePath;
  const slash = path.indexOf("/", 1);
  const item = Number(slash < 0 ? path.slice(1) : path.slice(1, slash));
  const rest = slash < 0 ? "" : path.slice(slash);
  const hash = error.schemaPath.indexOf("#");
  return {
    ...error,
    instancePath: `/${escapeToken(array)}/${start + item}${rest}`,
    schemaPath: `#/properties/${escapeToken(array)}${error.schemaPath.slice(hash + 1)}`,
  };
}

/**
 * Validate `rows`, the items `start`, `start + 1`, … of the root array property `array`, exactly as validating
 * the whole document reports them: same codes, pointers, messages and deprecations (mirrors Python's
 * `check_rows`). Only sound when the array's subschema judges each item on its own: `rowsStandAlone` says so.
 */
export function checkRows(
  rows: readonly unknown[],
  start: number,
  kind: Kind,
  array: string,
  ruleMessages: Readonly<Record<string, string>>,
): SchemaOutcome {
  const { tree } = compiledKind(kind);
  const part = compiledProperty(kind, array);
  const findings: Finding[] = [];
  if (!part.isValid(rows)) {
    const validate = part.allErrors();
    validate(rows);
    const errors = (validate.errors ?? []).map((error) => relocated(error, array, start));
    const lookup = (instancePath: string): unknown => {
      const [, index] = tokens(instancePath);
      return valueAt(rows[Number(index) - start], instancePath, 2);
    };
    for (const node of regroup(errors)) for (const item of mapError(node, lookup, tree, ruleMessages)) findings.push(item);
  }
  const deprecated: DeprecatedUse[] = [];
  const items = isObject(part.schema) ? part.schema["items"] : undefined;
  if (isObject(items) && reachesDeprecated(items)) {
    const found: DeprecatedUse[] = [];
    // the whole document's walk reaches an item at depth 2: the root, the array, the item
    rows.forEach((row, i) => walkDeprecated(row, items, [array, String(start + i)], found, 2));
    const byPointer = new Map<string, DeprecatedUse>();
    for (const use of found) byPointer.set(use.pointer, use);
    for (const item of byPointer.values()) deprecated.push(item);
  }
  return { findings, deprecated };
}

/**
 * Whether each item of the root array property `array` can be validated on its own, so that validating items in
 * batches gives exactly the findings of the whole document: codegen decides it from the schemas
 * (`generated/_rows.ts`, codegen's `rows_stand_alone`).
 */
export function rowsStandAlone(kind: Kind, array: string): boolean {
  return pinnedVersion() === null ? (ROWS_STAND_ALONE[`${kind}.json`]?.[array] ?? false) : computedRowsStandAlone(kind, array);
}
