#!/usr/bin/env node
/**
 * The `evalschema-js` command: validate and summarize documents (mirrors the Python `evalschema` command).
 *
 * Exit statuses: 0 every document valid (warnings allowed unless --strict); 1 at least one document invalid;
 * 2 usage error, or at least one input unreadable or unparseable (the others are still checked).
 */

import * as codes from "./generated/rules.js";
import { follow, type CasesFile } from "./casesFile.js";
import { visible } from "./display.js";
import { buildReport, type Finding, type Report } from "./findings.js";
import { show } from "./messages.js";
import { get, has, isObject, type JsonObject } from "./json.js";
import { MAX_FINDINGS, shorten } from "./limits.js";
import { loadPath } from "./loader.js";
import { isKind, KINDS, specVersion, type Kind } from "./schemas.js";
import { checkFile, STREAM_THRESHOLD, summarizeFile } from "./streaming.js";
import { VERSION } from "./generated/version.js";
import { validate } from "./validate.js";
import type { Summary } from "./summary.js";

const EXIT_OK = 0;
const EXIT_INVALID = 1;
const EXIT_UNREADABLE = 2;
const PROG = "evalschema-js";

class UsageError extends Error {}

interface Args {
  command: "validate" | "summarize";
  paths: string[];
  kind: Kind | null;
  suite: string | null;
  strict: boolean;
  allowUnknown: boolean;
  force: boolean;
  format: "text" | "json";
  stream: "auto" | "always" | "never";
}

const STREAM_CHOICES = { auto: null, always: true, never: false } as const;

const USAGE = `usage: ${PROG} validate [--kind {${KINDS.join(",")}}] [--suite SUITE] [--strict] [--allow-unknown] [--format {text,json}] [--stream {auto,always,never}] PATH [PATH ...]
       ${PROG} summarize [--force] [--format {text,json}] [--stream {auto,always,never}] RESULTSET [RESULTSET ...]
       ${PROG} --version`;

/** `str(pathlib.Path(p))`: collapse repeated slashes, drop `.` parts and a trailing slash. */
function displayPath(path: string): string {
  if (path === "") return ".";
  const leading = path.startsWith("//") && !path.startsWith("///") ? "//" : path.startsWith("/") ? "/" : "";
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  const out = leading + parts.join("/");
  return out === "" ? "." : out;
}

function parseArgs(argv: string[]): Args | "version" | "help" {
  const [command, ...rest] = argv;
  if (command === "-h" || command === "--help") return "help";
  if (command === "--version") return "version";
  if (command !== "validate" && command !== "summarize") throw new UsageError(command === undefined ? "the following arguments are required: command" : `invalid choice: '${command}' (choose from 'validate', 'summarize')`);
  const options =
    command === "validate" ? ["--kind", "--suite", "--strict", "--allow-unknown", "--format", "--stream", "--help"] : ["--force", "--format", "--stream", "--help"];
  const takesValue = new Set(["--kind", "--suite", "--format", "--stream"]);
  const args: Args = { command, paths: [], kind: null, suite: null, strict: false, allowUnknown: false, force: false, format: "text", stream: "auto" };
  let onlyPaths = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (onlyPaths || !arg.startsWith("-") || arg === "-") {
      args.paths.push(arg);
      continue;
    }
    if (arg === "--") {
      onlyPaths = true;
      continue;
    }
    if (arg === "-h") return "help";
    const eq = arg.indexOf("=");
    const given = eq >= 0 ? arg.slice(0, eq) : arg;
    const matches = options.filter((o) => o === given || o.startsWith(given));
    const name = matches.includes(given) ? given : matches.length === 1 ? matches[0]! : undefined;
    if (name === undefined) throw new UsageError(matches.length > 1 ? `ambiguous option: ${given}` : `unrecognized arguments: ${arg}`);
    if (name === "--help") return "help";
    let value: string | undefined;
    if (takesValue.has(name)) {
      value = eq >= 0 ? arg.slice(eq + 1) : rest[++i];
      if (value === undefined) throw new UsageError(`argument ${name}: expected one argument`);
    } else if (eq >= 0) throw new UsageError(`argument ${name}: ignored explicit argument '${arg.slice(eq + 1)}'`);
    if (name === "--kind") {
      if (!isKind(value)) throw new UsageError(`argument --kind: invalid choice: '${value}' (choose from ${KINDS.map((k) => `'${k}'`).join(", ")})`);
      args.kind = value;
    } else if (name === "--suite") args.suite = value!;
    else if (name === "--format") {
      if (value !== "text" && value !== "json") throw new UsageError(`argument --format: invalid choice: '${value}' (choose from 'text', 'json')`);
      args.format = value;
    } else if (name === "--stream") {
      if (value !== "auto" && value !== "always" && value !== "never") {
        throw new UsageError(`argument --stream: invalid choice: '${value}' (choose from 'auto', 'always', 'never')`);
      }
      args.stream = value;
    } else if (name === "--strict") args.strict = true;
    else if (name === "--allow-unknown") args.allowUnknown = true;
    else if (name === "--force") args.force = true;
  }
  if (args.paths.length === 0) throw new UsageError(`the following arguments are required: ${command === "validate" ? "PATH" : "RESULTSET"}`);
  return args;
}

let readerGone = false;

function write(text: string): void {
  if (readerGone) return;
  try {
    process.stdout.write(text);
  } catch {
    readerGone = true; // stdout is closed or not writable: keep the exit status
  }
}

/**
 * The reader of stdout may go away (`| head -1`): the write then fails later, as an "error" event (EPIPE), which
 * would otherwise end the process with a stack trace. Stop writing and keep the exit status.
 */
function quietStreams(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => {
      readerGone ||= stream === process.stdout;
    });
  }
}

type Entry = { path: string; unreadable: boolean; line?: number } & Report;

function entry(path: string, report: Report, unreadable: boolean): Entry {
  return { path: displayPath(path), unreadable, ...report };
}

/** A suite's entry (with TEST_CASES_FILE_UNREADABLE when its `test_cases_file` cannot be read), then an entry per
 * line of that file (mirrors Python's `_suite_entries`). */
function suiteWithCases(path: string, suite: unknown, report: Report, options: { strict: boolean; allowUnknown: boolean }): Entry[] {
  const cases = follow(suite, path, options);
  const own = cases.problem === null ? report : buildReport(report.kind, [...report.errors, ...report.warnings, cases.problem], options.strict);
  // a test cases file that cannot be read makes the suite's entry unreadable (SPEC §3.4: exit 2)
  const out: Entry[] = [entry(path, own, cases.problem !== null)];
  for (const { line, report: lineReport, unreadable } of cases.lines) out.push({ ...entry(cases.path!, lineReport, unreadable), line });
  return out;
}

function findingJson(f: Finding): Record<string, unknown> {
  const out: Record<string, unknown> = { code: f.code, severity: f.severity, pointer: f.pointer, message: f.message };
  if (f.line !== undefined) out["line"] = f.line;
  if (f.column !== undefined) out["column"] = f.column;
  return out;
}

/** At most MAX_FINDINGS findings of an entry (errors first), and how many were left out. */
function capped(e: Entry): { errors: Finding[]; warnings: Finding[]; omitted: number } {
  const errors = e.errors.slice(0, MAX_FINDINGS);
  const warnings = e.warnings.slice(0, MAX_FINDINGS - errors.length);
  return { errors, warnings, omitted: e.errors.length + e.warnings.length - errors.length - warnings.length };
}

/** Why the test cases a suite keeps in its `test_cases_file` are not all in hand, or null (mirrors Python's
 * `_incomplete_cases`). */
function incompleteCases(suite: JsonObject, cases: CasesFile): string | null {
  if (!has(suite, "test_cases_file") || has(suite, "test_cases")) return null;
  if (cases.path === null && cases.problem === null) return "test_cases_file names no file";
  if (cases.problem !== null) return cases.problem.message;
  const bad = cases.lines.find((line) => line.unreadable);
  if (bad === undefined) return null;
  const problem = bad.report.errors[0]!;
  return `line ${bad.line} of the test cases file ${show(String(get(suite, "test_cases_file")))}: ${problem.code}: ${problem.message}`;
}

function runValidate(args: Args): number {
  let suite: unknown;
  if (args.suite !== null) {
    const loaded = loadPath(args.suite);
    if (loaded.problem !== undefined || !isObject(loaded.document)) {
      // as the Python CLI says it: the finding's code, then its message
      const message = loaded.problem ? `${loaded.problem.code}: ${loaded.problem.message}` : "not one JSON object";
      process.stderr.write(`${PROG}: --suite ${visible(displayPath(args.suite))}: ${visible(message)}\n`);
      return EXIT_UNREADABLE;
    }
    suite = loaded.document;
  }
  const checked = { strict: args.strict, allowUnknown: args.allowUnknown };
  // each entry is written as soon as it is known: memory does not grow with the number of documents
  let files = 0;
  let unreadable = 0;
  let invalid = 0;
  const report = (e: Entry): void => {
    if (e.unreadable) unreadable++;
    else if (!e.valid) invalid++;
    const { errors, warnings, omitted } = capped(e);
    if (args.format === "json") {
      const file: Record<string, unknown> = {
        path: e.path,
        ...(e.line !== undefined ? { line: e.line } : {}),
        unreadable: e.unreadable,
        kind: e.kind,
        valid: e.valid,
        errors: errors.map(findingJson),
        warnings: warnings.map(findingJson),
      };
      if (omitted) file["omitted"] = omitted;
      const text = JSON.stringify(file, null, 2).split("\n").map((line) => "    " + line).join("\n");
      write((files === 0 ? '{\n  "files": [\n' : ",\n") + text);
    } else {
      const lines: string[] = [];
      const path = visible(e.path) + (e.line !== undefined ? ` (line ${e.line})` : "");
      for (const f of [...errors, ...warnings]) {
        const where = path + (f.line !== undefined ? `:${f.line}:${f.column}` : "");
        lines.push(`${where}: ${f.severity} ${f.code} at ${f.pointer ? visible(shorten(f.pointer)) : "(root)"}: ${visible(f.message)}\n`);
      }
      if (omitted) lines.push(`${path}: … ${omitted.toLocaleString("en-US")} more finding(s) not shown\n`);
      write(lines.join(""));
    }
    files++;
  };
  if (args.suite !== null && isObject(suite)) {
    // the suite's own findings and its test cases file's are reported too: results checked against a broken
    // suite mislead (unless the suite is among the paths, and so reported anyway)
    const given = new Set(args.paths.map(displayPath));
    const cases = follow(suite, args.suite, checked);
    const incomplete = incompleteCases(suite, cases);
    if (incomplete !== null) {
      // results checked against a suite without its test cases would all be "unknown": a usage error instead
      process.stderr.write(`${PROG}: --suite ${visible(displayPath(args.suite))}: ${codes.TEST_CASES_FILE_UNREADABLE}: ${visible(incomplete)}\n`);
      return EXIT_UNREADABLE;
    }
    const suiteEntries = suiteWithCases(args.suite, suite, validate(suite, { kind: "suite", ...checked }), checked);
    if (!given.has(displayPath(args.suite))) suiteEntries.filter((e) => e.errors.length + e.warnings.length > 0).forEach(report);
    if (cases.path !== null && !has(suite, "test_cases")) suite = { ...suite, test_cases: cases.cases };
  }
  for (const path of args.paths) {
    // a large result set is read in pieces (--stream): the same report, memory bounded by a batch of rows
    const options = { kind: args.kind, strict: args.strict, allowUnknown: args.allowUnknown, suite, streamRows: STREAM_CHOICES[args.stream] };
    const checkedFile = checkFile(path, options);
    if (!checkedFile.unreadable && checkedFile.report.kind === "suite") {
      suiteWithCases(path, loadPath(path).document, checkedFile.report, checked).forEach(report);
      continue;
    }
    report(entry(path, checkedFile.report, checkedFile.unreadable));
  }
  const valid = files - invalid - unreadable;
  if (args.format === "json") write('\n  ],\n  "summary": ' + JSON.stringify({ files, valid, invalid, unreadable }) + "\n}\n");
  else write(`${files} file(s): ${valid} valid, ${invalid} invalid, ${unreadable} unreadable\n`);
  if (unreadable) return EXIT_UNREADABLE;
  return invalid ? EXIT_INVALID : EXIT_OK;
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/**
 * The reference summary of each result set. One that is not a valid result set is refused: its findings are
 * printed and the exit status is 1 (its numbers could be ones the specification makes impossible); `--force`
 * prints them anyway, under a warning (mirrors the Python command).
 */
function runSummarize(args: Args): number {
  const out: { path: string; valid: boolean; summary?: Summary; errors?: ReturnType<typeof findingJson>[] }[] = [];
  let status = EXIT_OK;
  const lines: string[] = [];
  for (const path of args.paths) {
    const shown = visible(displayPath(path));
    const checked = checkFile(path, { kind: "resultset", streamRows: STREAM_CHOICES[args.stream] });
    // a file that cannot be read, or holds no JSON object, has nothing to summarize at all (exit 2)
    const notObject = checked.report.errors.find((f) => f.pointer === "" && f.code === codes.TYPE_MISMATCH);
    const problem = checked.unreadable ? checked.report.errors[0] : notObject;
    if (problem !== undefined) {
      process.stderr.write(`${PROG}: ${shown}: ${problem.code}: ${visible(problem.message)}\n`);
      status = EXIT_UNREADABLE;
      continue;
    }
    if (!checked.report.valid) {
      status = Math.max(status, EXIT_INVALID);
      const { errors, omitted } = capped(entry(path, checked.report, false));
      for (const f of errors) {
        const where = shown + (f.line !== undefined ? `:${f.line}:${f.column}` : "");
        lines.push(`${where}: ${f.severity} ${f.code} at ${f.pointer ? visible(shorten(f.pointer)) : "(root)"}: ${visible(f.message)}`);
      }
      if (omitted) lines.push(`${shown}: … ${omitted.toLocaleString("en-US")} more finding(s) not shown`);
      if (!args.force) {
        out.push({ path: displayPath(path), valid: false, errors: errors.map(findingJson) });
        lines.push(`${shown}: not a valid result set (${checked.report.errors.length} error(s)): not summarized (use --force to see the numbers anyway)`);
        continue;
      }
    }
    const summarized = summarizeFile(path, { streamRows: STREAM_CHOICES[args.stream] });
    if (!("summary" in summarized)) {
      process.stderr.write(`${PROG}: ${shown}: ${summarized.code}: ${visible(summarized.message)}\n`);
      status = EXIT_UNREADABLE;
      continue;
    }
    out.push({ path: displayPath(path), valid: checked.report.valid, summary: summarized.summary });
    const s = summarized.summary;
    const rate = s.pass_rate === null ? "n/a" : percent(s.pass_rate);
    if (!checked.report.valid) {
      lines.push(`WARNING: not a valid result set (${checked.report.errors.length} error(s)); these numbers may be ones the specification makes impossible`);
    }
    lines.push(
      `${shown}: ${s.total} results, ${s.passed} passed, ${s.failed} failed (${s.invalidated} invalidated), ` +
        `${s.errored} errored, ${s.unscored} unscored; pass rate ${rate}`,
    );
  }
  if (args.format === "json") write(JSON.stringify(out, null, 2) + "\n");
  else if (lines.length) write(lines.join("\n") + "\n");
  return status;
}

export function main(argv: string[]): number {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${USAGE}\n${PROG}: error: ${error.message}\n`);
    return EXIT_UNREADABLE;
  }
  if (args === "version") {
    write(`${PROG} ${VERSION} (spec ${specVersion()})\n`);
    return EXIT_OK;
  }
  if (args === "help") {
    write(
      `${USAGE}\n\nValidate and summarize evalschema documents.\n\n` +
        `--stream: read result sets in pieces, memory bounded by a batch of rows (auto: JSON files of ${Math.floor(STREAM_THRESHOLD / 2 ** 20)} MiB or more; the report is the same)\n`,
    );
    return EXIT_OK;
  }
  return args.command === "validate" ? runValidate(args) : runSummarize(args);
}

quietStreams();
process.exitCode = main(process.argv.slice(2));
