/**
 * `evalschema-js compare BASE NEW` (mirrors Python's `evalschema compare`, SPEC §12.7): both result sets validated
 * as they are read; one that is not valid is refused with its findings (`--force` compares it all the same, exit
 * 1); then the comparison as text, JSON or Markdown, byte for byte as the Python command writes it. Exit status:
 * 0 done (and the gate passed) · 1 a result set is not valid, or `--fail-on-regression` and the gate failed · 2 a
 * usage error, an unreadable result set, or (with `--strict`) runs that are not comparable.
 */

import * as codes from "../generated/rules.js";
import { EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, OUTPUT_FORMATS, UNREADABLE_CODES } from "../generated/constants.js";
import type { Comparison } from "../generated/comparison.js";
import { visible } from "../core/display.js";
import { isObject, type JsonObject } from "../core/json.js";
import { finding, type Finding, type Report } from "../core/findings.js";
import { render } from "../core/messages.js";
import type { Stage } from "../core/stage.js";
import { loadSources } from "../io/loader.js";
import { SUFFIXES, suffix } from "../io/expand.js";
import { placed } from "../io/positions.js";
import { checkObserved, validate } from "../pipeline.js";
import { identified } from "../engine/stage.js";
import { current } from "../schemas/schemas.js";
import { compare, suiteDigest } from "../compare/compare.js";
import { DEFAULT_RESAMPLES, DEFAULT_SEED } from "../compare/compareStats.js";
import { capped, displayPath, entry, findingJson, type Entry } from "../report/entry.js";
import { painter, textEntry } from "../report/render.js";
import { powerLine, renderMarkdown, renderText, verdictLine } from "../report/compareText.js";
import { renderCompareHtml } from "../report/compareHtml.js";
import { checkOutput, writeOutput } from "../io/outputGate.js";
import { pythonJson } from "../report/pyFormat.js";
import { htmlWritable, invalidChoice, PROG, UsageError, write } from "./common.js";

const FORMATS = OUTPUT_FORMATS.compare;

export interface CompareArgs {
  command: "compare";
  base: string;
  next: string;
  suite: string | null;
  grader: string | null;
  alpha: number;
  seed: number;
  resamples: number;
  failOnRegression: boolean;
  maxDrop: number | null;
  strict: boolean;
  force: boolean;
  format: (typeof FORMATS)[number];
  html: string | null;
}

export const COMPARE_USAGE = `${PROG} compare [--suite S] [--grader ID] [--alpha ALPHA] [--seed SEED] [--resamples RESAMPLES] [--fail-on-regression] [--max-drop FRACTION] [--strict] [--force] [--format {${FORMATS.join(",")}}] [--html FILE] BASE NEW`;

// Python's float() and int() of an option's text (blanks around allowed, digits grouped by underscores)
const FLOAT = /^\s*[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?\s*$/;
const INT = /^\s*[+-]?\d(?:_?\d)*\s*$/;

/** Python's `repr` of an option's text, as argparse quotes it in a refusal. */
function quoted(text: string): string {
  return text.includes("'") && !text.includes('"') ? `"${visible(text)}"` : `'${visible(text).replace(/'/g, "\\'")}'`;
}

function fraction(option: string, text: string): number {
  if (!FLOAT.test(text)) throw new UsageError(`argument ${option}: not a number: ${quoted(text)}`);
  const value = Number(text.replace(/_/g, ""));
  if (!(value > 0 && value < 1)) throw new UsageError(`argument ${option}: must lie strictly between 0 and 1: ${quoted(text)}`);
  return value;
}

function drop(option: string, text: string): number {
  if (!FLOAT.test(text)) throw new UsageError(`argument ${option}: not a number: ${quoted(text)}`);
  const value = Number(text.replace(/_/g, ""));
  if (!(value >= 0 && value <= 1)) throw new UsageError(`argument ${option}: a fraction of 1 (0.02 is 2 points): ${quoted(text)}`);
  return value;
}

function count(option: string, text: string): number {
  if (!INT.test(text)) throw new UsageError(`argument ${option}: not a whole number: ${quoted(text)}`);
  const value = Number(text.replace(/_/g, ""));
  if (value < 0) throw new UsageError(`argument ${option}: must not be negative: ${quoted(text)}`);
  return value;
}

const OPTIONS = ["--suite", "--grader", "--alpha", "--seed", "--resamples", "--fail-on-regression", "--max-drop", "--strict", "--force", "--format", "--html", "--help"];
const TAKES_VALUE = new Set(["--suite", "--grader", "--alpha", "--seed", "--resamples", "--max-drop", "--format", "--html"]);

/** `compare`'s arguments (argparse's rules: unique prefixes of long options, `--opt=value`, `--` ends options). */
export function parseCompare(rest: readonly string[]): CompareArgs | "help" {
  const paths: string[] = [];
  const args: Omit<CompareArgs, "base" | "next"> = {
    command: "compare",
    suite: null,
    grader: null,
    alpha: 0.05,
    seed: DEFAULT_SEED,
    resamples: DEFAULT_RESAMPLES,
    failOnRegression: false,
    maxDrop: null,
    strict: false,
    force: false,
    format: FORMATS[0],
    html: null,
  };
  let onlyPaths = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (onlyPaths || !arg.startsWith("-") || arg === "-") {
      paths.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyPaths = true;
      continue;
    }
    if (arg === "-h") return "help";
    const eq = arg.indexOf("=");
    const given = eq >= 0 ? arg.slice(0, eq) : arg;
    const matches = OPTIONS.filter((o) => o === given || o.startsWith(given));
    const name = matches.includes(given) ? given : matches.length === 1 ? matches[0]! : undefined;
    if (name === undefined) throw new UsageError(matches.length > 1 ? `ambiguous option: ${visible(given)}` : `unrecognized arguments: ${visible(arg)}`);
    if (name === "--help") return "help";
    let value = "";
    if (TAKES_VALUE.has(name)) {
      const next = eq >= 0 ? arg.slice(eq + 1) : rest[++i];
      if (next === undefined) throw new UsageError(`argument ${name}: expected one argument`);
      value = next;
    } else if (eq >= 0) throw new UsageError(`argument ${name}: ignored explicit argument '${visible(arg.slice(eq + 1))}'`);
    if (name === "--suite") args.suite = value;
    else if (name === "--html") args.html = value;
    else if (name === "--grader") args.grader = value;
    else if (name === "--alpha") args.alpha = fraction(name, value);
    else if (name === "--seed") args.seed = count(name, value);
    else if (name === "--resamples") args.resamples = count(name, value);
    else if (name === "--max-drop") args.maxDrop = drop(name, value);
    else if (name === "--format") {
      const format = FORMATS.find((f) => f === value);
      if (format === undefined) throw invalidChoice("--format", value, FORMATS);
      args.format = format;
    } else if (name === "--fail-on-regression") args.failOnRegression = true;
    else if (name === "--strict") args.strict = true;
    else if (name === "--force") args.force = true;
  }
  if (paths.length < 2) throw new UsageError(`the following arguments are required: ${paths.length ? "NEW" : "BASE, NEW"}`);
  if (paths.length > 2) throw new UsageError(`unrecognized arguments: ${paths.slice(2).map(visible).join(" ")}`);
  return { ...args, base: paths[0]!, next: paths[1]! };
}

/** A result set that cannot be read (exit 2): its path and the finding that says why. */
class Unreadable extends Error {
  constructor(
    readonly path: string,
    readonly finding: Finding,
  ) {
    super(`${path}: ${finding.code}: ${finding.message}`);
  }
}

const UNREADABLE: ReadonlySet<string> = new Set(UNREADABLE_CODES);

/** The finding that says the input is no result set to read at all (it cannot be read, or is no object). */
function unreadableOf(report: Report): Finding | undefined {
  return report.errors.find((f) => UNREADABLE.has(f.code) || (f.code === codes.TYPE_MISMATCH && f.pointer === ""));
}

function notObject(): Finding {
  return finding("", codes.TYPE_MISMATCH, "error", render(codes.TYPE_MISMATCH, {}, "not_object"));
}

/** Collects the rows a check reads (the comparison is built from them once both files are read). */
class Rows implements Stage {
  readonly all: unknown[] = [];

  rows(batch: readonly unknown[]): never[] {
    for (const row of batch) this.all.push(row);
    return [];
  }
}

/** The document, or null when its report is decided before its rows are judged (a newer major version, say): as
 * Python's reading hands on no rows then, there is nothing to compare, even under --force. */
function rowsRead(document: JsonObject): JsonObject | null {
  return identified(document, "resultset", false).decided === null ? document : null;
}

/** One result set validated and read in the same pass (JSON through the pipeline, large files in pieces; other
 * forms whole, their first document): its report and its document (members and rows). */
function readChecked(path: string): { report: Report; document: JsonObject | null } {
  if ((SUFFIXES[suffix(path)] ?? "json") === "json") {
    let rows = new Rows();
    const checked = checkObserved(path, { kind: "resultset" }, () => [(rows = new Rows())]);
    const problem = checked.unreadable ? checked.report.errors[0] : unreadableOf(checked.report);
    if (problem !== undefined || checked.observed === null) throw new Unreadable(path, problem ?? notObject());
    return { report: checked.report, document: rowsRead({ ...checked.observed.fields, results: rows.all }) };
  }
  const [loaded] = loadSources(path);
  if (loaded === undefined || loaded.problem !== undefined) throw new Unreadable(path, loaded?.problem ?? notObject());
  let report = validate(loaded.document, { kind: "resultset" });
  if (report.errors.length + report.warnings.length) report = placed(report, loaded.positions());
  const problem = unreadableOf(report);
  if (problem !== undefined) throw new Unreadable(path, problem);
  return { report, document: isObject(loaded.document) ? rowsRead(loaded.document) : null };
}

/** The findings of the result sets that are not valid, as `validate` reports them (text, or its JSON report when
 * nothing else is printed on standard output), and what was made of them (Python's `_refused`). */
function refusedOutput(args: CompareArgs, refused: Entry[], compared: boolean): void {
  const totals = { files: refused.length, valid: 0, invalid: refused.length, unreadable: 0 };
  if (args.format === "json" && !compared) {
    const files = refused.map((e) => {
      const shown = capped(e);
      const file: Record<string, unknown> = {
        path: e.path,
        ...(e.line !== undefined ? { line: e.line } : {}),
        kind: e.kind,
        valid: e.valid,
        errors: shown.errors.map(findingJson),
        warnings: shown.warnings.map(findingJson),
      };
      if (shown.omitted) file["omitted"] = shown.omitted;
      return file;
    });
    write(JSON.stringify({ files, summary: totals }, null, 2) + "\n");
  } else {
    // with --force and --format json, standard output holds the comparison document alone
    const toStdout = args.format === "text";
    const paint = toStdout ? painter() : (text: string): string => text;
    const text = refused.map((e) => textEntry(e, capped(e), paint, -1)).join("");
    if (toStdout) write(text);
    else process.stderr.write(text);
  }
  const verdict = compared ? "compared anyway (--force): its numbers may be ones the specification makes impossible" : "nothing compared (use --force to compare anyway)";
  process.stderr.write(`${PROG}: ${refused.length} invalid result set(s): ${verdict}\n`);
}

export function runCompare(args: CompareArgs): number {
  const inputs = [args.base, args.next];
  // the output gate first: a refused --html target is refused before any work
  if (args.html !== null && !htmlWritable(() => checkOutput(args.html!, visible, inputs))) return EXIT_UNREADABLE;
  let digest: string | null = null;
  if (args.suite !== null) {
    const [loaded] = loadSources(args.suite);
    if (loaded !== undefined && loaded.problem !== undefined) {
      process.stderr.write(`${PROG}: ${visible(displayPath(loaded.path))}: ${loaded.problem.code}: ${visible(loaded.problem.message)}\n`);
      return EXIT_UNREADABLE;
    }
    digest = suiteDigest(loaded?.document);
  }
  const read: { report: Report; document: JsonObject | null }[] = [];
  try {
    for (const path of [args.base, args.next]) read.push(readChecked(path));
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    process.stderr.write(`${PROG}: ${visible(displayPath(error.path))}: ${error.finding.code}: ${visible(error.finding.message)}\n`);
    return EXIT_UNREADABLE;
  }
  const refused = read.flatMap((r, i) => (r.report.valid ? [] : [entry([args.base, args.next][i]!, r.report, false)]));
  const comparable = read.every((r) => r.document !== null);
  if (refused.length) {
    refusedOutput(args, refused, args.force && comparable);
    if (!args.force || !comparable) return EXIT_INVALID;
  }
  const options = { alpha: args.alpha, seed: args.seed, resamples: args.resamples, grader: args.grader, maxDrop: args.maxDrop, suiteDigest: digest, strict: args.strict };
  const document: Comparison = compare(read[0]!.document, read[1]!.document, options);
  // the files the runs were read from, last among each run's members (as Python's document has them)
  document.base = { ...document.base, path: displayPath(args.base) };
  document.new = { ...document.new, path: displayPath(args.next) };
  if (args.html !== null) {
    const page = renderCompareHtml(document, { verdict: verdictLine(document), power: powerLine(document) });
    if (!htmlWritable(() => writeOutput(args.html!, page, visible, inputs))) return EXIT_UNREADABLE;
  }
  // the comparison's per-test-case views are the result set's TestCaseSummary: its file is given to follow them
  const files = current().files;
  if (args.format === "json") write(pythonJson(document, files.get("comparison.json") as Record<string, unknown>, files) + "\n");
  else if (args.format === "markdown") write(renderMarkdown(document));
  else write(renderText(document));
  if (args.strict && document.findings.length) {
    process.stderr.write(`${PROG}: the runs are not comparable (${document.findings.length} finding(s)); --strict refuses\n`);
    return EXIT_UNREADABLE;
  }
  if (refused.length) return EXIT_INVALID; // compared under --force: the numbers are shown, the status stays that of an invalid input
  if (args.failOnRegression && document.verdict.gate_failed) return EXIT_INVALID;
  return EXIT_OK;
}
