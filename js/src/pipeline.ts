/**
 * One pipeline over a source of pieces (issue 17, item 4; mirrors Python's `evalschema.pipeline`): the document's
 * own members, then its rows in batches. A document read whole is the one-batch case; a large result set read from
 * a file in pieces keeps memory bounded by a batch of rows, not by the file. Every check is a `Stage` with
 * `envelope` / `rows` / `finish` steps: the schema engine's (`SchemaStage`), each code rule's (`RULES_REGISTRY`)
 * and the summary's (`SummaryStage`); `feed` is the one loop that hands a source's pieces to them. `validate`,
 * `validateJson`, `validateFile` and `validateStream` differ only in their source; observers (`Observers`) are fed
 * the same rows in the same reading (`summarize`'s summary and attempt statistics), and `summarizeFile` runs the
 * same loop with the summary's stage alone. The report is the same whichever the source (the stream tests check it).
 */

import { readSync } from "node:fs";
import { buildReport, finding, type Finding, type Report } from "./core/findings.js";
import type { Stage } from "./core/stage.js";
import { checkKind, identified, SchemaStage } from "./engine/stage.js";
import { rowsStandAlone } from "./engine/schemaPath.js";
import { STREAM_THRESHOLD } from "./generated/constants.js";
import * as codes from "./generated/rules.js";
import { define, get, isObject, type JsonObject } from "./core/json.js";
import { render } from "./core/messages.js";
import { closeInput, openInput, parseJson, readOpened, textOf, type OpenInput } from "./io/loader.js";
import { ChunkedPositions, jsonPositions, placed } from "./io/positions.js";
import { bindUnits, RULE_UNITS } from "./rules/registry.js";
import type { StageContext } from "./rules/rule.js";
import { pinnedVersion, withSpecVersion, type Kind } from "./schemas/schemas.js";
import { DEFAULT_SIZES, newStats, NotStreamable, read, type Piece, type ReadStats, type Sizes } from "./io/stream.js";
import { SUMMARY_UNIT, SummaryStage } from "./summary/mismatch.js";
import type { Summary } from "./summary/summary.js";

export { STREAM_THRESHOLD };

const KIND = "resultset";
const ARRAY = "results";

/** Every code rule bound to the function of the unit the ledger names for it (test/registry.test.ts holds it to the ledger). */
export const REGISTRY = bindUnits({ ...RULE_UNITS, summary: SUMMARY_UNIT });

export interface ValidateOptions {
  /** The document kind; detected from `$schema` or shape when not given. */
  kind?: Kind | null;
  /** Report warnings as errors. */
  strict?: boolean;
  /** Report unknown properties as warnings in a document of a newer minor version. */
  allowUnknown?: boolean;
  /** The suite a result set was run from: enables the cross-document rules. */
  suite?: unknown;
  /** Validate against this published release (e.g. an earlier 1.x) instead of the current schemas; throws if not bundled. */
  specVersion?: string | null;
}

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
 * Stages that watch the rows a check reads without judging them (`summarize`'s summary and attempt statistics):
 * fed by the same reading as the checks, whatever the report says. Made afresh by this function whenever the
 * reading starts over (a stream that must be read whole after all), so that no row is counted twice.
 */
export type Observers = () => readonly Stage[];

/** What the observers were fed: the document's own fields (without its rows), and the stages themselves. */
export interface Observed {
  fields: JsonObject;
  stages: readonly Stage[];
}

/** A file's report and, when it held a JSON object, what its observers saw in the same reading. */
export interface ObservedReport extends FileReport {
  observed: Observed | null;
}

const NO_OBSERVERS: Observers = () => [];

// --- sources and stages ------------------------------------------------------------------------------------------

/** The one-batch piece: a whole document, its members and rows at once. */
interface Whole {
  type: "whole";
  document: JsonObject;
}

/** A source of pieces: a whole document, or the pieces the stream reader (`read`) yields. */
type Source = Iterable<Piece | Whole>;

function wholeSource(document: JsonObject): Source {
  return [{ type: "whole", document }];
}

function fileSource(fd: number, tuning: Tuning): Source {
  return read(fd, ARRAY, tuning.sizes ?? DEFAULT_SIZES, tuning.stats ?? newStats());
}

function append<T>(target: T[], items: Iterable<T> | undefined): void {
  if (items === undefined) return;
  for (const item of items) target.push(item); // no spread: a million findings overflow the stack
}

/** What feeding a source gave: the document's own members (whether their `envelope` step already ran), why the
 * source cannot be read, or null when a stream turns out not to be streamable (read it whole instead). */
type Fed = { members: JsonObject; enveloped: boolean } | { problem: Finding } | null;

/**
 * Feed a source's pieces to the stages, collecting their findings: a whole document gets its `envelope` step,
 * then its rows as one batch; a stream's rows go as they are read, its members are gathered (the caller runs
 * their `envelope` step once it knows what the document is).
 */
function feed(source: Source, stages: readonly Stage[], findings: Finding[]): Fed {
  const members: JsonObject = {};
  try {
    for (const piece of source) {
      if (piece.type === "whole") {
        const document = piece.document;
        for (const stage of stages) append(findings, stage.envelope?.(document));
        const rows = get(document, ARRAY);
        if (Array.isArray(rows)) for (const stage of stages) append(findings, stage.rows?.(rows, 0));
        return { members: document, enveloped: true };
      }
      if (piece.type === "problem") return { problem: piece.finding };
      if (piece.type === "array") define(members, ARRAY, []);
      else if (piece.type === "member") define(members, piece.key, piece.value);
      else if (piece.type === "rows") for (const stage of stages) append(findings, stage.rows?.(piece.items, piece.start));
    }
  } catch (error) {
    if (error instanceof NotStreamable) return null;
    throw error;
  }
  return { members, enveloped: false };
}

/** The stages that check a document of this kind: the schema's, then every code rule's, in registry order. */
function stagesFor(kind: Kind, options: ValidateOptions, whole: boolean): { schema: SchemaStage; all: Stage[] } {
  const schema = new SchemaStage(kind, whole, options.allowUnknown ?? false, ARRAY);
  const context: StageContext = { kind, suite: isObject(options.suite) ? options.suite : null, rows: kind === KIND ? ARRAY : null };
  const all: Stage[] = [schema];
  for (const unit of REGISTRY.stageUnits(kind)) {
    const stage = unit.stage!(context);
    if (stage !== null) all.push(stage);
  }
  return { schema, all };
}

function finish(stages: readonly Stage[], members: JsonObject, findings: Finding[]): void {
  for (const stage of stages) append(findings, stage.finish?.(members));
}

// --- validation ----------------------------------------------------------------------------------------------

/**
 * A model-like value as the document it holds: a class instance with `toJSON()` (what `JSON.stringify` writes) is
 * that; any other class instance is a caller's mistake, refused with a TypeError that says what to pass. Parsed
 * JSON (plain objects, arrays, scalars) is returned as it is. Mirrors Python's `as_document`.
 */
export function asDocument(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") return JSON.parse(JSON.stringify(value)) as unknown;
  const name = (value as object).constructor?.name ?? "object";
  throw new TypeError(`validate() takes a parsed JSON document (a plain object), not a ${name} instance; pass its plain data`);
}

/**
 * Validate one document: schema rules, code rules, deprecations, and (with `suite`) cross-document rules.
 *
 * `kind` is detected from `$schema` or shape when not given. `strict` reports warnings as errors.
 * `allowUnknown` reports unknown properties as warnings in a document of a newer minor version.
 */
export function validate(document: unknown, options: ValidateOptions = {}): Report {
  return validateObserved(document, options, []);
}

/**
 * `validate`, feeding `observers` the document's rows in the same pass as the checks (when the document is an
 * object: also when the report is decided without them, a newer major version say).
 */
export function validateObserved(document: unknown, options: ValidateOptions, observers: readonly Stage[]): Report {
  if (options.specVersion != null && pinnedVersion() !== options.specVersion) {
    return withSpecVersion(options.specVersion, () => validateObserved(document, options, observers));
  }
  document = asDocument(document);
  const kind = options.kind ?? null;
  const strict = options.strict ?? false;
  checkKind(kind);
  const { identity, decided } = identified(document, kind, strict);
  if (decided !== null) {
    if (observers.length && isObject(document)) feed(wholeSource(document), observers, []);
    return decided;
  }
  const doc = document as JsonObject;
  const identifiedKind = identity.kind!;
  const stages = stagesFor(identifiedKind, options, true);
  stages.schema.identity = identity;
  const findings: Finding[] = [...identity.findings];
  feed(wholeSource(doc), observers.length ? [...stages.all, ...observers] : stages.all, findings);
  finish(stages.all, doc, findings);
  return buildReport(identifiedKind, findings, strict);
}

/** Validate a JSON text: read by the strict reader (a text that cannot be read is one finding that says why);
 * every finding carries its line and column. */
export function validateJson(text: string, options: ValidateOptions = {}): Report {
  return checkText(text, options, NO_OBSERVERS).report;
}

function checkText(text: string, options: ValidateOptions, observe: Observers): ObservedReport {
  const loaded = parseJson(text);
  if (loaded.problem !== undefined) return { report: buildReport(options.kind ?? null, [loaded.problem], false), unreadable: true, observed: null };
  const stages = observe();
  const report = validateObserved(loaded.document, options, stages);
  const observed = isObject(loaded.document) ? { fields: withoutRows(loaded.document), stages } : null;
  // positions are computed only for a document that has findings
  return { report: report.errors.length + report.warnings.length > 0 ? placed(report, jsonPositions(text)) : report, unreadable: false, observed };
}

/**
 * Whether to read a regular file of `size` bytes in pieces: asked for (`true`), or (`null`) `STREAM_THRESHOLD`
 * bytes or more.
 */
function wantsStream(size: number, streamRows: boolean | null | undefined): boolean {
  if (streamRows === false) return false;
  return streamRows === true || size >= STREAM_THRESHOLD;
}

/** `fn` with the file open through the input gate (`openInput`), or the finding that says why it cannot be read. */
function withInput<T>(path: string, fn: (input: OpenInput) => T): T | Finding {
  const input = openInput(path);
  if (!("fd" in input)) return input;
  try {
    return fn(input);
  } finally {
    closeInput(input.fd);
  }
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
  const { report, unreadable } = checkObserved(path, options, NO_OBSERVERS, tuning);
  return { report, unreadable };
}

/**
 * `checkFile`, feeding the stages `observe` makes the rows of the same reading (`summarize`: the file is read
 * once, its summary built while it is checked).
 */
export function checkObserved(path: string, options: FileOptions, observe: Observers, tuning: Tuning = {}): ObservedReport {
  if (options.specVersion != null && pinnedVersion() !== options.specVersion) {
    return withSpecVersion(options.specVersion, () => checkObserved(path, options, observe, tuning));
  }
  const kind = options.kind ?? null;
  checkKind(kind);
  const checked = withInput(path, ({ fd, size }): ObservedReport => {
    if ((kind === null || kind === KIND) && wantsStream(size, options.streamRows)) {
      const streamed = streamReport(fd, options, tuning, observe);
      if (streamed !== null) return streamed;
    }
    const text = textOf(readOpened(fd));
    if (typeof text !== "string") return { report: buildReport(kind, [text], false), unreadable: true, observed: null };
    return checkText(text, options, observe);
  });
  return "report" in checked ? checked : { report: buildReport(kind, [checked], false), unreadable: true, observed: null };
}

/**
 * Validate the JSON result set in the open file `fd` (read from its start) in pieces; `null` if it must be read
 * whole instead: it is not an object with a `results` array, or not a result set, or its schema judges rows
 * together.
 */
export function validateStream(fd: number, options: ValidateOptions = {}, tuning: Tuning = {}): Report | null {
  if (options.specVersion != null && pinnedVersion() !== options.specVersion) return withSpecVersion(options.specVersion, () => validateStream(fd, options, tuning));
  return streamReport(fd, options, tuning, NO_OBSERVERS)?.report ?? null;
}

function streamReport(fd: number, options: ValidateOptions, tuning: Tuning, observe: Observers): ObservedReport | null {
  const kind = options.kind ?? null;
  const strict = options.strict ?? false;
  checkKind(kind);
  if ((kind !== null && kind !== KIND) || !rowsStandAlone(KIND, ARRAY)) return null;
  // the rows come before the document is identified: their stages are a result set's
  const stages = stagesFor(KIND, options, false);
  const observers = observe();
  const found: Finding[] = [];
  const fed = feed(fileSource(fd, tuning), observers.length ? [...stages.all, ...observers] : stages.all, found);
  if (fed === null) return null;
  if ("problem" in fed) return { report: buildReport(kind, [fed.problem], false), unreadable: true, observed: null };
  const members = fed.members;
  if (!Array.isArray(get(members, ARRAY))) return null; // no rows were streamed: read the document the usual way
  const { identity, decided } = identified(members, kind, strict);
  if (identity.kind !== KIND) return null; // a pack that happens to have "results", say: validate it whole, as what it is
  const observed = { fields: withoutRows(members), stages: observers };
  if (decided !== null) return { report: placeStreamed(fd, decided), unreadable: false, observed };
  stages.schema.identity = identity;
  const findings: Finding[] = [...identity.findings];
  for (const stage of stages.all) append(findings, stage.envelope?.(members));
  append(findings, found);
  finish(stages.all, members, findings);
  return { report: placeStreamed(fd, buildReport(KIND, findings, strict)), unreadable: false, observed };
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

// --- summaries -----------------------------------------------------------------------------------------------

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

/** The summary's stage over a source: the reference summary and the document's own fields, or why the source
 * cannot be read, or null (a stream that must be read whole). */
function summaryOf(source: Source): Summarized | Finding | null {
  const stage = new SummaryStage(false);
  const fed = feed(source, [stage], []);
  if (fed === null) return null;
  if ("problem" in fed) return fed.problem;
  return { fields: withoutRows(fed.members), summary: stage.summary(get(fed.members, "graders")) };
}

/**
 * The reference summary of the result set in a JSON file, and the result set's own fields, without checking it;
 * or the finding that says why the file cannot be read. Large files are read in pieces (`streamRows`, as for
 * `validateFile`). (`summarize` checks the file too, in the same reading: `checkObserved`.)
 */
export function summarizeFile(path: string, options: { streamRows?: boolean | null } = {}, tuning: Tuning = {}): Summarized | Finding {
  return withInput(path, ({ fd, size }) => {
    if (wantsStream(size, options.streamRows)) {
      const streamed = summaryOf(fileSource(fd, tuning));
      if (streamed !== null) return streamed;
    }
    const text = textOf(readOpened(fd));
    if (typeof text !== "string") return text;
    const loaded = parseJson(text);
    if (loaded.problem !== undefined) return loaded.problem;
    if (!isObject(loaded.document)) return finding("", codes.TYPE_MISMATCH, "error", render(codes.TYPE_MISMATCH, {}, "not_object"));
    return summaryOf(wholeSource(loaded.document))!;
  });
}
