/**
 * Reading documents from files: strict JSON, with a finding (code, line, column) for every way it can fail
 * (mirrors Python's `read_bytes` and `load_path`; both read with their strict reader, `read` in each: the same
 * findings at the same places).
 */

import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { advance, finish, watch } from "./progress.js";
import { STDIN, SUFFIXES, suffix, type Form } from "./expand.js";
import { jsonPositions, LineIndex, type Positions } from "./positions.js";
import { parseYaml } from "./yaml.js";
import { maxInputBytes, tooLargeMessage } from "../core/limits.js";
import * as codes from "../generated/rules.js";
import { finding, type Finding } from "../core/findings.js";
import { render } from "../core/messages.js";
import { certainlyExact } from "./exact.js";
import { ReadProblem } from "./problem.js";
import { read } from "./strictJson.js";

/** A parsed document, or the finding that says why there is none. */
export interface Loaded {
  document?: unknown;
  problem?: Finding;
  /** The ledger message variant of `problem` (e.g. "trailing"), to decide on. */
  variant?: string;
}

/** Containers nested deeper than this are refused, by every SDK (counted from the document's root). */
import { MAX_DEPTH } from "../generated/constants.js";
export { MAX_DEPTH };
export { ReadProblem };
/** The finding's message for a text that starts with a byte-order mark. */
export const BOM_MESSAGE = render(codes.INVALID_JSON, {}, "bom");

/**
 * Strict JSON, read by strictJson.ts: duplicate keys, NaN and Infinity are errors, nesting is limited to
 * `maxDepth` (the message still names MAX_DEPTH: a piece of a document is nested inside it). Returns the value and
 * the index where it ends; with `partial`, the text must start with the value and may go on after it (a piece of a
 * larger document). Throws a `ReadProblem`.
 */
export function exactValue(text: string, maxDepth: number = MAX_DEPTH, partial = false): [unknown, number] {
  return read(text, { maxDepth, partial });
}

/**
 * `JSON.parse`'s reading of a whole text when it is certainly the strict reader's (exact.ts), else undefined:
 * the text does not parse, or `JSON.parse` may have read it otherwise (a repeated key, a number out of range,
 * nesting too deep, escapes the check cannot see through).
 */
function quickly(text: string): { value: unknown } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined; // the strict reader says why, and where
  }
  return certainlyExact(text, [value], MAX_DEPTH) ? { value } : undefined;
}

/** Parse strict JSON: duplicate keys, NaN and Infinity are errors, not silently accepted. */
export function parseJson(text: string): Loaded {
  const fast = quickly(text);
  if (fast !== undefined) return { document: fast.value };
  try {
    return { document: read(text)[0] };
  } catch (error) {
    if (!(error instanceof ReadProblem)) throw error;
    return { problem: error.finding(), variant: error.variant };
  }
}

/**
 * What a UTF-8 lead byte (0x80 or above) asks of the bytes after it, as Python's strict decoder reads it: how
 * many continuation bytes, and the range the first of them must fall in (later ones: 0x80–0xBF). `null`: the
 * byte cannot start a sequence.
 */
export function utf8Lead(b: number): [need: number, lo: number, hi: number] | null {
  if (b >= 0xc2 && b <= 0xdf) return [1, 0x80, 0xbf];
  if (b >= 0xe0 && b <= 0xef) return [2, b === 0xe0 ? 0xa0 : 0x80, b === 0xed ? 0x9f : 0xbf];
  if (b >= 0xf0 && b <= 0xf4) return [3, b === 0xf0 ? 0x90 : 0x80, b === 0xf4 ? 0x8f : 0xbf];
  return null;
}

/** The index of the first byte that does not start a valid UTF-8 sequence (Python's strict decoder), or -1. */
export function invalidUtf8(data: Uint8Array, from = 0): number {
  let i = from;
  while (i < data.length) {
    const b = data[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const lead = utf8Lead(b);
    if (lead === null) return i;
    const [need, lo, hi] = lead;
    for (let k = 1; k <= need; k++) {
      const c = data[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** An OS error's code (EIO, EMFILE, …): its message is Node's words, not ours. */
function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? "unknown error";
}

function openProblem(error: unknown): Finding {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EISDIR") return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, {}, "directory"));
  if (code === "ENOENT") return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, {}, "missing"));
  if (code === "EACCES" || code === "EPERM") return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, {}, "permission"));
  return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { detail: errorCode(error) }, "os_error"));
}

/** An input file, open for reading: its descriptor and the size the file system gives (a hint, never a limit). */
export interface OpenInput {
  fd: number;
  size: number;
}

/**
 * The input gate: every file evalschema reads is opened here. Anything but a regular file (a device, a FIFO, a
 * socket: it may never end, or block) is refused at once, before any read, with a FILE_UNREADABLE finding (as is
 * a directory, a file that is missing or may not be read, and a name that is not UTF-8). The caller reads the
 * descriptor under the input size limit (`readOpened`, or the stream reader per value) and closes it.
 */
export function openInput(path: string): OpenInput | Finding {
  if (path.includes("\ufffd")) {
    // node decodes file names as UTF-8, replacing what is not: a name that is not UTF-8 cannot be opened
    try {
      lstatSync(path);
    } catch {
      return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, {}, "file_name"));
    }
  }
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below, from the open descriptor,
    // so a path swapped between a check and the open cannot get past)
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return openProblem(error);
  }
  let refusal: Finding;
  try {
    const stat = fstatSync(fd);
    if (stat.isFile()) {
      watch(fd, path, stat.size); // a terminal watches long reads (io/progress.ts)
      return { fd, size: stat.size };
    }
    refusal = finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, {}, stat.isDirectory() ? "directory" : "not_regular"));
  } catch (error) {
    refusal = openProblem(error);
  }
  closeSync(fd);
  return refusal;
}

/** Close an input the gate opened (its progress line, if one was drawn, is cleared). */
export function closeInput(fd: number): void {
  finish(fd);
  closeSync(fd);
}

/**
 * All of an open input, read from its start, or a FILE_UNREADABLE finding as soon as it passes the input size
 * limit (counted while reading: a sparse file, or one that grows, is caught whatever its size says).
 */
export function readOpened(fd: number): Uint8Array | Finding {
  const limit = maxInputBytes();
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 22, limit + 1 - total));
      const n = readSync(fd, chunk, 0, chunk.length, total);
      advance(fd, n);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (total > limit) return finding("", codes.FILE_UNREADABLE, "error", tooLargeMessage(limit));
    }
  } catch (error) {
    return openProblem(error);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/** The file's bytes (through the input gate, `openInput`), or a FILE_UNREADABLE finding. */
export function readBytes(path: string): Uint8Array | Finding {
  const opened = openInput(path);
  if (!("fd" in opened)) return opened;
  try {
    return readOpened(opened.fd);
  } finally {
    closeInput(opened.fd);
  }
}

/** The file's text, or a FILE_UNREADABLE finding. */
export function readText(path: string): string | Finding {
  return textOf(readBytes(path));
}

/** Bytes read as UTF-8 text, or a FILE_UNREADABLE finding (a byte that is not UTF-8, placed; a text too long). */
export function textOf(data: Uint8Array | Finding): string | Finding {
  if (!(data instanceof Uint8Array)) return data;
  const bad = invalidUtf8(data);
  if (bad >= 0) {
    // the line of the bad byte, and its column in characters (code points, as Python counts them)
    const before = new TextDecoder("utf-8").decode(data.subarray(0, bad));
    const line = before.split("\n").length;
    const chars = Array.from(before);
    const lastNewline = chars.lastIndexOf("\n");
    return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { count: bad }, "encoding"), line, chars.length - lastNewline);
  }
  try {
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);
  } catch {
    // larger than a JavaScript string can be (about 512 MiB): the limit was raised past it
    return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { detail: data.length.toLocaleString("en-US") }, "too_large_for_text"));
  }
}

export function loadPath(path: string): Loaded {
  const text = readText(path);
  if (typeof text !== "string") return { problem: text };
  return parseJson(text);
}

// --- documents from sources: JSON, JSON Lines (streamed), YAML; files and stdin -------------------------------

/** One document read from a source (a JSON Lines file gives one per line), or the finding that says why there is
 * none; `positions` locates its values, for placing findings (computed only when asked). */
export interface Source {
  path: string;
  line?: number;
  document?: unknown;
  problem?: Finding;
  /** The ledger message variant of `problem` (e.g. "trailing"), to decide on. */
  variant?: string;
  positions: () => Positions;
}

const NOWHERE = (): Positions => new Map();

function sourceOf(path: string, loaded: Loaded, text: string, line?: number): Source {
  const offset = line !== undefined ? line - 1 : 0;
  const base = line !== undefined ? { path, line } : { path };
  if (loaded.problem === undefined) return { ...base, document: loaded.document, positions: () => jsonPositions(text, offset) };
  const p = loaded.problem;
  // a JSON Lines entry's problem is on its line of the file
  const shifted = p.line !== undefined ? { ...p, line: p.line + offset } : line !== undefined ? { ...p, line } : p;
  return { ...base, problem: shifted, ...(loaded.variant !== undefined ? { variant: loaded.variant } : {}), positions: NOWHERE };
}

/** Bytes as one JSON document (Python's `parse_json_bytes`): a byte that is not UTF-8 is FILE_UNREADABLE. */
function jsonBytes(data: Uint8Array, path: string, line?: number): Source {
  const bad = invalidUtf8(data);
  if (bad >= 0) {
    const before = new TextDecoder("utf-8").decode(data.subarray(0, bad));
    const [l, column] = new LineIndex(before).where(before.length);
    const problem = finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { count: bad }, "encoding"), line ?? l, column);
    return { path, ...(line !== undefined ? { line } : {}), problem, positions: NOWHERE };
  }
  const text = new TextDecoder("utf-8", { ignoreBOM: true }).decode(data);
  return sourceOf(path, parseJson(text), text, line);
}

function yamlSources(text: string, path: string): Source[] {
  return parseYaml(text, MAX_DEPTH).map((d) =>
    d.problem !== undefined ? { path, problem: d.problem, positions: NOWHERE } : { path, document: d.document, positions: d.positions ?? NOWHERE },
  );
}

/** Python's `str.splitlines()` line boundaries. */
const LINE_BREAK = /\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]/;

function* textSources(text: string, path: string, form: Form): Generator<Source> {
  if (form === "yaml") yield* yamlSources(text, path);
  else if (form === "jsonl") {
    const lines = text.split(LINE_BREAK);
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    for (let i = 0; i < lines.length; i++) if (lines[i]!.trim() !== "") yield sourceOf(path, parseJson(lines[i]!), lines[i]!, i + 1);
  } else yield sourceOf(path, parseJson(text), text);
}

/** Python's `bytes.strip()` is empty: only ASCII whitespace. */
function blank(data: Uint8Array): boolean {
  for (const b of data) if (b !== 0x20 && (b < 0x09 || b > 0x0d)) return false;
  return true;
}

/** A JSON Lines file, streamed: memory holds one line (at most the input size limit) at a time. */
function* jsonlFile(path: string): Generator<Source> {
  const opened = openInput(path);
  if (!("fd" in opened)) {
    yield { path, problem: opened, positions: NOWHERE };
    return;
  }
  const fd = opened.fd;
  const limit = maxInputBytes();
  let number = 0;
  try {
    let pending: Buffer[] = [];
    let size = 0;
    const chunk = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      advance(fd, n);
      let start = 0;
      for (;;) {
        const newline = n === 0 ? -1 : chunk.indexOf(0x0a, start);
        const end = newline >= 0 && newline < n ? newline + 1 : n;
        if (end > start) {
          pending.push(Buffer.from(chunk.subarray(start, end)));
          size += end - start;
        }
        const complete = newline >= 0 && newline < n;
        // a line longer than the limit, its newline aside, is refused whether or not its end is in hand yet (as
        // Python's `readline(limit + 1)` refuses it)
        if (size - (complete ? 1 : 0) > limit) {
          number++;
          const where = finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { count: number, detail: tooLargeMessage(limit) }, "line_too_large"), number, 1);
          yield { path, line: number, problem: where, positions: NOWHERE };
          return;
        }
        if (complete || (n === 0 && size > 0)) {
          number++;
          const raw = Buffer.concat(pending, size);
          pending = [];
          size = 0;
          if (!blank(raw)) {
            let stop = raw.length;
            while (stop > 0 && (raw[stop - 1] === 0x0a || raw[stop - 1] === 0x0d)) stop--;
            yield jsonBytes(raw.subarray(0, stop), path, number);
          }
        }
        if (!complete) break;
        start = end;
      }
      if (n === 0) return;
    }
  } catch (error) {
    yield { path, ...(number ? { line: number } : {}), problem: finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { detail: errorCode(error) }, "os_error")), positions: NOWHERE };
  } finally {
    closeInput(fd);
  }
}

/** Every document in one file, read as `form` (by default: by its suffix, JSON for any other). */
export function* loadSources(path: string, form: Form | null = null): Generator<Source> {
  const how = form ?? SUFFIXES[suffix(path)] ?? "json";
  if (how === "jsonl") {
    yield* jsonlFile(path);
    return;
  }
  if (how === "json") {
    const data = readBytes(path);
    yield data instanceof Uint8Array ? jsonBytes(data, path) : { path, problem: data, positions: NOWHERE };
    return;
  }
  const text = readText(path);
  if (typeof text !== "string") yield { path, problem: text, positions: NOWHERE };
  else yield* textSources(text, path, how);
}

/** Standard input, up to the input size limit (a pipe may not be ready yet: wait for it, briefly). */
function stdinBytes(): Uint8Array | Finding {
  const limit = maxInputBytes();
  const chunks: Buffer[] = [];
  let total = 0;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(1 << 22, limit + 1 - total));
    let n: number;
    try {
      n = readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EAGAIN") {
        Atomics.wait(pause, 0, 0, 10);
        continue;
      }
      if (code === "EOF") break;
      return finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, { detail: errorCode(error) }, "stdin_error"));
    }
    if (n === 0) break;
    chunks.push(chunk.subarray(0, n));
    total += n;
    if (total > limit) return finding("", codes.FILE_UNREADABLE, "error", tooLargeMessage(limit));
  }
  return Buffer.concat(chunks, total);
}

/** The documents on standard input: one JSON document, or (unless told it is JSON) JSON Lines when the text holds
 * several; or YAML, or JSON Lines, when told (Python's `load_stdin`). */
export function* loadStdin(form: Form | null = null): Generator<Source> {
  const data = stdinBytes();
  if (!(data instanceof Uint8Array)) {
    yield { path: STDIN, problem: data, positions: NOWHERE };
    return;
  }
  let how: Form = form ?? "json";
  if (how === "json") {
    const single = jsonBytes(data, STDIN);
    // our own parser's reason, not a third party's message: several documents, one per line
    if (form === "json" || single.problem === undefined || single.variant !== "trailing") {
      yield single;
      return;
    }
    how = "jsonl";
  }
  const bad = invalidUtf8(data);
  if (bad >= 0) {
    yield jsonBytes(data, STDIN);
    return;
  }
  yield* textSources(new TextDecoder("utf-8", { ignoreBOM: true }).decode(data), STDIN, how);
}
