/**
 * The bundled schemas, loaded offline from the package's `schemas/` folder, and the Ajv validators of each kind.
 *
 * Each kind's schema is compiled as one self-contained tree: every `$ref` is replaced by an extra `allOf`
 * branch holding the referenced subschema (our schemas are not recursive). Ajv then reports every error with
 * its schema path from the kind's root, which is what the mapping to ledger codes needs: the innermost
 * `x-rule` on the way to the failing keyword, across `$ref`s, exactly like the Python SDK's walker.
 * Nothing is fetched: a reference that is not to a bundled schema is an error when the schemas load.
 *
 * Each kind gets two validators, as in the Python SDK (`is_valid`, then `iter_errors` only on failure): a fast
 * one that stops at the first error, compiled from a copy of the tree whose `if` conditions are plain code
 * (conditions.ts), and an all-errors one over the tree itself, compiled the first time a document is invalid. The
 * working schemas' fast validators are generated at build time (prebuilt.ts); a pinned release's are compiled.
 */

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_VALUED } from "./applicators.js";
import { compileAllErrors, compileFast, fastTree } from "./compile.js";
import { prebuiltValidator } from "./prebuilt.js";
import { has, isObject, type JsonObject } from "../core/json.js";

import { KINDS, RELEASE_MANIFEST, ROW_ANNOTATION_KEYWORDS, ROW_WHOLE_VALUE_KEYWORDS, SCHEMA_URI } from "../generated/constants.js";

export { KINDS };
export type Kind = (typeof KINDS)[number];

export function isKind(value: unknown): value is Kind {
  return typeof value === "string" && (KINDS as readonly string[]).includes(value);
}

/** A schema's `$id` is a `$schema` URI of this specification (SCHEMA_URI, matched whole): its base ends before the kind. */
const ID_RE = new RegExp(`^(?:${SCHEMA_URI})$`);

/** Keywords dropped from the inlined tree: identification and definitions (every `$ref` is inlined). */
const DROPPED = new Set(["$id", "$schema", "$defs", "definitions", "$anchor", "$dynamicAnchor"]);

export interface SchemaSet {
  version: string;
  baseUri: string;
  /** Raw schema documents by file name ("grader.json"). */
  files: Map<string, JsonObject>;
  /** SHA-256 of the files' names and texts, in name order: what prebuilt validators are matched against. */
  digest: string;
}

export interface CompiledKind {
  /** The kind's schema with every `$ref` inlined as an `allOf` branch. */
  tree: unknown;
  /** Whether a document is valid; stops at the first error (most documents have none). */
  isValid: (document: unknown) => boolean;
  /** Every error of an invalid document, for the mapping to findings; compiled on first use. */
  allErrors: () => ValidateFunction;
  /** The tree the fast validator is compiled from (`tree`, with plain `if` conditions), made on first call. */
  fast: () => unknown;
}

/** Validators of one subschema of a kind's tree (a root array property's, for its items in batches). */
export interface CompiledPart {
  /** The subschema in the kind's inlined tree. */
  schema: unknown;
  isValid: (value: unknown) => boolean;
  allErrors: () => ValidateFunction;
}

/** Holder node → the inlined subschema its `$ref` pointed at (Python's `walker.resolve`). */
const refTargets = new WeakMap<object, unknown>();

/** Follow `$ref` chains of one (inlined) subschema. */
export function resolveRef(schema: unknown): unknown {
  let node = schema;
  for (let seen = 0; typeof node === "object" && node !== null && refTargets.has(node) && seen < 32; seen++) {
    node = refTargets.get(node);
  }
  return node;
}

function schemaDir(): URL {
  return new URL("../../schemas/", import.meta.url);
}

/** The published releases, one folder each (`schemas/releases/<version>/`, copied by scripts/prepare.mjs from
 * spec/releases/): every schema of a release and its `manifest.json`. */
function releasesDir(): URL {
  return new URL("../../schemas/releases/", import.meta.url);
}

const MANIFEST = RELEASE_MANIFEST;

/** A schema set from the schema files `names` of folder `dir` (every `$id` versioned, one version). */
function build(dir: URL, names: readonly string[]): SchemaSet {
  const files = new Map<string, JsonObject>();
  let version = "";
  let baseUri = "";
  const hash = createHash("sha256");
  for (const name of names) {
    const text = readFileSync(new URL(name, dir), "utf-8");
    hash.update(`${name}\0${text.length}\0${text}`);
    const contents: unknown = JSON.parse(text);
    if (!isObject(contents) || typeof contents["$id"] !== "string") throw new Error(`${name}: not a schema with an $id`);
    const match = ID_RE.exec(contents["$id"]);
    if (!match) throw new Error(`${name}: $id ${contents["$id"]} is not a versioned evalschema URI`);
    const kind = match.groups!["kind"]!;
    version = match.groups!["version"]!;
    baseUri = contents["$id"].slice(0, -`${kind}.json`.length);
    files.set(`${kind}.json`, contents);
  }
  return { version, baseUri, files, digest: hash.digest("hex") };
}

let loaded: SchemaSet | undefined;

/** The working schemas: what this package validates against unless a release is pinned. */
export function current(): SchemaSet {
  loaded ??= build(schemaDir(), readdirSync(schemaDir()).filter((n) => n.endsWith(".json")).sort());
  return loaded;
}

function releaseKey(version: string): number[] {
  const core = version.split("-", 1)[0]!.split("+", 1)[0]!;
  return core.split(".").filter((p) => /^[0-9]+$/.test(p)).map(Number);
}

function byRelease(a: string, b: string): number {
  const [x, y] = [releaseKey(a), releaseKey(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  if (x.length !== y.length) return x.length - y.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The bundled release versions, oldest first (Python's `releases.available()`). */
export function availableReleases(): string[] {
  const dir = releasesDir();
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
  return names.filter((name) => existsSync(new URL(`${name}/${MANIFEST}`, dir))).sort(byRelease);
}

const releases = new Map<string, SchemaSet>();

/** The schemas of one version: the working ones (null, or their version), else a bundled release. Throws on a version
 * that is not bundled; nothing is ever fetched. */
export function load(version: string | null = null): SchemaSet {
  if (version === null || version === current().version) return current();
  let set = releases.get(version);
  if (set) return set;
  const available = availableReleases();
  if (!available.includes(version)) throw new Error(`no bundled release ${JSON.stringify(version)}; available: ${available.join(", ")}`);
  const dir = new URL(`${encodeURIComponent(version)}/`, releasesDir());
  const manifest: unknown = JSON.parse(readFileSync(new URL(MANIFEST, dir), "utf-8"));
  const listed = isObject(manifest) && isObject(manifest["files"]) ? Object.keys(manifest["files"]) : [];
  set = build(dir, listed.sort());
  if (set.version !== version) throw new Error(`release ${version}: its schemas' $id says ${set.version}`);
  releases.set(version, set);
  return set;
}

/** The release the current validation is pinned to (`withSpecVersion`), or null: the working schemas. */
let pinned: string | null = null;

export function pinnedVersion(): string | null {
  return pinned;
}

/**
 * `fn()` with the schemas of `version` (a bundled release, `--spec-version`) in place of the working ones: the kind's
 * validators, the rows' independence and the supported version all come from that release. `null`/absent: `fn()`
 * as it is. Validation is synchronous, so the pin holds exactly for the call. Throws on a version not bundled.
 */
export function withSpecVersion<T>(version: string | null | undefined, fn: () => T): T {
  if (version === null || version === undefined) return fn();
  load(version);
  const before = pinned;
  pinned = version;
  try {
    return fn();
  } finally {
    pinned = before;
  }
}

/** The schemas validation uses now: the pinned release's, else the working ones. */
export function active(): SchemaSet {
  return load(pinned);
}

/** The specification version validation uses now: the working schemas' (the package's), or the pinned release's. */
export function specVersion(): string {
  return active().version;
}

/** Keywords that only name or describe: an array subschema made of these and `items` judges each item alone. */
const ANNOTATIONS: ReadonlySet<string> = new Set(ROW_ANNOTATION_KEYWORDS);
/** Root keywords that can see a property's value other than through `properties` (the rest look only at names). */
const WHOLE_VALUE: ReadonlySet<string> = new Set(ROW_WHOLE_VALUE_KEYWORDS);

/**
 * Whether each item of the root array property `array` of the active schemas can be validated on its own: the
 * root has no keyword that sees the array's value except `properties`, and the array's subschema is `type: array`
 * and `items` (with annotations). codegen writes this table for the working schemas (`generated/_rows.ts`); for a
 * pinned release it is computed here, as Python's `computed_rows_stand_alone` does.
 */
export function computedRowsStandAlone(kind: Kind, array: string): boolean {
  const root = active().files.get(`${kind}.json`);
  if (!isObject(root) || Object.keys(root).some((k) => WHOLE_VALUE.has(k))) return false;
  const properties = root["properties"];
  const subschema = isObject(properties) && has(properties, array) ? properties[array] : undefined;
  if (!isObject(subschema) || subschema["type"] !== "array" || !isObject(subschema["items"])) return false;
  return Object.keys(subschema).every((k) => k === "type" || k === "items" || ANNOTATIONS.has(k));
}

function decodePointerToken(token: string): string {
  return decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
}

function lookup(set: SchemaSet, file: string, ref: string): { file: string; node: unknown; key: string } {
  const hash = ref.indexOf("#");
  let target = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? "" : ref.slice(hash + 1);
  if (target.startsWith(set.baseUri)) target = target.slice(set.baseUri.length);
  const targetFile = target === "" ? file : target;
  const root = set.files.get(targetFile);
  if (root === undefined) throw new Error(`${file}: $ref ${ref} is not to a bundled schema (never fetched)`);
  let node: unknown = root;
  if (fragment !== "") {
    if (!fragment.startsWith("/")) throw new Error(`${file}: $ref ${ref}: only JSON Pointer fragments are supported`);
    for (const token of fragment.slice(1).split("/").map(decodePointerToken)) {
      if (Array.isArray(node)) node = node[Number(token)];
      else if (isObject(node)) node = node[token];
      else node = undefined;
      if (node === undefined) throw new Error(`${file}: $ref ${ref} does not resolve`);
    }
  }
  return { file: targetFile, node, key: `${targetFile}#${fragment}` };
}

/** Inlined subschema → where it was written, `<file>#<JSON Pointer>` (the key of the generated `DEPRECATIONS`). */
const locations = new WeakMap<object, string>();

/** Where an inlined subschema was written in the schema files (`<file>#<JSON Pointer>`), or "" if not known. */
export function schemaLocation(schema: unknown): string {
  return (typeof schema === "object" && schema !== null && locations.get(schema)) || "";
}

function escapePointerToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function inline(set: SchemaSet, file: string, node: unknown, stack: string[], cache: Map<string, unknown>, at = ""): unknown {
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  locations.set(out, `${file}#${at}`);
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key) || key === "$ref") continue;
    const here = `${at}/${escapePointerToken(key)}`;
    if (SCHEMA_VALUED.has(key)) out[key] = inline(set, file, value, stack, cache, here);
    else if (SCHEMA_MAPS.has(key) && isObject(value)) {
      const map: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) map[name] = inline(set, file, sub, stack, cache, `${here}/${escapePointerToken(name)}`);
      out[key] = map;
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((sub, i) => inline(set, file, sub, stack, cache, `${here}/${i}`));
    } else out[key] = value;
  }
  const ref = node["$ref"];
  if (typeof ref === "string") {
    const target = lookup(set, file, ref);
    if (stack.includes(target.key)) throw new Error(`recursive $ref ${target.key}: cannot inline`);
    let inlined = cache.get(target.key);
    if (inlined === undefined) {
      inlined = inline(set, target.file, target.node, [...stack, target.key], cache, target.key.slice(target.key.indexOf("#") + 1));
      cache.set(target.key, inlined);
    }
    const branches = Array.isArray(out["allOf"]) ? (out["allOf"] as unknown[]) : [];
    out["allOf"] = [...branches, inlined];
    refTargets.set(out, inlined);
  }
  return out;
}

/** The name of a row array's validator among the prebuilt ones: its pointer in the kind's schema. */
export function partName(kind: Kind, property: string): string {
  return `${kind}#/properties/${escapePointerToken(property)}`;
}

/**
 * The validator generated at build time for tree `name` (the kind, or `partName`) of `kind` in `set`, or undefined:
 * only the working schemas have them, and only when the files are the ones they were generated from.
 */
function prebuilt(set: SchemaSet, kind: Kind, name: string): ((value: unknown) => boolean) | undefined {
  return set === current() ? prebuiltValidator(set.digest, kind, name) : undefined;
}

/** Compiled kinds, by kind: the working schemas' in `compiled`, each pinned release's in its own map. */
const compiled = new Map<Kind, CompiledKind>();
const compiledReleases = new Map<string, Map<Kind, CompiledKind>>();

function compiledNow(): Map<Kind, CompiledKind> {
  if (pinned === null) return compiled;
  let byKind = compiledReleases.get(pinned);
  if (byKind === undefined) compiledReleases.set(pinned, (byKind = new Map()));
  return byKind;
}

/** The kind's schema of the active schemas, every `$ref` inlined. */
function inlinedTree(set: SchemaSet, kind: Kind): unknown {
  const file = `${kind}.json`;
  const root = set.files.get(file);
  if (!root) throw new Error(`no bundled schema for ${kind}`);
  return inline(set, file, root, [`${file}#`], new Map());
}

/**
 * The kind's fast tree (compile.ts `fastTree`) of the active schemas, with no validator compiled or loaded: what the
 * build writes the prebuilt validators from (through `compiledKind`, a build would load the previous build's).
 */
export function fastTreeOf(kind: Kind): unknown {
  return fastTree(inlinedTree(active(), kind));
}

/** The kind's inlined schema tree and its validators (of the active schemas), compiled once, lazily. */
export function compiledKind(kind: Kind): CompiledKind {
  const cache = compiledNow();
  let out = cache.get(kind);
  if (out) return out;
  const set = active();
  const tree = inlinedTree(set, kind);
  let fastCopy: unknown;
  const fast = (): unknown => (fastCopy ??= fastTree(tree));
  const isValid = prebuilt(set, kind, kind) ?? compileFast(fast());
  let full: ValidateFunction | undefined;
  const allErrors = (): ValidateFunction => (full ??= compileAllErrors(tree));
  out = { tree, isValid, allErrors, fast };
  cache.set(kind, out);
  return out;
}

const compiledParts = new Map<string, CompiledPart>();

/**
 * Validators of the subschema of root property `property` of a kind (e.g. a result set's `results`), compiled
 * once, lazily, from the same trees as the kind's own: an error's schema path is then the kind's minus the
 * prefix `#/properties/<property>`.
 */
export function compiledProperty(kind: Kind, property: string): CompiledPart {
  const name = partName(kind, property);
  const key = pinned === null ? name : `${pinned} ${name}`;
  let out = compiledParts.get(key);
  if (out) return out;
  const whole = compiledKind(kind);
  const at = (tree: unknown): JsonObject => {
    const properties = isObject(tree) ? tree["properties"] : undefined;
    const schema = isObject(properties) && has(properties, property) ? properties[property] : undefined;
    if (!isObject(schema)) throw new Error(`${kind} has no subschema for property ${property}`);
    return schema;
  };
  const schema = at(whole.tree);
  const isValid = prebuilt(active(), kind, name) ?? compileFast(at(whole.fast()));
  let full: ValidateFunction | undefined;
  const allErrors = (): ValidateFunction => (full ??= compileAllErrors(schema));
  out = { schema, isValid, allErrors };
  compiledParts.set(key, out);
  return out;
}
