/**
 * A suite's `test_cases_file`: followed relative to the suite file, its test cases checked as inline ones are
 * (mirrors Python's `CasesFile` and `follow`). Each line is a `testcase` document reported as an entry of its own (the file
 * and the line), with the schema, `INVALID_REGEX`, and across the file and the suite `DUPLICATE_ID` and
 * `DANGLING_REFERENCE`. A file that cannot be read is `TEST_CASES_FILE_UNREADABLE` at the suite's `/test_cases_file`.
 */

import { realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { CROSS_CASE_CODES } from "../generated/constants.js";
import * as codes from "../generated/rules.js";
import { buildReport, finding, type Finding, type Report } from "../core/findings.js";
import { get, isObject, type JsonObject } from "../core/json.js";
import { loadSources, parseJson, readText } from "../io/loader.js";
import { render, show } from "../core/messages.js";
import { visible } from "../core/display.js";
import { annotatedRules } from "../rules/annotated.js";
import { validate } from "../pipeline.js";

export interface CaseLine {
  line: number;
  report: Report;
  unreadable: boolean;
}

export interface CasesFile {
  path: string | null;
  cases: JsonObject[];
  problem: Finding | null;
  lines: CaseLine[];
}

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

export function follow(suite: unknown, suitePath: string, options: { strict?: boolean; allowUnknown?: boolean; specVersion?: string | null } = {}): CasesFile {
  const name = isObject(suite) ? get(suite, "test_cases_file") : undefined;
  const out: CasesFile = { path: null, cases: [], problem: null, lines: [] };
  if (typeof name !== "string" || name === "" || !isObject(suite)) return out;
  const where = casesPath(suitePath, name);
  if (where.problem !== undefined) {
    out.problem = finding("/test_cases_file", codes.TEST_CASES_FILE_UNREADABLE, "error", render(codes.TEST_CASES_FILE_UNREADABLE, { name, detail: where.problem }));
    return out;
  }
  const path = where.path;
  out.path = path;
  const text = readText(path);
  if (typeof text !== "string") {
    out.problem = finding(
      "/test_cases_file",
      codes.TEST_CASES_FILE_UNREADABLE,
      "error",
      render(codes.TEST_CASES_FILE_UNREADABLE, { name, detail: `${text.code}: ${text.message}` }, "unreadable"),
    );
    return out;
  }
  const readable: { line: number; document: JsonObject; slot: number }[] = [];
  const rows = text.split("\n");
  rows.forEach((raw, index) => {
    const row = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (row.trim() === "") return;
    const line = index + 1;
    const loaded = parseJson(row);
    if (loaded.problem !== undefined) {
      out.lines.push({ line, report: buildReport("testcase", [{ ...loaded.problem, line }], false), unreadable: true });
      return;
    }
    const report = validate(loaded.document, { kind: "testcase", strict: options.strict ?? false, allowUnknown: options.allowUnknown ?? false, specVersion: options.specVersion ?? null });
    out.lines.push({ line, report, unreadable: false });
    if (isObject(loaded.document)) {
      out.cases.push(loaded.document);
      readable.push({ line, document: loaded.document, slot: out.lines.length - 1 });
    }
  });
  // across the file: the suite's rules over its graders and these cases, mapped back to each case's line
  const combined: JsonObject = { graders: get(suite, "graders") ?? [], test_cases: readable.map((r) => r.document) };
  const across = new Map<number, Finding[]>();
  for (const f of annotatedRules("suite", combined)) {
    if (!ACROSS.has(f.code) || !f.pointer.startsWith("/test_cases/")) continue;
    const rest = f.pointer.slice("/test_cases/".length);
    const slash = rest.indexOf("/");
    const index = Number(slash < 0 ? rest : rest.slice(0, slash));
    const message = firstAtLine(f.message, readable);
    const list = across.get(index) ?? [];
    list.push({ ...f, pointer: slash < 0 ? "" : rest.slice(slash), message });
    across.set(index, list);
  }
  for (const [index, extra] of across) {
    const slot = readable[index]!.slot;
    const report = out.lines[slot]!.report;
    out.lines[slot] = { ...out.lines[slot]!, report: buildReport("testcase", [...report.errors, ...report.warnings, ...extra], options.strict ?? false) };
  }
  return out;
}

/** A repeat's message names the earlier case it repeats by pointer, last (the value it quotes comes before, and is
 * the user's: never rewritten): named by its line instead (mirrors Python's `_first_at_line`). */
function firstAtLine(said: string, readable: { line: number }[]): string {
  // `said`: a finding's own message, rendered from the ledger (never a third-party error's)
  const last = [...said.matchAll(CASE_POINTER)].at(-1);
  if (last === undefined || last.index === undefined || Number(last[1]) >= readable.length) return said;
  return `${said.slice(0, last.index)}line ${readable[Number(last[1])]!.line}${said.slice(last.index + last[0].length)}`;
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
  for (const line of cases.lines) {
    if (line.unreadable) {
      const problem = line.report.errors[0]!;
      throw new SuiteError(`${codes.TEST_CASES_FILE_UNREADABLE}: line ${line.line} of the test cases file ${show(name)}: ${problem.code}: ${problem.message}`);
    }
  }
  return { ...suite, test_cases: cases.cases };
}
