/**
 * Reading YAML safely (mirrors Python's `parse_yaml`): every document of a YAML stream, read by the
 * YAML 1.2 core schema (`yes`, `no`, `on`, `off` stay strings; `012` is twelve), as JSON values — no tag that
 * would construct anything else, no duplicate keys (compared as the JSON keys they become: `1` and `"1"` are the
 * same key), no non-finite numbers, nesting at most `maxDepth` (MAX_DEPTH) deep, at most YAML_NODE_LIMIT nodes as written and
 * as aliases expand them (a "billion laughs" is refused before anything is built from it).
 */

import { createRequire } from "node:module";
import type * as YamlModule from "yaml";
import type { Document, Node as YamlNode } from "yaml";
import * as codes from "../generated/rules.js";
import { finding, type Finding } from "../core/findings.js";
import { YAML_NODE_LIMIT } from "../generated/constants.js";
import { render, show } from "../core/messages.js";
import { LineIndex, type Positions } from "./positions.js";
import { ReadProblem } from "./problem.js";
import { escapeToken } from "../core/findings.js";

/** Nodes in one YAML document, as written and as its aliases expand it (spec/constants.json, shared with Python). */
export { YAML_NODE_LIMIT };

const require = createRequire(import.meta.url);
let yamlModule: typeof YamlModule | undefined;

/** The yaml package, loaded the first time YAML is read: a JSON document's run never needs it (~20 ms to load). */
function yaml(): typeof YamlModule {
  return (yamlModule ??= require("yaml") as typeof YamlModule);
}

/** A document read from a YAML stream: its value and where each of its values starts, or why there is none. */
export interface YamlDocument {
  document?: unknown;
  problem?: Finding;
  positions?: () => Positions;
}

const CORE = "tag:yaml.org,2002:";
const ALLOWED_TAGS = new Set(["!", `${CORE}str`, `${CORE}int`, `${CORE}float`, `${CORE}bool`, `${CORE}null`, `${CORE}map`, `${CORE}seq`]);
const CORE_INT = /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/;

/** A problem found while building a document, at a string index of the text. */
type Composed = YamlNode | null;

/** The node an alias stands for (aliases share nodes: the graph, not a tree). */
function target(node: YamlNode, doc: Document): Composed {
  if (!yaml().isAlias(node)) return node;
  return (node.resolve(doc) as YamlNode | undefined) ?? null;
}

function children(node: YamlNode, doc: Document): YamlNode[] {
  const out: YamlNode[] = [];
  const add = (child: unknown): void => {
    if (child === null || child === undefined) return;
    const resolved = target(child as YamlNode, doc);
    if (resolved !== null) out.push(resolved);
  };
  if (yaml().isMap(node)) {
    for (const pair of node.items) {
      add(pair.key);
      add(pair.value);
    }
  } else if (yaml().isSeq(node)) for (const item of node.items) add(item);
  return out;
}

/** How many distinct nodes the graph has, and how deep its containers nest (Python's `_shape`, iteratively). */
function shape(root: YamlNode, doc: Document): [number, number] {
  const seen = new Set<YamlNode>();
  let deepest = 0;
  const stack: [YamlNode, number][] = [[root, 1]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    const kids = children(current, doc);
    if (kids.length) {
      deepest = Math.max(deepest, depth);
      for (const child of kids) stack.push([child, depth + 1]);
    }
  }
  return [seen.size, deepest];
}

/** Nodes in the tree an alias-sharing graph expands to, stopping once past `limit` (Python's `_expanded_size`). */
function expandedSize(root: YamlNode, doc: Document, limit: number): number {
  const sizes = new Map<YamlNode, number>();
  const stack: [YamlNode, boolean][] = [[root, false]];
  while (stack.length) {
    const [current, childrenDone] = stack.pop()!;
    if (sizes.has(current)) continue;
    const kids = children(current, doc);
    if (!childrenDone && kids.length) {
      stack.push([current, true]);
      for (const child of kids) if (!sizes.has(child)) stack.push([child, false]);
      continue;
    }
    let size = 1;
    for (const child of kids) size += sizes.get(child) ?? 1;
    sizes.set(current, Math.min(limit + 1, size));
  }
  return sizes.get(root)!;
}

/** The key JSON writes for a YAML key that is not a string (`null`, `true`, `1.5`), as Python's `_json_key`. */
function jsonKey(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  return String(value);
}

/** A value this reader refuses, in its own words. */
function unsafe(detail: string): string {
  return render(codes.INVALID_YAML, { detail }, "unsafe");
}

/** A scalar's JSON value, or ReadProblem for what JSON cannot hold. */
function scalarValue(node: YamlNode): unknown {
  if (!yaml().isScalar(node)) throw new ReadProblem(codes.INVALID_YAML, "default", node.range?.[0] ?? null, {}, unsafe("not a scalar"));
  const tag = node.tag;
  if (tag !== undefined && !ALLOWED_TAGS.has(tag)) {
    throw new ReadProblem(codes.INVALID_YAML, "default", node.range?.[0] ?? null, {}, unsafe(`${tag} has no JSON equivalent`));
  }
  const source = typeof node.source === "string" ? node.source : String(node.value);
  if (tag === `${CORE}int` && !CORE_INT.test(source)) {
    throw new ReadProblem(codes.INVALID_YAML, "default", node.range?.[0] ?? null, {}, unsafe(`${show(source)} is not a YAML 1.2 integer`));
  }
  const value = node.value;
  if (typeof value === "number" && !Number.isFinite(value)) {
    const integer = CORE_INT.test(source);
    const problem = integer ? "integer out of range: too large for a double" : `${source} is not a JSON number`;
    throw new ReadProblem(codes.INVALID_YAML, "default", node.range?.[0] ?? null, {}, unsafe(problem));
  }
  if (typeof value === "bigint") return Number(value);
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  throw new ReadProblem(codes.INVALID_YAML, "default", node.range?.[0] ?? null, {}, unsafe("a value JSON cannot hold"));
}

/** The JSON value of a composed node: recursion is bounded, the depth was checked before. */
function build(node: YamlNode, doc: Document): unknown {
  if (yaml().isMap(node)) {
    if (node.tag !== undefined && !ALLOWED_TAGS.has(node.tag)) {
      throw new ReadProblem(codes.INVALID_YAML, "default", node.range?.[0] ?? null, {}, unsafe(`${node.tag} has no JSON equivalent`));
    }
    const out: Record<string, unknown> = {};
    const seen = new Set<string>();
    for (const pair of node.items) {
      const keyNode = pair.key === null || pair.key === undefined ? null : target(pair.key as YamlNode, doc);
      const key = keyNode === null ? null : build(keyNode, doc);
      if (key !== null && typeof key === "object") {
        throw new ReadProblem(codes.INVALID_YAML, "default", keyNode?.range?.[0] ?? null, {}, unsafe("a mapping key that is not a scalar"));
      }
      // compared as the JSON key it becomes: 1 and "1", or true and "true", are the same key in JSON
      const name = typeof key === "string" ? key : jsonKey(key);
      if (seen.has(name)) {
        throw new ReadProblem(codes.DUPLICATE_KEY, "default", keyNode?.range?.[0] ?? null, { name });
      }
      seen.add(name);
      const valueNode = pair.value === null || pair.value === undefined ? null : target(pair.value as YamlNode, doc);
      Object.defineProperty(out, name, { value: valueNode === null ? null : build(valueNode, doc), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (yaml().isSeq(node)) {
    if (node.tag !== undefined && !ALLOWED_TAGS.has(node.tag)) {
      throw new ReadProblem(codes.INVALID_YAML, "default", node.range?.[0] ?? null, {}, unsafe(`${node.tag} has no JSON equivalent`));
    }
    return node.items.map((item) => {
      const resolved = item === null || item === undefined ? null : target(item as YamlNode, doc);
      return resolved === null ? null : build(resolved, doc);
    });
  }
  return scalarValue(node);
}

/** The key a pointer uses for a key node: its text as written (Python: `str(key.value)`). */
function keyToken(node: unknown, doc: Document): string {
  const resolved = node === null || node === undefined ? null : target(node as YamlNode, doc);
  if (resolved === null || !yaml().isScalar(resolved)) return "None";
  return typeof resolved.source === "string" ? resolved.source : String(resolved.value);
}

/** Positions of every value of a composed document (Python's `yaml_positions`: the first pointer wins). */
function positionsOf(root: YamlNode, doc: Document, lines: LineIndex): Positions {
  const out: Positions = new Map();
  const stack: [YamlNode, string][] = [[root, ""]];
  let budget = 1_000_000; // the reader already refused documents whose aliases expand beyond this
  while (stack.length && budget) {
    budget--;
    const [current, pointer] = stack.pop()!;
    if (!out.has(pointer)) out.set(pointer, lines.where(current.range?.[0] ?? 0));
    if (yaml().isMap(current)) {
      for (const pair of current.items) {
        const value = pair.value === null || pair.value === undefined ? null : target(pair.value as YamlNode, doc);
        if (value !== null) stack.push([value, `${pointer}/${escapeToken(keyToken(pair.key, doc))}`]);
      }
    } else if (yaml().isSeq(current)) {
      current.items.forEach((item, index) => {
        const value = item === null || item === undefined ? null : target(item as YamlNode, doc);
        if (value !== null) stack.push([value, `${pointer}/${index}`]);
      });
    }
  }
  return out;
}

function problem(code: string, message: string, lines: LineIndex, index: number | undefined): YamlDocument {
  if (index === undefined) return { problem: finding("", code, "error", message) };
  const [line, column] = lines.where(index);
  return { problem: finding("", code, "error", message, line, column) };
}

/** Every document of a YAML stream, safely: no object construction, bounded alias expansion and nesting. */
export function parseYaml(text: string, maxDepth: number): YamlDocument[] {
  const lines = new LineIndex(text);
  let docs: Document[];
  try {
    const parsed = yaml().parseAllDocuments(text, { version: "1.2", schema: "core", merge: false, uniqueKeys: false, prettyErrors: false, stringKeys: false });
    docs = Array.isArray(parsed) ? parsed : [];
  } catch (error) {
    // the parser recurses per level: a stack overflow is nesting no document may have anyway
    if (error instanceof RangeError) return [{ problem: finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, { limit: maxDepth }, "depth")) }];
    throw error;
  }
  const out: YamlDocument[] = [];
  for (const doc of docs) {
    const error = doc.errors[0];
    if (error !== undefined && error.code === "RESOURCE_EXHAUSTION") {
      // the parser ran out of stack (its error code says so, not its message): nesting no document may have, said
      // as PyYAML's RecursionError is said (Python's `parse_yaml`)
      out.push({ problem: finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, { limit: maxDepth }, "depth")) });
      break;
    }
    if (error !== undefined) {
      // a syntax error ends the stream, as it does for PyYAML
      // the reader's own words, never the parser's: where it stopped is what is known
      out.push(problem(codes.INVALID_YAML, render(codes.INVALID_YAML, {}, "syntax"), lines, error.pos[0]));
      break;
    }
    const root = doc.contents as YamlNode | null;
    if (root === null) continue;
    const at = root.range?.[0];
    const [, depth] = shape(root, doc);
    if (depth > maxDepth) {
      out.push(problem(codes.INVALID_YAML, render(codes.INVALID_YAML, { limit: maxDepth }, "depth"), lines, at));
      continue;
    }
    // nodes shared through aliases count once per use: the tree they expand to must stay within the limit too
    if (expandedSize(root, doc, YAML_NODE_LIMIT) > YAML_NODE_LIMIT) {
      out.push(problem(codes.INVALID_YAML, render(codes.INVALID_YAML, { detail: YAML_NODE_LIMIT.toLocaleString("en-US") }, "aliases"), lines, at));
      continue;
    }
    try {
      const document = build(root, doc);
      out.push({ document, positions: () => positionsOf(root, doc, lines) });
    } catch (error) {
      if (error instanceof ReadProblem) out.push(problem(error.code, error.message, lines, error.index ?? undefined));
      else if (error instanceof RangeError) out.push(problem(codes.INVALID_YAML, render(codes.INVALID_YAML, {}, "too_deep"), lines, at));
      else throw error;
    }
  }
  return out.length ? out : [{ problem: finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, {}, "empty")) }];
}
