/**
 * evalschema: validate and summarize evaluation data against the evalschema specification.
 *
 * ```ts
 * import { validate } from "evalschema";
 * validate({ id: "g1", type: "contains", params: { substring: "ok" } }).valid; // true
 * ```
 */

export { validate, validateJson, type ValidateOptions } from "./pipeline.js";
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
export { validateFile, summarizeFile, STREAM_THRESHOLD, type FileOptions, type Summarized } from "./pipeline.js";
export { compare, type CompareOptions } from "./compare/compare.js";
export * from "./generated/rules.js";
export type * from "./generated/index.js";
// the schema's types by their plain names (`Summary` is the schema's: the computed one is ReferenceSummary)
export type { Result, GraderResult, Runner, Group, ConstraintViolation, ExecutionError, ErrorType, Summary } from "./generated/resultset.js";

export { VERSION } from "./generated/version.js";
