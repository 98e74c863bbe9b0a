/**
 * A suite's `test_cases_file`: followed relative to the suite file, its test cases checked as inline ones are
 * (mirrors Python's `CasesFile` and `follow`). Each line is a `testcase` document reported as an entry of its own (the file
 * and the line), with the schema, `INVALID_REGEX`, and across the file and the suite `DUPLICATE_ID` and
 * `DANGLING_REFERENCE`. A file that cannot be read is `TEST_CASES_FILE_UNREADABLE` at the suite's `/test_cases_file`.
 */

import { realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { CROSS_CASE_CODES } from "../generated/constants.js";
import type { AnnotatedRule } from "../generated/_annotated.js";
import * as codes from "../generated/rules.js";
import { buildReport, finding, type Finding, type Report } from "../core/findings.js";
import { get, isObject, type JsonObject } from "../core/json.js";
import { loadSources } from "../io/loader.js";
import { render, show } from "../core/messages.js";
import { visible } from "../core/display.js";
import { ARRAY_ITEM, AnnotatedRows, ruleFindings, rulesOf } from "../rules/annotated.js";
import { CaseIndex } from "../rules/crossdoc.js";
import { validate } from "../pipeline.js";

export interface CaseLine {
  line: number;
  report: Report;
  unreadable: boolean;
}

/**
 * What following a suite's `test_cases_file` gave (mirrors Python's `CasesFile`): the file, its readable test cases
 * (whole in `cases`, or only as the cross-document rules need them in `index`), a finding for the suite if the file
 * cannot be read, and one report per line (`lines()`). Memory holds no line's text or document: a line's number,
 * and its report when it has findings.
 */
export class CasesFile {
  readonly cases: JsonObject[] = [];
  index: CaseIndex | null = null;
  private readonly numbers: number[] = []; // each line's number, in order
  private readonly reports = new Map<number, CaseLine>(); // by position in `numbers`: a line with findings
  private plain: Report | null = null; // the report of a line without findings

  constructor(
    readonly path: string | null = null,
    public problem: Finding | null = null,
  ) {}

  add(line: number, report: Report, unreadable: boolean): void {
    if (!unreadable && report.errors.length + report.warnings.length === 0) {
      this.plain ??= report;
      if (report.kind === this.plain.kind && report.valid === this.plain.valid) {
        this.numbers.push(line);
        return;
      }
    }
    this.reports.set(this.numbers.length, { line, report, unreadable });
    this.numbers.push(line);
  }

  /** Each line's report, in order. */
  *lines(): Generator<CaseLine> {
    for (let position = 0; position < this.numbers.length; position++) {
      yield this.reports.get(position) ?? { line: this.numbers[position]!, report: this.plain!, unreadable: false };
    }
  }
}

const ARRAY = "test_cases"; // the suite's member the file's cases stand in for
const PREFIX = `/${ARRAY}/`;
// the suite rules that look across test cases: the file's cases get them as the suite's inline cases do
const ACROSS = new Set<string>(CROSS_CASE_CODES);
const CASE_POINTER = /\/test_cases\/(\d+)(?:\/[^\s)]*)?/g;

/**
 * The suite's `test_cases_file`, relative to the suite's folder, or why it cannot be used (mirrors Python's
 * `cases_path`): it must stay inside that folder (no absolute path, no `..` out of it, no link leading out), so
 * that a suite from elsewhere cannot make us read (and quote) any file on the machine.
 */
export function casesPath(suitePath: string, name: string): { path: string; problem?: undefined } | { path?: undefined; problem: string } {
  const inside = "must be a path inside the suite's folder";
  if (isAbsolute(name) || name.startsWith("\\") || name.split(/[\\/]/).includes("..") || name.includes("\0")) return { problem: inside };
  const folder = dirname(suitePath);
  const target = join(folder, name);
  let root: string;
  try {
    root = realpathSync(folder);
  } catch {
    return { path: target }; // the suite's folder itself is gone: reading the file says so
  }
  let real: string;
  try {
    real = realpathSync(target);
  } catch {
    real = resolve(root, name); // not there (yet): reading it says so
  }
  if (real !== root && !real.startsWith(root.endsWith(sep) ? root : root + sep)) return { problem: "leads out of the suite's folder" };
  return { path: target };
}

/**
 * Read and check the test cases of `suite` (read from `suitePath`) that live in its `test_cases_file`, a line at a
 * time (mirrors Python's `follow`). `keep`: each readable case whole (`cases`); only what the cross-document rules
 * need of them (`index`: memory does not grow with the cases' contents); or none (the lines' reports are all that
 * is wanted).
 */
export function follow(
  suite: unknown,
  suitePath: string,
  options: { strict?: boolean; allowUnknown?: boolean; specVersion?: string | null; keep?: "cases" | "index" | null } = {},
): CasesFile {
  const name = isObject(suite) ? get(suite, "test_cases_file") : undefined;
  if (typeof name !== "string" || name === "" || !isObject(suite)) return new CasesFile();
  const where = casesPath(suitePath, name);
  if (where.problem !== undefined) {
    return new CasesFile(null, finding("/test_cases_file", codes.TEST_CASES_FILE_UNREADABLE, "error", render(codes.TEST_CASES_FILE_UNREADABLE, { name, detail: where.problem })));
  }
  const out = new CasesFile(where.path);
  const keep = options.keep === undefined ? "cases" : options.keep;
  const strict = options.strict ?? false;
  const checked = { kind: "testcase" as const, strict, allowUnknown: options.allowUnknown ?? false, specVersion: options.specVersion ?? null };
  const alone: JsonObject = {};
  for (const [member, value] of Object.entries(suite)) if (member !== ARRAY) alone[member] = value;
  if (keep === "index") out.index = new CaseIndex(alone);
  const across = new Across(alone);
  let first = true;
  for (const loaded of loadSources(where.path, "jsonl")) {
    if (first && loaded.line === undefined && loaded.problem !== undefined) {
      // the file itself cannot be read
      out.problem = finding(
        "/test_cases_file",
        codes.TEST_CASES_FILE_UNREADABLE,
        "error",
        render(codes.TEST_CASES_FILE_UNREADABLE, { name, detail: `${loaded.problem.code}: ${loaded.problem.message}` }, "unreadable"),
      );
      return out;
    }
    first = false;
    const line = loaded.line ?? 0;
    if (loaded.problem !== undefined) {
      out.add(line, buildReport("testcase", [{ ...loaded.problem, line }], false), true);
      continue;
    }
    const report = validate(loaded.document, checked);
    const testCase = loaded.document;
    if (!isObject(testCase)) {
      out.add(line, report, false);
      continue;
    }
    // across the file: the suite's rules over its graders and the cases so far, mapped back to the cases' lines
    const extra = across.check(testCase, line);
    out.add(line, extra.length ? buildReport("testcase", [...report.errors, ...report.warnings, ...extra], strict) : report, false);
    if (out.index !== null) out.index.add(testCase);
    else if (keep === "cases") out.cases.push(testCase);
  }
  return out;
}

/**
 * The suite's rules that look across test cases (CROSS_CASE_CODES) over the cases of its file, one case at a time,
 * as they are read (mirrors Python's `_Across`): the rules judged row by row (a case id unique across the cases: the
 * first of each kept, compact) and those from a case to the suite's own members (a case's graders defined by the
 * suite's). Their findings point inside the case; the earlier case a repeat names becomes its line.
 */
class Across {
  private readonly rows: AnnotatedRows;
  private readonly toSuite: AnnotatedRule[] = [];
  private readonly lines: number[] = []; // the line of each case read so far

  constructor(private readonly alone: JsonObject) {
    const byRow: AnnotatedRule[] = [];
    for (const rule of rulesOf("suite")) {
      const items = rule.keyword === "x-unique" ? rule.items : [];
      const source = rule.keyword === "x-unique" ? [] : rule.source;
      const lands = rule.scope[0] === ARRAY || (rule.scope.length === 0 && (items[0] === ARRAY || source[0] === ARRAY));
      if (!ACROSS.has(rule.rule) || !lands) continue; // findings elsewhere than in a test case: the suite's own report has them
      if (rule.keyword === "x-references" && rule.scope.length === 0 && rule.source[0] === ARRAY && rule.source[1] === ARRAY_ITEM && rule.target[0] !== ARRAY) {
        this.toSuite.push(rule);
      } else byRow.push(rule); // (refused here if it cannot be judged one case at a time)
    }
    this.rows = new AnnotatedRows("suite", ARRAY, byRow);
  }

  check(testCase: JsonObject, line: number): Finding[] {
    const index = this.lines.length;
    this.lines.push(line);
    const found = this.rows.rows([testCase], index).map((f) => ({ ...f, message: this.firstAtLine(f.message) }));
    if (this.toSuite.length) {
      this.alone[ARRAY] = [testCase];
      for (const rule of this.toSuite) found.push(...ruleFindings(rule, this.alone, []));
      delete this.alone[ARRAY];
    }
    // the finding at its pointer inside the case
    const out: Finding[] = [];
    for (const f of found) {
      if (!f.pointer.startsWith(PREFIX)) continue;
      const rest = f.pointer.slice(PREFIX.length);
      const slash = rest.indexOf("/");
      out.push({ ...f, pointer: slash < 0 ? "" : rest.slice(slash) });
    }
    return out;
  }

  /** A repeat's message names the earlier case it repeats by pointer, last (the value it quotes comes before, and
   * is the user's: never rewritten): named by its line instead (mirrors Python's `_first_at_line`). */
  private firstAtLine(said: string): string {
    // `said`: a finding's own message, rendered from the ledger (never a third-party error's)
    const last = [...said.matchAll(CASE_POINTER)].at(-1);
    if (last === undefined || last.index === undefined || Number(last[1]) >= this.lines.length) return said;
    return `${said.slice(0, last.index)}line ${this.lines[Number(last[1])]!}${said.slice(last.index + last[0].length)}`;
  }
}

/**
 * A suite given to the API (`validate(…, { suite })`) whose test cases cannot all be had: its file cannot be read,
 * or an object names a `test_cases_file` but no `base` folder says where that file is (Python's `SuiteError`).
 */
export class SuiteError extends Error {
  override name = "SuiteError";
}

/**
 * The suite as the cross-document rules need it (Python's `suite_in_hand`): a path is read, and a suite whose test
 * cases live in its `test_cases_file` gets them read from that file, relative to the suite's own folder (a path) or
 * to `base` (an object). The CLI's `--suite` does the same; without it every row of a result set would be "unknown
 * test case". Anything else is returned as it is.
 */
export function suiteInHand(suite: unknown, base?: string | null): unknown {
  let path: string | null = null;
  if (typeof suite === "string") {
    path = suite;
    const loaded = [...loadSources(path)];
    const first = loaded[0];
    if (loaded.length !== 1 || first === undefined || first.problem !== undefined || !isObject(first.document)) {
      const problem = first?.problem;
      throw new SuiteError(`suite ${visible(path)}: ${problem ? `${problem.code}: ${problem.message}` : "not one JSON object"}`);
    }
    suite = first.document;
  }
  if (!isObject(suite) || Object.prototype.hasOwnProperty.call(suite, "test_cases") || typeof get(suite, "test_cases_file") !== "string") return suite;
  const name = String(get(suite, "test_cases_file"));
  if (path === null) {
    if (base === undefined || base === null) {
      throw new SuiteError(
        `the suite keeps its test cases in test_cases_file ${show(name)}: give the folder that file is relative to (validate(…, { suite, base: FOLDER })), or the suite's path (suite: PATH)`,
      );
    }
    path = join(base, "suite.json"); // `follow` reads the file relative to the folder the suite is in
  }
  const cases = follow(suite, path);
  if (cases.problem !== null) throw new SuiteError(`${cases.problem.code}: ${cases.problem.message}`);
  for (const line of cases.lines()) {
    if (line.unreadable) {
      const problem = line.report.errors[0]!;
      throw new SuiteError(`${codes.TEST_CASES_FILE_UNREADABLE}: line ${line.line} of the test cases file ${show(name)}: ${problem.code}: ${problem.message}`);
    }
  }
  return { ...suite, test_cases: cases.cases };
}
