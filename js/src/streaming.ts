/**
 * Validating a JSON file, and a large result set in pieces: memory bounded by a batch of rows, not by the file
 * (mirrors evalschema/streaming.py).
 *
 * A result set is read by stream.ts: its own fields one by one, its `results` in batches. Every batch goes
 * through the same checks as a whole document — the schema (the rows' subschema, which judges each row on its
 * own: `rowsStandAlone`), the row rules, the cross-document rules and the reference summary, all of which keep
 * only compact state across rows. The result set's own fields are checked once at the end, as a document whose
 * `results` is empty. The report is the one validating the whole document gives; test/stream.test.ts checks
 * that it is.
 */

import { closeSync, openSync, readSync, statSync } from "node:fs";
import { SuiteIndex } from "./crossdoc.js";
import { buildReport, finding, type Finding, type Report } from "./findings.js";
import * as codes from "./generated/rules.js";
import { get, has, isObject, type JsonObject } from "./json.js";
import { loadPath, parseJson, readText } from "./loader.js";
import { ChunkedPositions, jsonPositions, placed } from "./positions.js";
import { ResultRows, resultsetDocumentRules } from "./rules.js";
import { check, checkRows, rowsStandAlone, type DeprecatedUse } from "./schemaPath.js";
import { DEFAULT_SIZES, newStats, NotStreamable, read, type ReadStats, type Sizes } from "./stream.js";
import { summarize, SummaryBuilder, type Summary } from "./summary.js";
import { checkKind, identified, ruleMessages, schemaFindings, summaryMismatchesAgainst, validate, type ValidateOptions } from "./validate.js";

const KIND = "resultset";
const ARRAY = "results";

/**
 * Files at least this large are streamed by default, as in the Python SDK: reading whole takes several times
 * the file in memory (and V8 cannot hold a string over about 512 MiB at all); reading in pieces stays flat.
 */
import { STREAM_THRESHOLD } from "./generated/constants.js";
export { STREAM_THRESHOLD };

export interface FileOptions extends ValidateOptions {
  /**
   * Read a result set in pieces, so that memory is bounded by a batch of rows rather than the file: `true`
   * always, `false` never, `null`/absent from `STREAM_THRESHOLD` bytes on. The report is the same either way.
   */
  streamRows?: boolean | null;
}

/** Reader sizes and statistics, for tests and benchmarks. */
export interface Tuning {
  sizes?: Sizes;
  stats?: ReadStats;
}

/** A report, and whether it says the file could not be read (the command line's exit status 2). */
export interface FileReport {
  report: Report;
  unreadable: boolean;
}

/**
 * Whether to read this file in pieces: asked for, or (`null`) a regular file of `STREAM_THRESHOLD` bytes or
 * more. Anything that is not a regular file is left to the whole-file path to read or report.
 */
export function wantsStream(path: string, streamRows: boolean | null | undefined): boolean {
  if (streamRows === false) return false;
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return false;
    size = stat.size;
  } catch {
    return false;
  }
  return streamRows === true || size >= STREAM_THRESHOLD;
}

/** `fn` with the file open for reading, or `null` if it cannot be opened (the whole-file path reports why). */
function withFile<T>(path: string, fn: (fd: number) => T): T | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return null;
  }
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
}

function define(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function append<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item);
}

/**
 * Read one JSON file and validate it. A result set is read in pieces (`streamRows`), so memory is bounded by the
 * largest batch of rows, not the file; the report is the same either way. Other documents, and result sets whose
 * rows cannot be judged one by one, are read whole.
 */
export function validateFile(path: string, options: FileOptions = {}): Report {
  return checkFile(path, options).report;
}

/** `validateFile`, saying also whether the file could be read at all. */
export function checkFile(path: string, options: FileOptions = {}, tuning: Tuning = {}): FileReport {
  const kind = options.kind ?? null;
  checkKind(kind);
  if ((kind === null || kind === KIND) && wantsStream(path, options.streamRows)) {
    const streamed = withFile(path, (fd) => streamReport(fd, options, tuning));
    if (streamed !== null) return streamed;
  }
  const text = readText(path);
  const loaded = typeof text === "string" ? parseJson(text) : { problem: text };
  if (loaded.problem !== undefined) return { report: buildReport(kind, [loaded.problem], false), unreadable: true };
  const report = validate(loaded.document, options);
  // every finding carries its line and column (positions are computed only for a document that has findings)
  const found = report.errors.length + report.warnings.length > 0;
  return { report: found && typeof text === "string" ? placed(report, jsonPositions(text)) : report, unreadable: false };
}

/**
 * Validate the JSON result set in the open file `fd` (read from its start) in pieces; `null` if it must be read
 * whole instead: it is not an object with a `results` array, or not a result set, or its schema judges rows
 * together.
 */
export function validateStream(fd: number, options: ValidateOptions = {}, tuning: Tuning = {}): Report | null {
  return streamReport(fd, options, tuning)?.report ?? null;
}

function streamReport(fd: number, options: ValidateOptions, tuning: Tuning): FileReport | null {
  const kind = options.kind ?? null;
  const strict = options.strict ?? false;
  checkKind(kind);
  if ((kind !== null && kind !== KIND) || !rowsStandAlone(KIND, ARRAY)) return null;
  const messages = ruleMessages();
  const envelope: JsonObject = {};
  const rowSchema: Finding[] = [];
  const rowDeprecated: DeprecatedUse[] = [];
  const rowRules: Finding[] = [];
  const rowCross: Finding[] = [];
  const rules = new ResultRows();
  const summary = new SummaryBuilder();
  const suite = options.suite;
  const against = suite !== undefined && suite !== null && isObject(suite) ? new SuiteIndex(suite) : null;
  try {
    for (const piece of read(fd, ARRAY, tuning.sizes ?? DEFAULT_SIZES, tuning.stats ?? newStats())) {
      if (piece.type === "problem") return { report: buildReport(kind, [piece.finding], false), unreadable: true };
      if (piece.type === "array") define(envelope, ARRAY, []);
      else if (piece.type === "member") define(envelope, piece.key, piece.value);
      else if (piece.type === "rows") {
        const outcome = checkRows(piece.items, piece.start, KIND, ARRAY, messages);
        append(rowSchema, outcome.findings);
        append(rowDeprecated, outcome.deprecated);
        append(rowRules, rules.check(piece.items, piece.start));
        if (against !== null) append(rowCross, against.check(piece.items, piece.start));
        for (const item of piece.items) if (isObject(item)) summary.add(item);
      }
    }
  } catch (error) {
    if (error instanceof NotStreamable) return null;
    throw error;
  }
  if (!Array.isArray(get(envelope, ARRAY))) return null; // no rows were streamed: read the document the usual way
  const { identity, decided } = identified(envelope, kind, strict);
  if (identity.kind !== KIND) return null; // a pack that happens to have "results", say: validate it whole, as what it is
  if (decided !== null) return { report: placeStreamed(fd, decided), unreadable: false };
  // the whole document's findings, in the order validating it whole gives them
  const outcome = check(envelope, KIND, messages);
  const findings: Finding[] = [...identity.findings];
  const combined = { findings: outcome.findings, deprecated: outcome.deprecated };
  append(combined.findings, rowSchema);
  append(combined.deprecated, rowDeprecated);
  append(findings, schemaFindings(combined, identity, options.allowUnknown ?? false));
  append(findings, resultsetDocumentRules(envelope));
  append(findings, rowRules);
  append(findings, summaryMismatchesAgainst(get(envelope, "summary"), summary.build()));
  append(findings, rowCross);
  if (against !== null) append(findings, against.finish(envelope));
  return { report: placeStreamed(fd, buildReport(KIND, findings, strict)), unreadable: false };
}

/**
 * The report with every finding placed, as reading the file whole places it: a second pass over the file, which
 * keeps the positions of the findings' values (and their ancestors') only. A report without findings costs nothing.
 */
function placeStreamed(fd: number, report: Report): Report {
  const found = [...report.errors, ...report.warnings];
  if (!found.length) return report;
  const scanner = new ChunkedPositions(found.map((f) => f.pointer));
  const chunk = Buffer.allocUnsafe(1 << 20);
  for (let offset = 0; ; ) {
    const n = readSync(fd, chunk, 0, chunk.length, offset);
    if (n === 0) break;
    scanner.feed(chunk.subarray(0, n));
    offset += n;
  }
  return placed(report, scanner.positions);
}

/** A result set's reference summary, and its own fields (without its rows). */
export interface Summarized {
  fields: JsonObject;
  summary: Summary;
}

function withoutRows(document: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(document)) if (key !== ARRAY) define(out, key, value);
  return out;
}

/**
 * The reference summary of the result set in a JSON file, and the result set's own fields; or the finding that
 * says why the file cannot be read. Large files are read in pieces (`streamRows`, as for `validateFile`).
 */
export function summarizeFile(path: string, options: { streamRows?: boolean | null } = {}, tuning: Tuning = {}): Summarized | Finding {
  if (wantsStream(path, options.streamRows)) {
    const streamed = withFile(path, (fd) => streamSummary(fd, tuning));
    if (streamed !== null) return streamed;
  }
  const loaded = loadPath(path);
  if (loaded.problem !== undefined) return loaded.problem;
  if (!isObject(loaded.document)) return finding("", codes.TYPE_MISMATCH, "error", "not a JSON object");
  return { fields: withoutRows(loaded.document), summary: summarize(loaded.document) };
}

function streamSummary(fd: number, tuning: Tuning): Summarized | Finding | null {
  const envelope: JsonObject = {};
  const builder = new SummaryBuilder();
  try {
    for (const piece of read(fd, ARRAY, tuning.sizes ?? DEFAULT_SIZES, tuning.stats ?? newStats())) {
      if (piece.type === "problem") return piece.finding;
      if (piece.type === "member") define(envelope, piece.key, piece.value);
      else if (piece.type === "rows") for (const item of piece.items) if (isObject(item)) builder.add(item);
    }
  } catch (error) {
    if (error instanceof NotStreamable) return null;
    throw error;
  }
  // "results" was there but not an array: it has no rows
  if (has(envelope, ARRAY)) return { fields: withoutRows(envelope), summary: summarize(envelope) };
  return { fields: envelope, summary: builder.build() };
}
