/**
 * The `evalschema-js` command: validate and summarize documents (mirrors the Python `evalschema` command).
 *
 * Exit statuses: 0 every document valid (warnings allowed unless --strict); 1 at least one document invalid;
 * 2 usage error, or at least one input unreadable or unparseable (the others are still checked).
 */

import * as codes from "../generated/rules.js";
import { follow, type CasesFile } from "./casesFile.js";
import { indexedSuite } from "../rules/crossdoc.js";
import { visible } from "../core/display.js";
import { capped, displayPath, entry, findingJson, type Entry } from "../report/entry.js";
import { githubEntry, jsonEntry, painter, textEntry, textSummary, type Totals } from "../report/render.js";
import { attemptText, summaryText } from "../report/summaryText.js";
import { CaseLists, caseLists, renderSummaryHtml } from "../report/summaryHtml.js";
import { checkOutput, writeOutput } from "../io/outputGate.js";
import { summaryMarkdown } from "../report/summaryMarkdown.js";
import { enable as enableProgress } from "../io/progress.js";
import { AttemptTally } from "../compare/compare.js";
import type { AttemptStats } from "../generated/comparison.js";
import { buildReport, finding, type Finding, type Report } from "../core/findings.js";
import { render, show } from "../core/messages.js";
import { expand, isForm, STDIN, SUFFIXES, suffix, type Form } from "../io/expand.js";
import { placed, type Positions } from "../io/positions.js";
import { define, get, has, isObject, type JsonObject } from "../core/json.js";
import { loadSources, loadStdin } from "../io/loader.js";
import { availableReleases, isKind, KINDS, specVersion, type Kind } from "../schemas/schemas.js";
import { checkFile, checkObserved, STREAM_THRESHOLD, validate, validateObserved } from "../pipeline.js";
import type { Stage } from "../core/stage.js";
import { SummaryStage } from "../summary/mismatch.js";
import { VERSION } from "../generated/version.js";
import { EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, INPUT_FORMS, OUTPUT_FORMATS, STREAM_CHOICES } from "../generated/constants.js";
import type { Summary } from "../summary/summary.js";

import { htmlWritable, invalidChoice, PROG, quietStreams, UsageError, write } from "./common.js";
import { COMPARE_USAGE, parseCompare, runCompare, type CompareArgs } from "./compareCmd.js";

export { quietStreams };

interface Args {
  command: "validate" | "summarize";
  paths: string[];
  kind: Kind | null;
  suite: string | null;
  strict: boolean;
  allowUnknown: boolean;
  force: boolean;
  format: (typeof OUTPUT_FORMATS.validate)[number] | (typeof OUTPUT_FORMATS.summarize)[number];
  stream: keyof typeof STREAM_CHOICES;
  inputFormat: Form | null;
  verbose: number;
  quiet: boolean;
  specVersion: string | null;
  html: string | null;
}


const STREAMS = Object.keys(STREAM_CHOICES) as readonly (keyof typeof STREAM_CHOICES)[];
const USAGE = `usage: ${PROG} validate [--kind {${KINDS.join(",")}}] [--suite SUITE] [--strict] [--allow-unknown] [--spec-version VERSION] [--format {${OUTPUT_FORMATS.validate.join(",")}}] [-v | -q] [--input-format {${INPUT_FORMS.join(",")}}] [--stream {${STREAMS.join(",")}}] PATH [PATH ...]
       ${PROG} summarize [--force] [--html FILE] [--format {${OUTPUT_FORMATS.summarize.join(",")}}] [--input-format {${INPUT_FORMS.join(",")}}] [--stream {${STREAMS.join(",")}}] RESULTSET [RESULTSET ...]
       ${COMPARE_USAGE}
       ${PROG} --version`;

function parseArgs(argv: string[]): Args | CompareArgs | "version" | "help" {
  const [command, ...rest] = argv;
  if (command === "-h" || command === "--help") return "help";
  if (command === "--version") return "version";
  if (command === "compare") return parseCompare(rest);
  if (command !== "validate" && command !== "summarize") throw new UsageError(command === undefined ? "the following arguments are required: command" : `invalid choice: '${visible(command)}' (choose from 'validate', 'summarize', 'compare')`);
  const options =
    command === "validate"
      ? ["--kind", "--suite", "--strict", "--allow-unknown", "--spec-version", "--format", "--input-format", "--stream", "--verbose", "--quiet", "--help"]
      : ["--force", "--html", "--format", "--input-format", "--stream", "--help"];
  const takesValue = new Set(["--kind", "--suite", "--spec-version", "--format", "--input-format", "--stream", "--html"]);
  const args: Args = {
    command,
    paths: [],
    kind: null,
    suite: null,
    strict: false,
    allowUnknown: false,
    force: false,
    format: OUTPUT_FORMATS[command][0],
    stream: "auto",
    inputFormat: null,
    verbose: 0,
    quiet: false,
    specVersion: null,
    html: null,
  };
  const formats: readonly string[] = OUTPUT_FORMATS[command];
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
    if (command === "validate" && /^-[vq]+$/.test(arg)) {
      // short flags, bundled as argparse allows (-vv)
      for (const flag of arg.slice(1)) {
        if (flag === "v") args.verbose++;
        else args.quiet = true;
      }
      if (args.quiet && args.verbose) throw new UsageError("argument -q/--quiet: not allowed with argument -v/--verbose");
      continue;
    }
    const eq = arg.indexOf("=");
    const given = eq >= 0 ? arg.slice(0, eq) : arg;
    const matches = options.filter((o) => o === given || o.startsWith(given));
    const name = matches.includes(given) ? given : matches.length === 1 ? matches[0]! : undefined;
    if (name === undefined) throw new UsageError(matches.length > 1 ? `ambiguous option: ${visible(given)}` : `unrecognized arguments: ${visible(arg)}`);
    if (name === "--help") return "help";
    let value: string | undefined;
    if (takesValue.has(name)) {
      value = eq >= 0 ? arg.slice(eq + 1) : rest[++i];
      if (value === undefined) throw new UsageError(`argument ${name}: expected one argument`);
    } else if (eq >= 0) throw new UsageError(`argument ${name}: ignored explicit argument '${visible(arg.slice(eq + 1))}'`);
    if (name === "--kind") {
      if (!isKind(value)) throw invalidChoice("--kind", value, KINDS);
      args.kind = value;
    } else if (name === "--suite") args.suite = value!;
    else if (name === "--spec-version") args.specVersion = value!;
    else if (name === "--format") {
      if (!formats.includes(value!)) throw invalidChoice("--format", value, formats);
      args.format = value as Args["format"];
    } else if (name === "--input-format") {
      if (!isForm(value)) throw invalidChoice("--input-format", value, INPUT_FORMS);
      args.inputFormat = value;
    } else if (name === "--verbose" || name === "--quiet") {
      if (name === "--verbose") args.verbose++;
      else args.quiet = true;
      if (args.quiet && args.verbose) throw new UsageError("argument -q/--quiet: not allowed with argument -v/--verbose");
    } else if (name === "--stream") {
      const stream = STREAMS.find((choice) => choice === value);
      if (stream === undefined) throw invalidChoice("--stream", value, STREAMS);
      args.stream = stream;
    } else if (name === "--strict") args.strict = true;
    else if (name === "--allow-unknown") args.allowUnknown = true;
    else if (name === "--force") args.force = true;
    else if (name === "--html") args.html = value!;
  }
  if (args.paths.length === 0) throw new UsageError(`the following arguments are required: ${command === "validate" ? "PATH" : "RESULTSET"}`);
  return args;
}

/** A suite's entry (with TEST_CASES_FILE_UNREADABLE when its `test_cases_file` cannot be read), then an entry per
 * line of that file (mirrors Python's `_suite_entries`), as they are read unless `cases` were read already. */
function* suiteWithCases(
  path: string,
  suite: unknown,
  report: Report,
  options: Checked,
  positions: () => Positions,
  line?: number,
  cases: CasesFile = follow(suite, path, { ...options, keep: null }),
): Generator<Entry> {
  const own = cases.problem === null ? report : placed(buildReport(report.kind, [...report.errors, ...report.warnings, cases.problem], options.strict), positions());
  // a test cases file that cannot be read makes the suite's entry unreadable (SPEC §3.4: exit 2); a suite on a line
  // of a JSON Lines file is reported at its line, as every other document there
  yield entry(path, own, cases.problem !== null, line);
  for (const { line, report: lineReport, unreadable } of cases.lines()) yield entry(cases.path!, lineReport, unreadable, line);
}

/** Why the test cases a suite keeps in its `test_cases_file` are not all in hand, or null (mirrors Python's
 * `_incomplete_cases`). */
function incompleteCases(suite: JsonObject, cases: CasesFile): string | null {
  if (!has(suite, "test_cases_file") || has(suite, "test_cases")) return null;
  if (cases.path === null && cases.problem === null) return "test_cases_file names no file";
  if (cases.problem !== null) return cases.problem.message;
  for (const bad of cases.lines()) {
    if (!bad.unreadable) continue;
    const problem = bad.report.errors[0]!;
    return `line ${bad.line} of the test cases file ${show(String(get(suite, "test_cases_file")))}: ${problem.code}: ${problem.message}`;
  }
  return null;
}

/** Output gathered into writes of about 64 KiB: a write per document would cost more than validating a small one. */
class Buffered {
  private parts: string[] = [];
  private size = 0;

  add(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= 1 << 16) this.flush();
  }

  flush(): void {
    if (this.parts.length) write(this.parts.join(""));
    this.parts = [];
    this.size = 0;
  }
}

// --- validate ---------------------------------------------------------------------------------------------------

interface Checked {
  strict: boolean;
  allowUnknown: boolean;
  specVersion: string | null;
}

/** The suite given with --suite: its document and the entries of its own findings and its test cases file's. */
function loadSuite(args: Args, checked: Checked): { suite: JsonObject; entries: Entry[] } {
  const path = args.suite!;
  const loaded = [...loadSources(path)];
  const first = loaded[0];
  if (loaded.length !== 1 || first === undefined || first.problem !== undefined || !isObject(first.document)) {
    // as the Python CLI says it: the finding's code, then its message
    const problem = first?.problem;
    throw new UsageError(`--suite ${visible(displayPath(path))}: ${problem ? `${problem.code}: ${visible(problem.message)}` : "not one JSON object"}`, false);
  }
  let suite = first.document;
  // read once, a line at a time; of each case only what the cross-document rules need is kept (its id and graders)
  const cases = follow(suite, path, { ...checked, keep: "index" });
  const incomplete = incompleteCases(suite, cases);
  if (incomplete !== null) {
    // results checked against a suite without its test cases would all be "unknown": a usage error instead
    throw new UsageError(`--suite ${visible(displayPath(path))}: ${codes.TEST_CASES_FILE_UNREADABLE}: ${visible(incomplete)}`, false);
  }
  const report = validate(suite, { kind: "suite", ...checked });
  const own = report.errors.length + report.warnings.length ? placed(report, first.positions()) : report;
  const entries: Entry[] = [];
  for (const e of suiteWithCases(path, suite, own, checked, first.positions, undefined, cases)) {
    if (e.errors.length + e.warnings.length > 0) entries.push(e);
  }
  if (cases.index !== null && !has(suite, "test_cases")) suite = indexedSuite({ ...suite }, cases.index);
  return { suite, entries };
}

/** Whether a source is read by path as one JSON document (by its suffix, or --input-format json). */
function jsonFile(source: string, form: Form | null): boolean {
  return source !== STDIN && (form ?? SUFFIXES[suffix(source)] ?? "json") === "json";
}

/** An entry per document of the given paths (JSON files through `checkFile`: large result sets are read in
 * pieces; stdin, JSON Lines and YAML through the loaders). */
function* entries(args: Args, suite: JsonObject | undefined, checked: Checked): Generator<Entry> {
  const options = { kind: args.kind, ...checked, suite, streamRows: STREAM_CHOICES[args.stream] };
  for (const source of expand(args.paths)) {
    if (jsonFile(source, args.inputFormat)) {
      const file = checkFile(source, options);
      if (!file.unreadable && file.report.kind === "suite") {
        const [loaded] = loadSources(source, "json");
        yield* suiteWithCases(source, loaded!.document, file.report, checked, loaded!.positions);
        continue;
      }
      yield entry(source, file.report, file.unreadable);
      continue;
    }
    for (const loaded of source === STDIN ? loadStdin(args.inputFormat) : loadSources(source, args.inputFormat)) {
      if (loaded.problem !== undefined) {
        yield entry(loaded.path, buildReport(args.kind, [loaded.problem], false), true, loaded.line);
        continue;
      }
      let report = validate(loaded.document, options);
      if (report.errors.length + report.warnings.length) report = placed(report, loaded.positions());
      if (report.kind === "suite" && source !== STDIN) {
        yield* suiteWithCases(source, loaded.document, report, checked, loaded.positions, loaded.line);
        continue;
      }
      yield entry(loaded.path, report, false, loaded.line);
    }
  }
}

function runValidate(args: Args): number {
  if (args.specVersion !== null && !availableReleases().includes(args.specVersion)) {
    throw new UsageError(`--spec-version ${visible(args.specVersion)}: no such release; available: ${availableReleases().join(", ")}`, false);
  }
  const checked: Checked = { strict: args.strict, allowUnknown: args.allowUnknown, specVersion: args.specVersion };
  const { suite, entries: suiteEntries } = args.suite !== null ? loadSuite(args, checked) : { suite: undefined, entries: [] };
  const given = new Set([...expand(args.paths)].filter((p) => p !== STDIN).map(displayPath));
  const paint = painter();
  const verbosity = args.quiet ? -1 : args.verbose;
  // each entry is written as soon as it is known: memory does not grow with the number of documents
  const totals: Totals = { files: 0, valid: 0, invalid: 0, unreadable: 0 };
  let errors = 0;
  let warnings = 0;
  let omitted = 0;
  const out = new Buffered();
  // the suite's own findings come first, unless the suite is among the paths (and so reported anyway)
  const first = suiteEntries.filter((e) => !given.has(e.path));
  const all = (function* (): Generator<Entry> {
    yield* first;
    yield* entries(args, suite, checked);
  })();
  for (const e of all) {
    if (e.unreadable) totals.unreadable++;
    else if (!e.valid) totals.invalid++;
    else totals.valid++;
    const shown = capped(e);
    errors += shown.errors.length;
    warnings += shown.warnings.length;
    omitted += shown.omitted;
    if (args.format === "json") out.add((totals.files === 0 ? '{\n  "files": [\n' : ",\n") + jsonEntry(e, shown));
    else if (args.format === "github") out.add(githubEntry(e, shown));
    else out.add(textEntry(e, shown, paint, verbosity));
    totals.files++;
  }
  out.flush();
  if (!totals.files) throw new UsageError("no documents found in the given paths", false);
  if (args.format === "json") {
    // as Python's json.dumps writes it
    write(`\n  ],\n  "summary": {"files": ${totals.files}, "valid": ${totals.valid}, "invalid": ${totals.invalid}, "unreadable": ${totals.unreadable}}\n}\n`);
  } else if (args.format === "text" && verbosity >= 0) write(textSummary(totals, errors, warnings, paint, omitted));
  if (totals.unreadable) return EXIT_UNREADABLE;
  return totals.invalid ? EXIT_INVALID : EXIT_OK;
}

/**
 * The reference summary of each result set. One that is not a valid result set is refused: its findings are
 * printed and the exit status is 1 (its numbers could be ones the specification makes impossible); `--force`
 * prints them anyway, under a warning. Text and JSON as the Python command writes them (its
 * summarize command, `render_text`, `attempt_text`).
 */
function runSummarize(args: Args): number {
  const results: Summarized[] = [];
  const refused: Entry[] = [];
  const omitted = new Map<Entry, number>();
  const invalid = new Map<string, number>();
  let status: number = EXIT_OK;
  // --html: the target is checked before any work; the case lists are gathered in the one reading
  const lists = new Map<string, CaseLists>();
  const html = args.html;
  if (html !== null && !htmlWritable(() => checkOutput(html, visible))) return EXIT_UNREADABLE;
  /** Whether to summarize a result set of this report (a refused one is recorded whether or not --force). */
  const admit = (label: string, path: string, line: number | undefined, report: Report): boolean => {
    if (report.valid) return true;
    status = Math.max(status, EXIT_INVALID);
    const e = entry(path, report, false, line);
    const shown = capped(e);
    const kept: Entry = { ...e, errors: shown.errors, warnings: shown.warnings };
    refused.push(kept);
    omitted.set(kept, shown.omitted);
    invalid.set(label, shown.errors.length);
    return args.force;
  };
  const unreadable = (label: string, problem: Finding): void => {
    process.stderr.write(`${PROG}: ${visible(label)}: ${problem.code}: ${visible(problem.message)}\n`);
    status = EXIT_UNREADABLE;
  };
  for (const path of expand(args.paths)) {
    if (!jsonFile(path, args.inputFormat)) {
      // YAML, JSON Lines (a result set per line) and stdin: read whole, through the loaders
      for (const loaded of path === STDIN ? loadStdin(args.inputFormat) : loadSources(path, args.inputFormat)) {
        const label = displayPath(loaded.path) + (loaded.line ? `:${loaded.line}` : "");
        if (loaded.problem !== undefined || !isObject(loaded.document)) {
          unreadable(displayPath(loaded.path), loaded.problem ?? finding("", codes.TYPE_MISMATCH, "error", render(codes.TYPE_MISMATCH, {}, "not_object")));
          continue;
        }
        // the summary is built in the pass that checks the document
        const summary = new SummaryStage(false);
        let report = validateObserved(loaded.document, { kind: "resultset" }, [summary]);
        if (report.errors.length + report.warnings.length) report = placed(report, loaded.positions());
        if (!admit(label, loaded.path, loaded.line, report)) continue;
        const fields: JsonObject = {};
        for (const [key, value] of Object.entries(loaded.document)) if (key !== "results") define(fields, key, value);
        // attempt statistics only for a JSON file read by path, as the Python command gives them
        results.push({ label, fields, summary: summary.summary(get(fields, "graders")), tally: null });
        if (html !== null) lists.set(label, caseLists(loaded.document));
      }
      continue;
    }
    const label = displayPath(path);
    // the file is read once: checked, and its summary and attempt statistics built from the same rows
    let watched: { summary: SummaryStage; tally: AttemptTally; cases: CaseLists } | null = null;
    const observe = (): Stage[] => {
      watched = { summary: new SummaryStage(false), tally: new AttemptTally(), cases: new CaseLists() };
      return html !== null ? [watched.summary, watched.tally, watched.cases] : [watched.summary, watched.tally];
    };
    const checked = checkObserved(path, { kind: "resultset", streamRows: STREAM_CHOICES[args.stream] }, observe);
    // a file that cannot be read, or holds no JSON object, has nothing to summarize at all (exit 2)
    const notObject = checked.report.errors.find((f) => f.pointer === "" && f.code === codes.TYPE_MISMATCH);
    const problem = checked.unreadable ? checked.report.errors[0] : notObject;
    if (problem !== undefined || checked.observed === null || watched === null) {
      unreadable(label, problem ?? finding("", codes.TYPE_MISMATCH, "error", render(codes.TYPE_MISMATCH, {}, "not_object")));
      continue;
    }
    if (!admit(label, path, undefined, checked.report)) continue;
    const { summary, tally, cases } = watched as { summary: SummaryStage; tally: AttemptTally; cases: CaseLists };
    results.push({ label, fields: checked.observed.fields, summary: summary.summary(get(checked.observed.fields, "graders")), tally });
    if (html !== null) lists.set(label, cases);
  }
  // nothing to show (every result set refused): the target is left as it was
  if (html !== null && (results.length || !refused.length) && !htmlWritable(() => writeOutput(html, renderSummaryHtml(results, invalid, lists), visible))) return EXIT_UNREADABLE;
  // pass@k, pass^k and the flip rate of each result set whose rows carry `attempt` (SPEC §12.5)
  const attempts = new Map<string, AttemptStats>();
  for (const r of results) if (r.tally !== null && r.summary.attempts !== undefined && r.summary.attempts !== null) attempts.set(r.label, r.tally.statistics());
  if (args.format === "markdown") {
    write(summaryMarkdown(results, attempts, refused, omitted, invalid, args.force));
    return status;
  }
  if (args.format === "json") {
    const payload: Record<string, unknown>[] = results.map((r) => ({
      path: r.label,
      valid: !invalid.has(r.label),
      summary: r.summary,
      ...(attempts.has(r.label) ? { attempt_statistics: attempts.get(r.label) } : {}),
    }));
    if (!args.force) for (const e of refused) payload.push({ path: e.path, valid: false, errors: e.errors.map(findingJson) });
    write(JSON.stringify(payload, null, 2) + "\n");
    return status;
  }
  const paint = painter();
  let text = "";
  if (refused.length) {
    for (const e of refused) text += textEntry(e, { errors: e.errors, warnings: e.warnings, omitted: 0 }, paint, -1);
    const verdict = args.force ? "summarized anyway (--force)" : "not summarized (use --force to see the numbers anyway)";
    text += `${refused.length} invalid result set(s): ${verdict}\n\n`;
  }
  write(text + summaryText(results, paint, invalid) + attemptText(attempts));
  return status;
}

/** Run a check or write of the --html target; false (the reason printed, as Python's output gate says it) if refused. */

interface Summarized {
  label: string;
  fields: JsonObject;
  summary: Summary;
  tally: AttemptTally | null;
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
  const quiet = typeof args === "object" && "quiet" in args && args.quiet;
  // a terminal watches: long reads show how far they are (io/progress.ts)
  if (process.stderr.isTTY && process.env.TERM !== "dumb" && !quiet) enableProgress(process.stderr);
  try {
    return run(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${PROG}: ${error.message}\n`);
    return EXIT_UNREADABLE;
  }
}

function run(args: ReturnType<typeof parseArgs>): number {
  if (args === "version") {
    write(`${PROG} ${VERSION} (spec ${specVersion()})\n`);
    return EXIT_OK;
  }
  if (args === "help") {
    write(
      `${USAGE}\n\nValidate, summarize and compare evalschema documents.\n\n` +
        `--stream: read result sets in pieces, memory bounded by a batch of rows (auto: JSON files of ${Math.floor(STREAM_THRESHOLD / 2 ** 20)} MiB or more; the report is the same)\n`,
    );
    return EXIT_OK;
  }
  if (args.command === "compare") return runCompare(args);
  return args.command === "validate" ? runValidate(args) : runSummarize(args);
}

