/**
 * evalschema: validate and summarize evaluation data against the evalschema specification.
 *
 * ```ts
 * import { validate } from "evalschema";
 * validate({ id: "g1", type: "contains", params: { substring: "ok" } }).valid; // true
 * ```
 */

import { validate as validateDocument, validateJson as validateText, validateFile as validatePath, type FileOptions, type ValidateOptions } from "./pipeline.js";
import type { Report } from "./core/findings.js";
import { suiteInHand } from "./cli/casesFile.js";

export type { ValidateOptions };
export { SuiteError } from "./cli/casesFile.js";

/** Where a suite given as an object keeps its `test_cases_file`: the folder that file is relative to. */
export interface SuiteBase {
  /** The folder a suite object's `test_cases_file` is relative to (a suite given as a path needs none). */
  base?: string | null;
}

/**
 * Validate one document: schema rules, code rules, deprecations, and (with `suite`) cross-document rules.
 * `suite` is a suite document or the path of one; its `test_cases_file` is followed (relative to the suite's
 * folder, or to `base` for a suite given as an object), and a `SuiteError` says why when it cannot be.
 */
export function validate(document: unknown, options: ValidateOptions & SuiteBase = {}): Report {
  return validateDocument(document, { ...options, suite: suiteInHand(options.suite, options.base) });
}

/** Parse strict JSON and validate it, in one call (`suite` and `base` as for `validate`). */
export function validateJson(text: string, options: ValidateOptions & SuiteBase = {}): Report {
  return validateText(text, { ...options, suite: suiteInHand(options.suite, options.base) });
}

/** Read one JSON file and validate it; every finding carries its line and column (`suite` and `base` as for `validate`). */
export function validateFile(path: string, options: FileOptions & SuiteBase = {}): Report {
  return validatePath(path, { ...options, suite: suiteInHand(options.suite, options.base) });
}
export { summaryMismatches } from "./summary/mismatch.js";
export { summarize, classify, type GraderSummary, type AttemptSummary, type Outcome } from "./summary/summary.js";
/** The reference summary `summarize` computes (every field present): not `Summary`, the schema's type of the
 * summary a result set may carry. */
export type { Summary as ReferenceSummary } from "./summary/summary.js";
export { buildReport, pointer, type Finding, type Report, type Severity } from "./core/findings.js";
export { render, show, template, PARAMETERS, type Params } from "./core/messages.js";
export { identify, kindFromShape, parseVersion, type Identity } from "./schemas/identify.js";
export { KINDS, isKind, specVersion, availableReleases, type Kind } from "./schemas/schemas.js";
export { parseJson, loadPath, type Loaded } from "./io/loader.js";
export { summarizeFile, STREAM_THRESHOLD, type FileOptions, type Summarized } from "./pipeline.js";
export { compare, type CompareOptions } from "./compare/compare.js";
export * from "./generated/rules.js";
export type * from "./generated/index.js";
// the schema's types by their plain names (`Summary` is the schema's: the computed one is ReferenceSummary)
export type { Result, GraderResult, Runner, Group, ConstraintViolation, ExecutionError, ErrorType, Summary } from "./generated/resultset.js";

export { VERSION } from "./generated/version.js";
