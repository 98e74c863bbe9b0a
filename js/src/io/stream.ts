/**
 * Reading one large JSON document in pieces (mirrors Python's stream reader, `NotStreamable` and all): the members of its root object one
 * at a time, and the items of one root array (a result set's `results`) in batches. Memory holds a read chunk
 * and one batch, never the file: the file is read with `readSync` into Buffers, and only the pieces being
 * parsed are decoded to strings.
 *
 * Each piece is read as strictly as the whole document is (loader.ts): `JSON.parse` when its reading is
 * certainly the strict parser's (no repeated key, no number out of range, not nested too deep), the strict
 * parser otherwise. A document that cannot be read gives the finding that reading it whole gives — same code,
 * message, line and column — with the same precedence: text that is not UTF-8 anywhere in the file first, then
 * the first problem in document order (a repeated key counts where its object closes).
 *
 * How a piece is found: the strict reader (strictJson.ts) reads a window of text from the piece's start and says
 * where the value ends, or that the window ended inside it (then it is doubled); `JSON.parse`'s error messages
 * are never read. After the first row, a whole batch of
 * rows is found in one step: rows usually start alike (`{"test_case_id":`), so the last such start within
 * `batchBytes` that follows a comma, such that everything before that comma parses as a list, ends a batch (a
 * cut inside a row cannot parse).
 */

import { readSync } from "node:fs";
import { advance } from "./progress.js";
import { maxInputBytes, tooLargeMessage } from "../core/limits.js";
import * as codes from "../generated/rules.js";
import { finding, type Finding } from "../core/findings.js";
import { render } from "../core/messages.js";
import { certainlyExact } from "./exact.js";
import { BOM_MESSAGE, exactValue, MAX_DEPTH, utf8Lead } from "./loader.js";
import { ReadProblem } from "./problem.js";

/** Reader sizes; settable (tests shrink them so that every boundary is crossed in small documents). */
export interface Sizes {
  /** Bytes read from the file at a time. */
  chunkBytes: number;
  /** Rows read one by one are handed over together, up to this many… */
  batchItems: number;
  /** …or as many as this many bytes of text hold; a batch found in one step is at most this long. */
  batchBytes: number;
  /** The first window a value is looked for in (doubled while the value goes on past it). */
  firstWindow?: number;
}

/**
 * Batches are small on purpose: a batch's rows (a 128 KiB text parses to well under V8's young generation) are
 * parsed, checked and dropped before a scavenge can promote them. With 2 MiB batches each batch's rows outlived
 * a scavenge or two, were copied to the old generation and died there: 30% more time (copying, then
 * mark-compacts) and an old generation whose size depended on when V8's heuristics chose to collect it (the
 * peak's variance at 1 GiB). A 1 MiB read chunk is copied down (`fill`) 128 KiB at a time.
 */
export const DEFAULT_SIZES: Readonly<Sizes> = Object.freeze({ chunkBytes: 1 << 20, batchItems: 1000, batchBytes: 1 << 17, firstWindow: 1 << 12 });

/** What reading did, for tests and benchmarks. */
export interface ReadStats {
  /** The largest the read buffer grew, in bytes. */
  largestBuffer: number;
  /** Batches of rows found in one step, and the rows in them. */
  leaps: number;
  leapRows: number;
  /** Values read one at a time (root keys and members, rows that could not be leapt over). */
  values: number;
}

export function newStats(): ReadStats {
  return { largestBuffer: 0, leaps: 0, leapRows: 0, values: 0 };
}

/** A syntax error this close to a window's end may only be the window's end. */
const CUT_MARGIN = 16;
/** V8's message when a value ends before the text does (test/stream.test.ts pins it). */
const ROW_START = /^\{[ \t\r\n]*"[^"\\]{1,64}"[ \t\r\n]*:/;

const BRACE_OPEN = 0x7b;
const BRACE_CLOSE = 0x7d;
const BRACKET_OPEN = 0x5b;
const BRACKET_CLOSE = 0x5d;
const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
/** A value still unfinished past this many bytes is scanned for its end (`scanEnd`) before it is read further. */
const SCAN_FROM = 1 << 20;
const COLON = 0x3a;

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/** The root is not an object: read the document whole instead (nothing was reported). */
export class NotStreamable extends Error {}

/**
 * Reading member by member pays off for a result set's few members and many rows; a root with more members than
 * this is no result set worth streaming: it is read whole (as in Python's stream reader).
 */
import { MAX_MEMBERS } from "../generated/constants.js";
export { MAX_MEMBERS };

/** One value (a member or a row) is larger than the input size limit. */
class TooLarge extends Error {}

/** The root object's opening brace. */
export interface Opened {
  type: "opened";
}

/** The streamed array's opening bracket: its items follow as `Rows`. */
export interface ArrayStart {
  type: "array";
  key: string;
}

/** A member of the root object, other than the streamed array. */
export interface Member {
  type: "member";
  key: string;
  value: unknown;
}

/** Consecutive items of the streamed array: `items[k]` is item `start + k`. */
export interface Rows {
  type: "rows";
  array: string;
  start: number;
  items: unknown[];
  /** Whether the batch was found in one step (rather than read row by row). */
  leap: boolean;
}

/** The document cannot be read; nothing follows. */
export interface Problem {
  type: "problem";
  finding: Finding;
}

export type Piece = Opened | ArrayStart | Member | Rows | Problem;


/** A value read from the buffer: `end` is the index after it, `text` its text (and whitespace after it). */
interface Found {
  value: unknown;
  end: number;
  text: string;
  /** Read by the strict parser already. */
  exact: boolean;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A problem, not a value (a document's values are never instances of a class). A problem found while reading
 * keeps where it is in the file (`index`: a byte offset) and is placed once reading has stopped. */
function isRaw(value: unknown): value is ReadProblem {
  return value instanceof ReadProblem;
}

/** Where each value of a valid comma-separated run of JSON values starts and ends (string indices). */
function split(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let depth = 0;
  let start = -1;
  let last = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      if (start < 0) start = i;
      i++;
      while (i < text.length && text.charCodeAt(i) !== QUOTE) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      last = i;
    } else if (c === BRACE_OPEN || c === BRACKET_OPEN) {
      if (start < 0) start = i;
      depth++;
    } else if (c === BRACE_CLOSE || c === BRACKET_CLOSE) {
      depth--;
      last = i;
    } else if (c === COMMA && depth === 0) {
      spans.push([start, last + 1]);
      start = -1;
    } else if (!isSpace(c)) {
      if (start < 0) start = i;
      last = i;
    }
  }
  if (start >= 0) spans.push([start, last + 1]);
  return spans;
}

// --- the reader -------------------------------------------------------------------------------------------

/** A window on the file: `buf` holds the bytes from file offset `offset`; reading is at `buf[pos]`. */
class Reader {
  buf: Buffer = Buffer.alloc(0);
  pos = 0;
  offset = 0;
  eof = false;
  private readonly firstWindow: number;
  private window: number;
  /** The memory `buf` is a view of: bytes are moved down in it as they are consumed, not reallocated. */
  private store: Buffer = Buffer.alloc(0);

  constructor(
    private readonly fd: number,
    readonly sizes: Sizes,
    readonly stats: ReadStats,
  ) {
    this.firstWindow = sizes.firstWindow ?? DEFAULT_SIZES.firstWindow!;
    this.window = this.firstWindow;
  }

  readonly limit = maxInputBytes();

  /**
   * Read another chunk (at least as much as is kept, so that a long value takes few reads), dropping the bytes
   * before `pos`, which are no longer needed; false at the end of the file. Indices into `buf` held across a
   * call are stale: `pos` is kept up to date.
   */
  fill(): boolean {
    if (this.eof) return false;
    const drop = this.pos;
    const kept = this.buf.length - drop;
    if (kept > 2 * this.limit + this.sizes.chunkBytes) throw new TooLarge(); // a safety net: values are measured in value()
    const want = Math.max(this.sizes.chunkBytes, kept);
    if (this.store.length < kept + want) {
      const grown = Buffer.allocUnsafeSlow(Math.max(kept + want, 2 * this.store.length));
      this.buf.copy(grown, 0, drop);
      this.store = grown;
    } else if (drop > 0) this.store.copyWithin(0, drop, drop + kept);
    let got = 0;
    while (got < want) {
      const n = readSync(this.fd, this.store, kept + got, want - got, null);
      advance(this.fd, n);
      if (n === 0) break;
      got += n;
    }
    if (got < want) this.eof = true;
    this.buf = this.store.subarray(0, kept + got);
    this.offset += drop;
    this.pos = 0;
    if (this.store.length > this.stats.largestBuffer) this.stats.largestBuffer = this.store.length;
    return got > 0;
  }

  /** Move past whitespace; the byte there, or -1 at the end of the file. */
  skipSpace(): number {
    for (;;) {
      const buf = this.buf;
      let p = this.pos;
      while (p < buf.length && isSpace(buf[p])) p++;
      this.pos = p;
      if (p < buf.length) return buf[p]!;
      if (!this.fill()) return -1;
    }
  }

  /**
   * The end of a window of `size` bytes from `pos`, read in, never inside a character: at the end of the buffer
   * only at the end of the file.
   */
  private windowEnd(size: number): number {
    while (this.pos + size + 4 > this.buf.length && this.fill());
    let end = Math.min(this.pos + size, this.buf.length);
    while (end > this.pos && end < this.buf.length && (this.buf[end]! & 0xc0) === 0x80) end--;
    return end;
  }

  // --- problems -----------------------------------------------------------------------------------------

  problem(code: string, message: string, index: number | null): ReadProblem {
    return new ReadProblem(code, "default", index === null ? null : this.offset + index, {}, message);
  }

  /** Text that is not UTF-8 was met: where, the final pass over the file says. */
  notUtf8(): ReadProblem {
    return new ReadProblem(codes.FILE_UNREADABLE, "not_text");
  }

  /**
   * The strict parser's message for text that goes wrong at `buf[pos]`, found by letting it parse the same
   * context (`context` stands for the document up to there) followed by the next bytes.
   */
  syntax(context: string): ReadProblem {
    while (this.pos + 64 > this.buf.length && this.fill());
    const index = this.pos;
    const text = context + lenient.decode(this.buf.subarray(index, index + 64));
    try {
      exactValue(text);
    } catch (error) {
      if (!(error instanceof ReadProblem)) throw error;
      const at = Math.max(context.length, error.index ?? 0);
      return this.problem(error.code, error.message, index + Buffer.byteLength(text.slice(context.length, at)));
    }
    throw new Error(`${JSON.stringify(text)} parsed`); // only called on text that goes wrong
  }

  // --- values -------------------------------------------------------------------------------------------

  /**
   * The value at `pos` (not whitespace), read by the strict reader from a window of text that holds it: the reader
   * says where the value ends, or that the window ended inside it (then the window is doubled). `JSON.parse` says
   * neither except in its error messages, which are not read: it serves the batches (`leap`) instead.
   */
  value(maxDepth: number): Found | ReadProblem {
    this.stats.values++;
    const end = this.windowEnd(this.window);
    const found = this.exact(end, this.eof && end === this.buf.length, maxDepth);
    // the next value is likely alike: start from a window that holds four of this one
    if (!isRaw(found)) this.window = Math.max(this.firstWindow, 4 * (found.end - this.pos));
    return found;
  }

  /** The strict reader's reading of the value at `pos`, from a window that ends at `end` (grown as needed). */
  private exact(end: number, final: boolean, maxDepth: number): Found | ReadProblem {
    let scanned = false;
    for (;;) {
      let text: string;
      try {
        text = strict.decode(this.buf.subarray(this.pos, end));
      } catch {
        return this.notUtf8();
      }
      try {
        const [value, stop] = exactValue(text, maxDepth, true);
        if (final || stop < text.length) {
          // a value that fills the window exactly may be a number cut short
          const valueText = text.slice(0, stop);
          const size = Buffer.byteLength(valueText);
          if (size > this.limit) throw new TooLarge(); // a whole value, but larger than reading the file whole allows
          return { value, end: this.pos + size, text: valueText, exact: true };
        }
      } catch (error) {
        if (!(error instanceof ReadProblem)) throw error;
        const index = error.index ?? 0;
        // the text ended where more was expected, or went wrong so close to the window's end that a longer window
        // may read it (a literal or a number cut in two)
        const cut = error.atEnd || index >= text.length - CUT_MARGIN;
        if (final || !cut) {
          return this.problem(error.code, error.message, this.pos + Buffer.byteLength(text.slice(0, index)));
        }
      }
      if (end - this.pos > this.limit) throw new TooLarge();
      let size = Math.max(2 * (end - this.pos), 8); // the window ended inside the value: read further
      if (size > SCAN_FROM && !scanned) {
        // a long value: where it ends, its quotes and brackets say at a fraction of the strict reader's cost; one
        // that goes on past the limit is refused now, as reading the file whole refuses it, not after rounds of
        // reading ever longer windows of it
        scanned = true;
        const stop = this.scanEnd();
        if (stop > 0) size = Math.max(size, stop - this.pos + CUT_MARGIN);
      }
      end = this.windowEnd(size);
      final = this.eof && end === this.buf.length;
    }
  }

  /**
   * Where the string, array or object at `pos` ends (the index after it), found from its quotes and brackets
   * alone (the strict reader checks the rest), or 0 if that is not found before the end of the file. Throws
   * `TooLarge` if it goes on past the input size limit. Reads at most the limit ahead.
   */
  private scanEnd(): number {
    while (this.pos + this.limit + 1 > this.buf.length && this.fill());
    const stop = Math.min(this.buf.length, this.pos + this.limit + 1);
    const buf = this.buf.subarray(0, stop);
    let depth = 0;
    let i = this.pos;
    while (i < stop) {
      const byte = buf[i]!;
      if (byte === QUOTE) {
        let j = i + 1;
        for (;;) {
          j = buf.indexOf(QUOTE, j); // native: a long string is crossed at memchr speed
          if (j < 0) return this.scanMissed(stop);
          let k = j - 1;
          while (buf[k] === BACKSLASH) k--;
          if ((j - 1 - k) % 2 === 0) break; // not escaped
          j++;
        }
        i = j + 1;
        if (depth === 0) return i;
        continue;
      }
      if (byte === BRACKET_OPEN || byte === BRACE_OPEN) depth++;
      else if (byte === BRACKET_CLOSE || byte === BRACE_CLOSE) {
        depth--;
        if (depth <= 0) return i + 1;
      } else if (depth === 0) return 0; // not a string or a container: the strict reader decides
      i++;
    }
    return this.scanMissed(stop);
  }

  /** The scan reached `stop` without the value's end: past the limit, or at the end of the file. */
  private scanMissed(stop: number): number {
    if (stop - this.pos > this.limit) throw new TooLarge();
    return 0;
  }

  /** JSON.parse's value when its reading is certainly the strict one, else the strict one (or its problem). */
  checked(found: Found, at: number, maxDepth: number): unknown {
    if (found.exact || certainlyExact(found.text, [found.value], maxDepth)) return found.value;
    return this.exactly(found.text, () => at, maxDepth);
  }

  /** The strict parser's reading of a whole value's text, which starts at `buf[at()]` (asked only for a problem). */
  exactly(text: string, at: () => number, maxDepth: number): unknown {
    try {
      return exactValue(text, maxDepth)[0];
    } catch (error) {
      if (!(error instanceof ReadProblem)) throw error;
      return this.problem(error.code, error.message, at() + Buffer.byteLength(text.slice(0, error.index ?? 0)));
    }
  }

  /**
   * A batch of whole rows from `pos`, found in one step: the last row start within `batchBytes` that follows a
   * comma, such that everything before that comma parses as a list; null if the rows do not allow it here.
   */
  leap(startOfRow: Buffer): { items: unknown[]; comma: number; text: string } | ReadProblem | null {
    while (this.buf.length < this.pos + this.sizes.batchBytes && this.fill());
    let searchEnd = Math.min(this.buf.length, this.pos + this.sizes.batchBytes);
    for (let tries = 0; tries < 3; tries++) {
      // a row start inside a string, or inside a row, does not parse: try an earlier one
      const from = searchEnd - startOfRow.length;
      if (from < this.pos + 1) return null;
      const found = this.buf.lastIndexOf(startOfRow, from);
      if (found < this.pos + 1) return null;
      searchEnd = found + startOfRow.length - 1;
      let comma = found - 1;
      while (isSpace(this.buf[comma])) comma--;
      if (this.buf[comma] !== COMMA || comma === this.pos) continue; // at least one row, before a comma
      if (comma - this.pos > this.limit) return null; // rows may be over the limit (a small one): read them one by one, measured
      let text: string;
      try {
        text = strict.decode(this.buf.subarray(this.pos, comma));
      } catch {
        return this.notUtf8();
      }
      let items: unknown;
      try {
        items = JSON.parse("[" + text + "]");
      } catch {
        continue;
      }
      if (Array.isArray(items)) return { items, comma, text };
    }
    return null;
  }

  /** Rows read by JSON.parse from `text` (at `buf[at]`), checked as strictly as a whole document is read. */
  checkedRows(items: unknown[], text: string, at: number): unknown[] | ReadProblem {
    const maxDepth = MAX_DEPTH - 2;
    if (certainlyExact(text, items, maxDepth)) return items;
    const exact: unknown[] = [];
    const spans = split(text);
    for (let k = 0; k < items.length; k++) {
      const [begin, end] = spans[k]!;
      const rowText = text.slice(begin, end);
      if (certainlyExact(rowText, [items[k]], maxDepth)) {
        exact.push(items[k]);
        continue;
      }
      const value = this.exactly(rowText, () => at + Buffer.byteLength(text.slice(0, begin)), maxDepth);
      if (isRaw(value)) return value;
      exact.push(value);
    }
    return exact;
  }
}

// --- the document's structure -------------------------------------------------------------------------

type Step = Opened | ArrayStart | Member | Rows | ReadProblem;

function* pieces(reader: Reader, array: string): Generator<Step> {
  const first = reader.skipSpace();
  if (first === 0xef && reader.offset + reader.pos === 0) {
    while (reader.buf.length < 3 && reader.fill());
  }
  if (reader.offset + reader.pos === 0 && reader.buf[0] === 0xef && reader.buf[1] === 0xbb && reader.buf[2] === 0xbf) {
    yield reader.problem(codes.INVALID_JSON, BOM_MESSAGE, 0);
    return;
  }
  if (first !== BRACE_OPEN) throw new NotStreamable("the root is not an object");
  yield { type: "opened" };
  reader.pos += 1;
  const seen = new Set<string>();
  let repeated: [string, number] | null = null; // reported when the root closes, as the parser does
  let context = "{";
  for (;;) {
    let byte = reader.skipSpace();
    if (byte === BRACE_CLOSE && context === "{") break;
    if (byte !== QUOTE) {
      yield reader.syntax(context);
      return;
    }
    const keyAt = reader.offset + reader.pos;
    const key = reader.value(MAX_DEPTH);
    if (isRaw(key)) {
      yield key;
      return;
    }
    const name = key.value as string;
    reader.pos = key.end;
    if (seen.has(name) && repeated === null) repeated = [name, keyAt];
    seen.add(name);
    if (seen.size > MAX_MEMBERS) throw new NotStreamable("too many members to be a result set read in pieces");
    if (reader.skipSpace() !== COLON) {
      yield reader.syntax('{"k"');
      return;
    }
    reader.pos += 1;
    byte = reader.skipSpace();
    if (byte === BRACKET_OPEN && name === array) {
      if (!(yield* rows(reader, array))) return;
    } else {
      const member = readMember(reader, name);
      yield member;
      if (isRaw(member)) return;
    }
    byte = reader.skipSpace();
    if (byte === BRACE_CLOSE) break;
    if (byte !== COMMA) {
      yield reader.syntax('{"k":0');
      return;
    }
    reader.pos += 1;
    context = '{"k":0,';
  }
  if (repeated !== null) {
    // the parser finds it as the root closes, before it looks for more text
    const [name, at] = repeated;
    yield new ReadProblem(codes.DUPLICATE_KEY, "default", at, { name });
    return;
  }
  reader.pos += 1;
  if (reader.skipSpace() >= 0) yield reader.syntax("{}");
}

function readMember(reader: Reader, name: string): Member | ReadProblem {
  if (reader.skipSpace() < 0) return reader.syntax('{"k":');
  const found = reader.value(MAX_DEPTH - 1);
  if (isRaw(found)) return found;
  const value = reader.checked(found, reader.pos, MAX_DEPTH - 1);
  if (isRaw(value)) return value;
  reader.pos = found.end;
  return { type: "member", key: name, value };
}

/** The items of the array at `pos` (its `[`), in batches; returns whether the array was read. */
function* rows(reader: Reader, array: string): Generator<Step, boolean> {
  yield { type: "array", key: array };
  reader.pos += 1;
  let count = 0;
  let context = "[";
  let startOfRow: Buffer | null = null;
  for (;;) {
    const byte = reader.skipSpace();
    if (byte === BRACKET_CLOSE && context === "[") break;
    if (startOfRow !== null) {
      const leap = reader.leap(startOfRow);
      if (isRaw(leap)) {
        yield leap;
        return false;
      }
      if (leap !== null) {
        const items = reader.checkedRows(leap.items, leap.text, reader.pos);
        if (isRaw(items)) {
          yield items;
          return false;
        }
        reader.stats.leaps++;
        reader.stats.leapRows += items.length;
        yield { type: "rows", array, start: count, items, leap: true };
        count += items.length;
        reader.pos = leap.comma + 1;
        context = "[0,";
        continue;
      }
    }
    // the first row alone (it shows how rows start), later ones in batches
    const batch = yield* oneByOne(reader, array, count, context, count === 0 ? 1 : reader.sizes.batchItems);
    if (batch === null) return false;
    startOfRow ??= batch.startOfRow;
    count += batch.count;
    context = "[0,";
    if (batch.closed) break;
  }
  reader.pos += 1;
  return true;
}

interface Batch {
  count: number;
  /** The text its first row starts with, up to its first key's colon, if it is an object. */
  startOfRow: Buffer | null;
  /** The array ended with this batch. */
  closed: boolean;
}

/** Up to `limit` rows read one at a time, yielded as one batch; null if the text is broken. */
function* oneByOne(reader: Reader, array: string, start: number, context: string, limit: number): Generator<Step, Batch | null> {
  const begin = reader.offset + reader.pos;
  const items: unknown[] = [];
  let startOfRow: Buffer | null = null;
  let closed = false;
  for (;;) {
    const byte = reader.skipSpace();
    const found = byte >= 0 ? reader.value(MAX_DEPTH - 2) : reader.syntax(context);
    if (isRaw(found)) {
      yield found;
      return null;
    }
    const value = reader.checked(found, reader.pos, MAX_DEPTH - 2);
    if (isRaw(value)) {
      yield value;
      return null;
    }
    if (items.length === 0) {
      const match = ROW_START.exec(reader.buf.toString("latin1", reader.pos, Math.min(reader.pos + 128, found.end)));
      if (match) startOfRow = Buffer.from(match[0], "latin1");
    }
    items.push(value);
    reader.pos = found.end;
    const size = reader.offset + found.end - begin;
    const next = reader.skipSpace();
    if (next !== COMMA && next !== BRACKET_CLOSE) {
      yield reader.syntax("[0");
      return null;
    }
    closed = next === BRACKET_CLOSE;
    if (closed || items.length >= limit || size >= reader.sizes.batchBytes) break;
    reader.pos += 1;
    context = "[0,";
  }
  yield { type: "rows", array, start, items, leap: false };
  if (!closed) reader.pos += 1;
  return { count: items.length, startOfRow, closed };
}

// --- placing a problem ----------------------------------------------------------------------------------

/**
 * The finding for a problem, placed as reading the file whole places it: the first byte of the file that is not
 * UTF-8 if there is one (the whole-file reader decodes first), else the problem at its line and column
 * (columns count characters). One pass over the file, only when it cannot be read.
 */
function place(fd: number, raw: ReadProblem, chunkBytes: number): Finding {
  const target = raw.index;
  let where: [number, number] | null = null;
  let line = 1;
  let column = 1;
  let need = 0;
  let lo = 0x80;
  let hi = 0xbf;
  let sequence = 0;
  let sequenceAt: [number, number] = [1, 1];
  const bad = (offset: number, at: [number, number]): Finding =>
    finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { count: offset }, "encoding"), at[0], at[1]);
  const chunk = Buffer.allocUnsafe(Math.max(chunkBytes, 1 << 16));
  let position = 0;
  // up to the input size limit: past it, reading the file whole would have refused it as too large anyway
  const limit = Math.max(maxInputBytes(), target ?? 0);
  for (;;) {
    if (position > limit) break;
    const n = readSync(fd, chunk, 0, chunk.length, position);
    if (n === 0) break;
    for (let i = 0; i < n; i++) {
      const offset = position + i;
      if (offset === target) where = [line, column];
      const b = chunk[i]!;
      if (need > 0) {
        if (b < lo || b > hi) return bad(sequence, sequenceAt);
        need--;
        lo = 0x80;
        hi = 0xbf;
        continue;
      }
      if (b < 0x80) {
        if (b === 0x0a) {
          line++;
          column = 1;
        } else column++;
        continue;
      }
      const lead = utf8Lead(b);
      if (lead === null) return bad(offset, [line, column]);
      [need, lo, hi] = lead;
      sequence = offset;
      sequenceAt = [line, column];
      column++;
    }
    position += n;
  }
  if (need > 0) return bad(sequence, sequenceAt);
  if (target === position) where = [line, column];
  raw.where = target === null ? null : where;
  return raw.finding();
}

/**
 * The pieces of the JSON document in the open file `fd` (read from its current position, which must be the
 * start): `Opened`, then `Member`s, and the `ArrayStart` named `array` followed by its `Rows`, in document order;
 * or a `Problem` and nothing after it. Throws `NotStreamable`, before yielding anything, if the root is not an
 * object.
 */
export function* read(fd: number, array = "results", sizes: Sizes = DEFAULT_SIZES, stats: ReadStats = newStats()): Generator<Piece> {
  const reader = new Reader(fd, sizes, stats);
  try {
    for (const step of pieces(reader, array)) {
      if (isRaw(step)) {
        yield { type: "problem", finding: place(fd, step, sizes.chunkBytes) };
        return;
      }
      yield step;
    }
  } catch (error) {
    if (!(error instanceof TooLarge)) throw error;
    yield { type: "problem", finding: finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { detail: tooLargeMessage(reader.limit) }, "value_too_large")) };
  }
}
