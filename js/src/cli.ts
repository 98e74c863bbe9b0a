#!/usr/bin/env node
/**
 * The `evalschema-js` command: validate and summarize documents (mirrors the Python `evalschema` command).
 *
 * Exit statuses: 0 every document valid (warnings allowed unless --strict); 1 at least one document invalid;
 * 2 usage error, or at least one input unreadable or unparseable (the others are still checked).
 */

import { type Finding, type Report } from "./findings.js";
import { visible } from "./display.js";
import { get, has, isObject, type JsonObject } from "./json.js";
import { MAX_FINDINGS, shorten } from "./limits.js";
import { loadPath, parseJson, readText } from "./loader.js";
import { repr } from "./findings.js";
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { isKind, KINDS, specVersion, type Kind } from "./schemas.js";
import { checkFile, STREAM_THRESHOLD, summarizeFile } from "./streaming.js";
import { VERSION } from "./generated/version.js";
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
  format: "text" | "json";
  stream: "auto" | "always" | "never";
}

const STREAM_CHOICES = { auto: null, always: true, never: false } as const;

const USAGE = `usage: ${PROG} validate [--kind {${KINDS.join(",")}}] [--suite SUITE] [--strict] [--allow-unknown] [--format {text,json}] [--stream {auto,always,never}] PATH [PATH ...]
       ${PROG} summarize [--format {text,json}] [--stream {auto,always,never}] RESULTSET [RESULTSET ...]
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
    command === "validate" ? ["--kind", "--suite", "--strict", "--allow-unknown", "--format", "--stream", "--help"] : ["--format", "--stream", "--help"];
  const takesValue = new Set(["--kind", "--suite", "--format", "--stream"]);
  const args: Args = { command, paths: [], kind: null, suite: null, strict: false, allowUnknown: false, format: "text", stream: "auto" };
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

type Entry = { path: string; unreadable: boolean } & Report;

function entry(path: string, report: Report, unreadable: boolean): Entry {
  return { path: displayPath(path), unreadable, ...report };
}

function findingJson(f: Finding): Record<string, unknown> {
  const out: Record<string, unknown> = { code: f.code, severity: f.severity, pointer: f.pointer, message: f.message };
  if (f.line !== undefined) out["line"] = f.line;
  if (f.column !== undefined) out["column"] = f.column;
  return out;
}

/**
 * The test cases in a suite's `test_cases_file`, resolved relative to the suite's folder, or why they cannot be
 * read (as the Python CLI says it): the file must stay inside that folder (no absolute path, no `..` out of it, no
 * link leading out), exist, and hold one valid JSON document per non-blank line.
 */
function suiteCases(suitePath: string, name: string): unknown[] | string {
  const parts = name.split(/[\\/]/);
  if (isAbsolute(name) || name.startsWith("\\") || parts.includes("..") || name.includes("\0")) return " must be a path inside the suite's folder";
  const folder = dirname(suitePath);
  let target: string;
  try {
    const root = realpathSync(folder);
    target = join(folder, name);
    let real: string;
    try {
      real = realpathSync(target);
    } catch {
      real = resolve(root, name);
    }
    if (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep)) return " leads out of the suite's folder";
  } catch {
    return " must be a path inside the suite's folder";
  }
  const text = readText(target);
  if (typeof text !== "string") return `: ${text.code}: ${visible(text.message)}`;
  const cases: unknown[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, "");
    if (line.trim() === "") continue;
    const loaded = parseJson(line);
    if (loaded.problem !== undefined) return ` (line ${i + 1}): ${loaded.problem.code}: ${visible(loaded.problem.message)}`;
    cases.push(loaded.document);
  }
  return cases;
}

/** At most MAX_FINDINGS findings of an entry (errors first), and how many were left out. */
function capped(e: Entry): { errors: Finding[]; warnings: Finding[]; omitted: number } {
  const errors = e.errors.slice(0, MAX_FINDINGS);
  const warnings = e.warnings.slice(0, MAX_FINDINGS - errors.length);
  return { errors, warnings, omitted: e.errors.length + e.warnings.length - errors.length - warnings.length };
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
    const file = get(loaded.document, "test_cases_file");
    if (typeof file === "string" && !has(loaded.document, "test_cases")) {
      // the cross-document rules need the test cases: read them from the JSON Lines file beside the suite
      const cases = suiteCases(args.suite, file);
      if (typeof cases === "string") {
        process.stderr.write(`${PROG}: --suite ${visible(displayPath(args.suite))}: test_cases_file ${repr(visible(shorten(file)))}${cases}\n`);
        return EXIT_UNREADABLE;
      }
      suite = { ...(loaded.document as JsonObject), test_cases: cases };
    }
  }
  // each entry is written as soon as it is known: memory does not grow with the number of documents
  let files = 0;
  let unreadable = 0;
  let invalid = 0;
  for (const path of args.paths) {
    // a large result set is read in pieces (--stream): the same report, memory bounded by a batch of rows
    const options = { kind: args.kind, strict: args.strict, allowUnknown: args.allowUnknown, suite, streamRows: STREAM_CHOICES[args.stream] };
    const checked = checkFile(path, options);
    const e = entry(path, checked.report, checked.unreadable);
    if (e.unreadable) unreadable++;
    else if (!e.valid) invalid++;
    const { errors, warnings, omitted } = capped(e);
    if (args.format === "json") {
      const file: Record<string, unknown> = {
        path: e.path,
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
      for (const f of [...errors, ...warnings]) {
        const where = visible(e.path) + (f.line !== undefined ? `:${f.line}:${f.column}` : "");
        lines.push(`${where}: ${f.severity} ${f.code} at ${visible(shorten(f.pointer)) || "/"}: ${visible(f.message)}\n`);
      }
      if (omitted) lines.push(`${visible(e.path)}: … ${omitted.toLocaleString("en-US")} more finding(s) not shown\n`);
      write(lines.join(""));
    }
    files++;
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

function runSummarize(args: Args): number {
  const out: { path: string; summary: Summary }[] = [];
  let status = EXIT_OK;
  for (const path of args.paths) {
    const summarized = summarizeFile(path, { streamRows: STREAM_CHOICES[args.stream] });
    if (!("summary" in summarized)) {
      process.stderr.write(`${PROG}: ${visible(displayPath(path))}: ${summarized.code}: ${visible(summarized.message)}\n`);
      status = EXIT_UNREADABLE;
      continue;
    }
    out.push({ path: displayPath(path), summary: summarized.summary });
  }
  if (args.format === "json") write(JSON.stringify(out, null, 2) + "\n");
  else {
    for (const { path, summary: s } of out) {
      const rate = s.pass_rate === null ? "n/a" : percent(s.pass_rate);
      write(
        `${visible(path)}: ${s.total} results, ${s.passed} passed, ${s.failed} failed (${s.invalidated} invalidated), ` +
          `${s.errored} errored, ${s.unscored} unscored; pass rate ${rate}\n`,
      );
    }
  }
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
