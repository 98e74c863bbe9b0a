/**
 * The strict JSON reader: one grammar (RFC 8259) and one error vocabulary (the ledger's INVALID_JSON variants).
 *
 * The same state machine as Python's strict reader (`read`, `ReadProblem`): it yields the value, and for an unreadable text the ledger
 * code, message variant, parameters and index of the offending character (or of the end of the text) from its own
 * state — never from a third-party parser's message. Strictness, in the order the reader meets it: a number out of
 * a double's range or `NaN`/`Infinity` when it is read, nesting past `maxDepth` at the bracket that goes past it, a
 * repeated key when its object closes (reported at the first repeated key). Iterative: deep input cannot exhaust
 * the stack. Indices are UTF-16 code units; `position` turns them into a line and a column in code points, as
 * Python counts them.
 */

import { JSON_EXPECTED, MAX_DEPTH } from "../generated/constants.js";
import * as codes from "../generated/rules.js";
import { ReadProblem } from "./problem.js";

const DOUBLE_DIGITS = 309; // the largest finite double, 1.79e308, has 309 digits

// what the reader expected where it stopped (the {detail} of the "end" and "unexpected" variants): spec/constants.json
export const VALUE = JSON_EXPECTED.value;
export const KEY = JSON_EXPECTED.key;
export const COLON = JSON_EXPECTED.colon;
export const OBJECT_NEXT = JSON_EXPECTED.object_next;
export const ARRAY_NEXT = JSON_EXPECTED.array_next;
export const STRING_END = JSON_EXPECTED.string_end;
export const ESCAPE_HEX = JSON_EXPECTED.escape_hex;

const PLAIN = /[^"\\\x00-\x1f]*/y; // a run of string characters that need no decoding
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const CONSTANTS = ["-Infinity", "Infinity", "NaN"] as const;

/** Whether a JSON number is too large for an IEEE 754 double (RFC 8259, section 6). */
export function beyondDouble(token: string): boolean {
  if (/[.eE]/.test(token)) return !Number.isFinite(Number(token));
  const digits = token.replace(/^-/, "");
  if (digits.length !== DOUBLE_DIGITS) return digits.length > DOUBLE_DIGITS;
  return !Number.isFinite(Number(token));
}

/** The 1-based line and column (in code points) of `text[index]`. */
export function position(text: string, index: number): [number, number] {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf("\n"); k !== -1 && k < index; k = text.indexOf("\n", k + 1)) {
    line++;
    lineStart = k + 1;
  }
  let column = 1;
  for (let k = lineStart; k < index; k++) {
    const c = text.charCodeAt(k);
    if (!(c >= 0xdc00 && c <= 0xdfff && k > lineStart && isHigh(text.charCodeAt(k - 1)))) column++;
  }
  return [line, column];
}

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** The character (a whole code point) at `i`. */
function charAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i)!);
}

function space(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

function unexpected(text: string, i: number, expected: string): ReadProblem {
  if (i >= text.length) return new ReadProblem(codes.INVALID_JSON, "end", text.length, { detail: expected });
  return new ReadProblem(codes.INVALID_JSON, "unexpected", i, { value: charAt(text, i), detail: expected });
}

function hex(text: string, at: number): number {
  HEX4.lastIndex = at;
  const match = HEX4.exec(text);
  if (match === null) {
    let bad = at;
    while (bad < text.length && bad < at + 4 && /[0-9a-fA-F]/.test(text[bad]!)) bad++;
    throw unexpected(text, bad, ESCAPE_HEX);
  }
  return parseInt(match[0], 16);
}

/** The string literal that opens at `start - 1` and has its first backslash at `backslash`, read by `JSON.parse`, and
 * the index after its closing quote; null when there is no closing quote or `JSON.parse` refuses the literal. */
function wholeLiteral(text: string, start: number, backslash: number): [string, number] | null {
  let end = backslash;
  for (;;) {
    end = text.indexOf('"', end);
    if (end < 0) return null;
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) break; // not an escaped quote: the literal ends here
    end++;
  }
  try {
    return [JSON.parse(text.slice(start - 1, end + 1)) as string, end + 1];
  } catch {
    return null; // a control character or a bad escape: read it character by character for the exact problem
  }
}

/** The string whose opening quote is at `i - 1`, and the index after its closing quote. */
function string(text: string, i: number): [string, number] {
  const n = text.length;
  let out = "";
  for (;;) {
    PLAIN.lastIndex = i;
    PLAIN.exec(text);
    const j = PLAIN.lastIndex;
    if (j >= n) throw new ReadProblem(codes.INVALID_JSON, "end", n, { detail: STRING_END });
    const c = text[j]!;
    if (c === '"') return [out + text.slice(i, j), j + 1];
    if (c === "\\" && out === "") {
      // the first escape: the whole literal at once when V8 reads it (JSON's one string grammar: the same value,
      // without building a string per escape); only success or failure is used, the loop below says why not
      const whole = wholeLiteral(text, i, j);
      if (whole !== null) return whole;
    }
    out += text.slice(i, j);
    if (c !== "\\") throw new ReadProblem(codes.INVALID_JSON, "control", j, { value: c });
    if (j + 1 >= n) throw new ReadProblem(codes.INVALID_JSON, "end", n, { detail: STRING_END });
    const e = text[j + 1]!;
    if (e !== "u") {
      const decoded = ESCAPES[e];
      if (decoded === undefined) throw new ReadProblem(codes.INVALID_JSON, "escape", j + 1, { value: charAt(text, j + 1) });
      out += decoded;
      i = j + 2;
      continue;
    }
    let code = hex(text, j + 2);
    i = j + 6;
    if (code >= 0xd800 && code <= 0xdbff && text.startsWith("\\u", i)) {
      const low = hex(text, i + 2);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        i += 6;
      }
    }
    out += String.fromCodePoint(code);
  }
}

/** The number, literal or string at `i` (not a container). */
function scalar(text: string, i: number): [unknown, number] {
  const c = text[i];
  if (c === '"') return string(text, i + 1);
  if (c === "n" && text.startsWith("null", i)) return [null, i + 4];
  if (c === "t" && text.startsWith("true", i)) return [true, i + 4];
  if (c === "f" && text.startsWith("false", i)) return [false, i + 5];
  for (const name of CONSTANTS) {
    if (text.startsWith(name, i)) throw new ReadProblem(codes.INVALID_JSON, "constant", i, { keyword: name });
  }
  NUMBER.lastIndex = i;
  const match = NUMBER.exec(text);
  if (match === null) throw unexpected(text, c === "-" ? i + 1 : i, VALUE);
  const token = match[0];
  const integer = match[1] === undefined && match[2] === undefined;
  if (integer ? token.length >= DOUBLE_DIGITS && beyondDouble(token) : !Number.isFinite(Number(token))) {
    throw new ReadProblem(codes.INVALID_JSON, "range", i, { detail: token.slice(0, 40) });
  }
  return [Number(token), NUMBER.lastIndex];
}

interface Frame {
  value: Record<string, unknown> | unknown[];
  key: string; // the pending key (objects)
  repeated: [string, number] | null; // the first repeated key and where
  seen: Set<string> | null; // null for an array
}

function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty: "__proto__" is a key like any other
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Read the key at `i` and its colon into `frame`; the index of the value after them. */
function readKey(text: string, i: number, frame: Frame): number {
  if (text[i] !== '"') throw unexpected(text, i, KEY);
  const [key, after] = string(text, i + 1);
  if (frame.seen!.has(key)) {
    if (frame.repeated === null) frame.repeated = [key, i];
  } else frame.seen!.add(key);
  frame.key = key;
  const colon = space(text, after);
  if (text[colon] !== ":") throw unexpected(text, colon, COLON);
  return space(text, colon + 1);
}

export interface ReadOptions {
  /** Where the value starts (default 0). */
  start?: number;
  /** Containers nested deeper than this are refused (the message names MAX_DEPTH: a piece may be nested). */
  maxDepth?: number;
  /** The value starts at `start` (no whitespace before it) and text may follow it. */
  partial?: boolean;
}

/**
 * The value of a JSON text and the index where it ends. With `partial`, the value starts at `start` and text may
 * follow it; otherwise the whole text (from `start`) must be one value, with whitespace around it only. Throws a
 * `ReadProblem`.
 */
export function read(text: string, options: ReadOptions = {}): [unknown, number] {
  try {
    return readValue(text, options);
  } catch (error) {
    if (error instanceof ReadProblem) error.where = position(text, error.index ?? 0);
    throw error;
  }
}

function readValue(text: string, options: ReadOptions): [unknown, number] {
  const maxDepth = options.maxDepth ?? MAX_DEPTH;
  const partial = options.partial ?? false;
  const n = text.length;
  let i = options.start ?? 0;
  if (!partial) {
    if (text.startsWith("\ufeff", i)) throw new ReadProblem(codes.INVALID_JSON, "bom", i);
    i = space(text, i);
  }
  const stack: Frame[] = [];
  for (;;) {
    // a value starts at i
    if (i >= n) throw unexpected(text, i, VALUE);
    const c = text[i];
    let value: unknown;
    if (c === "{" || c === "[") {
      if (stack.length >= maxDepth) throw new ReadProblem(codes.INVALID_JSON, "depth", i, { limit: MAX_DEPTH });
      i = space(text, i + 1);
      if (c === "[") {
        if (text[i] === "]") {
          value = [];
          i++;
        } else {
          stack.push({ value: [], key: "", repeated: null, seen: null });
          continue;
        }
      } else if (text[i] === "}") {
        value = {};
        i++;
      } else {
        const frame: Frame = { value: {}, key: "", repeated: null, seen: new Set() };
        stack.push(frame);
        i = readKey(text, i, frame);
        continue;
      }
    } else [value, i] = scalar(text, i);
    // a value ends at i: put it in its container, and close every container that ends here
    for (;;) {
      if (stack.length === 0) {
        if (!partial) {
          i = space(text, i);
          if (i < n) throw new ReadProblem(codes.INVALID_JSON, "trailing", i, { value: charAt(text, i) });
        }
        return [value, i];
      }
      const frame = stack[stack.length - 1]!;
      i = space(text, i);
      if (frame.seen === null) {
        (frame.value as unknown[]).push(value);
        if (text[i] === ",") {
          i = space(text, i + 1);
          break;
        }
        if (text[i] === "]") {
          i++;
          value = stack.pop()!.value;
          continue;
        }
        throw unexpected(text, i, ARRAY_NEXT);
      }
      setKey(frame.value as Record<string, unknown>, frame.key, value);
      if (text[i] === ",") {
        i = readKey(text, space(text, i + 1), frame);
        break;
      }
      if (text[i] === "}") {
        if (frame.repeated !== null) {
          const [name, at] = frame.repeated;
          throw new ReadProblem(codes.DUPLICATE_KEY, "default", at, { name });
        }
        i++;
        value = stack.pop()!.value;
        continue;
      }
      throw unexpected(text, i, OBJECT_NEXT);
    }
  }
}
