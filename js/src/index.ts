/**
 * evalschema: validate and summarize evaluation data against the evalschema specification.
 *
 * ```ts
 * import { validate } from "evalschema";
 * validate({ id: "g1", type: "contains", params: { substring: "ok" } }).valid; // true
 * ```
 */

export { validate, summaryMismatches, type ValidateOptions } from "./validate.js";
export { summarize, classify, type Summary, type GraderSummary, type AttemptSummary, type Outcome } from "./summary.js";
export { buildReport, pointer, type Finding, type Report, type Severity } from "./findings.js";
export { render, show, template, PARAMETERS, type Params } from "./messages.js";
export { identify, kindFromShape, parseVersion, type Identity } from "./identify.js";
export { KINDS, isKind, specVersion, type Kind } from "./schemas.js";
export { parseJson, loadPath, type Loaded } from "./loader.js";
export { validateFile, summarizeFile, STREAM_THRESHOLD, type FileOptions, type Summarized } from "./streaming.js";
export { compare, type CompareOptions } from "./compare.js";
export * from "./generated/rules.js";
export type * from "./generated/index.js";

export { VERSION } from "./generated/version.js";
