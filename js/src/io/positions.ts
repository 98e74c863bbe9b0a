/**
 * Where each value of a JSON or YAML text starts: JSON Pointer → [line, column], both 1-based, columns counted in
 * characters (code points, as Python counts them). Mirrors Python's `json_positions` and the stream reader's
 * `place`/`placed`: the same numbers in both SDKs. Computed only for documents that have findings.
 */

import { escapeToken, readingOrder, type Finding, type Report } from "../core/findings.js";
import { ReadProblem } from "./problem.js";
import { read } from "./strictJson.js";

export type Positions = Map<string, [number, number]>;

const SCALAR = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null/y;
const SPACE = /[ \t\r\n]*/y;

/** The index after the JSON string starting at `at` (its opening quote), or -1: a loop, not a regular expression,
 * which would backtrack through a string of millions of escapes. */
function stringEnd(text: string, at: number): number {
  if (text[at] !== '"') return -1;
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c === 0x5c) i++;
  }
  return -1;
}

function sticky(re: RegExp, text: string, at: number): RegExpExecArray | null {
  re.lastIndex = at;
  return re.exec(text);
}

function skip(text: string, at: number): number {
  SPACE.lastIndex = at;
  SPACE.exec(text);
  return SPACE.lastIndex;
}

/** The characters (code points) in `text[from:to]`: a surrogate pair is one character. */
function characters(text: string, from: number, to: number): number {
  let n = to - from;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) n--;
    }
  }
  return n;
}

/** Maps a string index to its 1-based line and column (in characters). */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(
    private readonly text: string,
    private readonly firstColumn = 0,
  ) {
    for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }

  // the last index asked for, and the characters from its line's start to it: scanners move forward, so a long
  // line (a whole file on one line) is counted once, not once per value on it
  private lastLine = -1;
  private lastIndex = 0;
  private lastChars = 0;

  where(index: number): [number, number] {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    const resume = lo === this.lastLine && index >= this.lastIndex;
    const chars = resume ? this.lastChars + characters(this.text, this.lastIndex, index) : characters(this.text, starts[lo]!, index);
    this.lastLine = lo;
    this.lastIndex = index;
    this.lastChars = chars;
    return [lo + 1, chars + 1 + (lo === 0 ? this.firstColumn : 0)];
  }
}

/** A key token's string, by the strict reader (the one grammar); the token itself if it is not one. */
function unquote(token: string): string {
  try {
    const value: unknown = read(token)[0];
    return typeof value === "string" ? value : token;
  } catch (error) {
    if (!(error instanceof ReadProblem)) throw error;
    return token;
  }
}

/**
 * Positions of every value in a JSON text (stops quietly at the first syntax error). The text may be a piece of
 * a file: it starts on line `baseLine + 1`, at column `firstColumn + 1`. Iterative: deep input is fine.
 */
export function jsonPositions(text: string, baseLine = 0, firstColumn = 0): Positions {
  const index = new LineIndex(text, firstColumn);
  const out: Positions = new Map();
  // frames: container type, pointer, next array index
  const stack: { array: boolean; pointer: string; index: number }[] = [];
  let i = skip(text, 0);
  let pointer = "";
  let expectingValue = true;
  const key = (at: number, parent: string): [number, string] | null => {
    const end = stringEnd(text, at);
    if (end < 0) return null;
    let next = skip(text, end);
    next = skip(text, next + 1); // the colon
    return [next, parent + "/" + escapeToken(unquote(text.slice(at, end)))];
  };
  while (i < text.length) {
    if (expectingValue) {
      const [line, column] = index.where(i);
      out.set(pointer, [line + baseLine, column]);
      const c = text[i];
      if (c === "{" || c === "[") {
        stack.push({ array: c === "[", pointer, index: 0 });
        i = skip(text, i + 1);
        if (i < text.length && text[i] === (c === "{" ? "}" : "]")) {
          stack.pop();
          i++;
          expectingValue = false;
          continue;
        }
        if (c === "[") {
          pointer = pointer + "/0";
          continue;
        }
        const found = key(i, pointer);
        if (found === null) return out;
        [i, pointer] = found;
        continue;
      }
      if (c === '"') {
        const end = stringEnd(text, i);
        if (end < 0) return out;
        i = end;
      } else {
        const token = sticky(SCALAR, text, i);
        if (token === null) return out;
        i += token[0].length;
      }
      expectingValue = false;
      continue;
    }
    i = skip(text, i);
    const frame = stack[stack.length - 1];
    if (frame === undefined || i >= text.length) return out;
    const c = text[i];
    if (c === ",") {
      i = skip(text, i + 1);
      if (frame.array) pointer = `${frame.pointer}/${++frame.index}`;
      else {
        const found = key(i, frame.pointer);
        if (found === null) return out;
        [i, pointer] = found;
      }
      expectingValue = true;
    } else if (c === "]" || c === "}") {
      stack.pop();
      i++;
    } else return out;
  }
  return out;
}

/** The position of `pointer`, or of its nearest located ancestor (a missing property's parent). */
export function locate(positions: Positions, pointer: string): [number, number] | undefined {
  for (;;) {
    const at = positions.get(pointer);
    if (at !== undefined) return at;
    if (pointer === "") return undefined;
    pointer = pointer.slice(0, pointer.lastIndexOf("/"));
  }
}

/** The finding with the line and column of its value (or of its nearest located ancestor). */
export function place(f: Finding, positions: Positions): Finding {
  if (f.line !== undefined) return f;
  const at = locate(positions, f.pointer);
  return at === undefined ? f : { ...f, line: at[0], column: at[1] };
}

/** The report with every finding placed, in reading order (line, column, then pointer and code). */
export function placed(report: Report, positions: Positions): Report {
  return {
    ...report,
    errors: report.errors.map((f) => place(f, positions)).sort(readingOrder),
    warnings: report.warnings.map((f) => place(f, positions)).sort(readingOrder),
  };
}

const enum State {
  Value,
  ObjectFirst,
  Key,
  KeyEscape,
  Colon,
  ArrayFirst,
  String,
  StringEscape,
  Scalar,
  After,
  Done,
}

interface Frame {
  array: boolean;
  pointer: string;
  index: number;
}

/**
 * The positions `jsonPositions` gives, for the wanted pointers and their ancestors only, from a valid JSON text
 * fed in chunks of bytes: memory is bounded by what is wanted, not by the file (a result set read in pieces is
 * placed this way, in a second pass over the file, once its findings are known). Columns count characters: the
 * bytes of a UTF-8 text that do not continue a character.
 */
export class ChunkedPositions {
  readonly positions: Positions = new Map();
  private readonly wanted = new Set<string>();
  private state = State.Value;
  private readonly stack: Frame[] = [];
  private pointer = "";
  private key: number[] = [];
  private line = 1;
  private column = 0; // characters before the current byte on its line

  constructor(pointers: Iterable<string>) {
    for (let p of pointers) {
      for (;;) {
        if (this.wanted.has(p)) break;
        this.wanted.add(p);
        if (p === "") break;
        p = p.slice(0, p.lastIndexOf("/"));
      }
    }
  }

  private record(): void {
    if (this.wanted.has(this.pointer)) this.positions.set(this.pointer, [this.line, this.column + 1]);
  }

  /** A value starts at the current byte (not whitespace). */
  private value(byte: number): void {
    this.record();
    if (byte === 0x7b || byte === 0x5b) {
      this.stack.push({ array: byte === 0x5b, pointer: this.pointer, index: 0 });
      this.state = byte === 0x7b ? State.ObjectFirst : State.ArrayFirst;
    } else if (byte === 0x22) this.state = State.String;
    else this.state = State.Scalar;
  }

  private close(): void {
    this.stack.pop();
    this.state = this.stack.length ? State.After : State.Done;
  }

  feed(chunk: Uint8Array): void {
    for (let i = 0; i < chunk.length && this.state !== State.Done; i++) {
      const byte = chunk[i]!;
      const space = byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
      switch (this.state) {
        case State.Value:
          if (!space) this.value(byte);
          break;
        case State.ArrayFirst:
          if (space) break;
          if (byte === 0x5d) this.close();
          else {
            this.pointer = this.stack[this.stack.length - 1]!.pointer + "/0";
            this.value(byte);
          }
          break;
        case State.ObjectFirst:
          if (space) break;
          if (byte === 0x7d) this.close();
          else if (byte === 0x22) {
            this.key = [];
            this.state = State.Key;
          }
          break;
        case State.Key:
          if (byte === 0x22) this.state = State.Colon;
          else {
            this.key.push(byte);
            if (byte === 0x5c) this.state = State.KeyEscape;
          }
          break;
        case State.KeyEscape:
          this.key.push(byte);
          this.state = State.Key;
          break;
        case State.Colon:
          if (byte === 0x3a) {
            const text = new TextDecoder("utf-8").decode(new Uint8Array(this.key));
            this.pointer = this.stack[this.stack.length - 1]!.pointer + "/" + escapeToken(unquote(`"${text}"`));
            this.state = State.Value;
          }
          break;
        case State.String:
          if (byte === 0x22) this.state = State.After;
          else if (byte === 0x5c) this.state = State.StringEscape;
          break;
        case State.StringEscape:
          this.state = State.String;
          break;
        case State.Scalar:
          if (!(space || byte === 0x2c || byte === 0x5d || byte === 0x7d)) break;
          this.state = State.After;
        // falls through: the byte ends the scalar and is read as what follows it
        case State.After: {
          if (space) break;
          const frame = this.stack[this.stack.length - 1];
          if (frame === undefined) this.state = State.Done;
          else if (byte === 0x5d || byte === 0x7d) this.close();
          else if (byte === 0x2c) {
            if (frame.array) {
              this.pointer = `${frame.pointer}/${++frame.index}`;
              this.state = State.Value;
            } else this.state = State.ObjectFirst; // a key follows (ObjectFirst also reads it)
          }
          break;
        }
        default:
          break;
      }
      if (byte === 0x0a) {
        this.line++;
        this.column = 0;
      } else if ((byte & 0xc0) !== 0x80) this.column++;
    }
  }
}
