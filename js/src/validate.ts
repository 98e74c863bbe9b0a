/** `validate()`: the schema path, the hand-rolled rules, and the version and forward-compatibility policy (mirrors evalschema/validate.py). */

import * as codes from "./generated/rules.js";
import { RULES } from "./generated/rules.js";
import { buildReport, finding, pointer, type Finding, type Report } from "./findings.js";
import { resultsetAgainstSuite as crossdocFindings } from "./crossdoc.js";
import { warningsFor } from "./deprecations.js";
import { identify, parseVersion, type Identity, type Version } from "./identify.js";
import { render, show } from "./messages.js";
import { get, isObject, type JsonObject } from "./json.js";
import { DOCUMENT_RULES } from "./rules.js";
import { check, type SchemaOutcome } from "./schemaPath.js";
import { isKind, KINDS, specVersion, type Kind } from "./schemas.js";
import { summarize, type Summary } from "./summary.js";

import { NO_RESULTS, SUMMARY_TOLERANCE } from "./generated/constants.js";

export { SUMMARY_TOLERANCE };
/** A grader without results, indexable by name. */
const noResults: Readonly<Record<string, unknown>> = NO_RESULTS;

export interface ValidateOptions {
  /** The document kind; detected from `$schema` or shape when not given. */
  kind?: Kind | null;
  /** Report warnings as errors. */
  strict?: boolean;
  /** Report unknown properties as warnings in a document of a newer minor version. */
  allowUnknown?: boolean;
  /** The suite a result set was run from: enables the cross-document rules. */
  suite?: unknown;
}

let messages: Record<string, string> | undefined;

export function ruleMessages(): Record<string, string> {
  if (!messages) {
    messages = {};
    for (const [id, rule] of Object.entries(RULES)) messages[id] = rule.statement;
  }
  return messages;
}

function supported(): Version {
  const version = parseVersion(specVersion());
  if (version === null) throw new Error("the bundled schemas carry a SemVer $id");
  return version;
}

/**
 * Whether a claimed summary value differs from the computed one, compared as JSON values (SPEC §4.5), the same in
 * every language: a number (never a boolean) matches a number within SUMMARY_TOLERANCE, null only null, true and
 * false only themselves; anything else differs.
 */
function differs(claimed: unknown, computed: unknown): boolean {
  if (typeof claimed === "number" && typeof computed === "number") {
    return !(claimed === computed || Math.abs(claimed - computed) <= SUMMARY_TOLERANCE);
  }
  if (typeof claimed === "boolean" || claimed === null || typeof computed === "boolean" || computed === null) return claimed !== computed;
  return true;
}

/** Compare a producer's `summary` with the reference summary, field by field. */
export function* summaryMismatches(resultset: JsonObject): Generator<Finding> {
  const claimed = get(resultset, "summary");
  if (!isObject(claimed)) return;
  yield* summaryMismatchesAgainst(claimed, summarize(resultset));
}

/** Compare a producer's claimed `summary` with a reference summary (of rows read whole or in batches). */
export function* summaryMismatchesAgainst(claimed: unknown, summary: Summary): Generator<Finding> {
  if (!isObject(claimed)) return;
  const reference = summary as unknown as Record<string, unknown>;
  const byGrader = reference["by_grader"] as Record<string, Record<string, unknown>>;
  const mismatch = (tokens: string[], said: unknown, want: unknown): Finding =>
    finding(pointer("summary", ...tokens), codes.SUMMARY_MISMATCH, "warning", render(codes.SUMMARY_MISMATCH, { value: said, expected: want }));
  for (const [field, value] of Object.entries(claimed)) {
    if (field === "by_grader" && isObject(value)) {
      for (const [graderId, totals] of Object.entries(value)) {
        // a grader with no results has zero counts and no average
        const expected = Object.prototype.hasOwnProperty.call(byGrader, graderId) ? byGrader[graderId]! : noResults;
        if (!isObject(totals)) continue;
        for (const [name, number] of Object.entries(totals)) {
          if (Object.prototype.hasOwnProperty.call(expected, name) && differs(number, expected[name])) {
            yield mismatch(["by_grader", graderId, name], number, expected[name]);
          }
        }
      }
    } else if (field === "attempts" && isObject(value)) {
      const expected = (reference["attempts"] ?? {}) as Record<string, unknown>;
      for (const [name, number] of Object.entries(value)) {
        if (Object.prototype.hasOwnProperty.call(expected, name) && differs(number, expected[name])) {
          yield mismatch(["attempts", name], number, expected[name]);
        }
      }
    } else if (Object.prototype.hasOwnProperty.call(reference, field) && field !== "by_grader" && differs(value, reference[field])) {
      yield mismatch([field], value, reference[field]);
    }
  }
}

/** Throws on a kind this specification does not define (a caller's mistake, not a finding). */
export function checkKind(kind: Kind | null): void {
  if (kind !== null && !isKind(kind)) throw new Error(`unknown kind ${show(kind)}; expected one of ${KINDS.join(", ")}`);
}

/**
 * The document's kind and claimed version; and the report, if that alone decides it (not an object, an unknown
 * kind, a newer major version: then nothing else is checked). Mirrors Python's `identified`.
 */
export function identified(document: unknown, kind: Kind | null, strict: boolean): { identity: Identity; decided: Report | null } {
  if (!isObject(document)) {
    const identity: Identity = { kind, version: null, versionPointer: "", findings: [] };
    if (kind === null) {
      const only = finding("", codes.UNKNOWN_KIND, "error", render(codes.UNKNOWN_KIND, { value: document }, "not_object"));
      return { identity, decided: buildReport(null, [only], strict) };
    }
    const only = finding("", codes.TYPE_MISMATCH, "error", render(codes.TYPE_MISMATCH, { value: document, type: "object" }));
    return { identity, decided: buildReport(kind, [only], strict) };
  }
  const identity = identify(document, kind);
  if (identity.kind === null) return { identity, decided: buildReport(null, [...identity.findings], strict) };
  const ours = supported();
  if (identity.version !== null && identity.version[0] > ours[0]) {
    // a newer major may mean anything: say only that, and check nothing else
    const only = finding(
      identity.versionPointer,
      codes.VERSION_UNSUPPORTED,
      "error",
      render(codes.VERSION_UNSUPPORTED, { value: identity.version[0], limit: ours[0], version: specVersion() }),
    );
    return { identity, decided: buildReport(identity.kind, [only], strict) };
  }
  return { identity, decided: null };
}

/** The schema path's findings (unknown fields allowed as warnings in a newer minor version), then deprecations. */
export function* schemaFindings(outcome: SchemaOutcome, identity: Identity, allowUnknown: boolean): Generator<Finding> {
  const kind = identity.kind;
  if (kind === null) throw new Error("schemaFindings needs an identified document");
  const ours = supported();
  const v = identity.version;
  const newerMinor = v !== null && (v[0] > ours[0] || (v[0] === ours[0] && v[1] > ours[1]));
  for (const f of outcome.findings) {
    if (allowUnknown && newerMinor && f.code === codes.UNKNOWN_FIELD) {
      yield { ...f, severity: "warning", message: render(codes.UNKNOWN_FIELD, { reason: f.message }, "allowed") };
    } else yield f;
  }
  yield* warningsFor(outcome.deprecated, kind);
}

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
 * Validate one document: schema rules, hand-rolled rules, deprecations, and (with `suite`) cross-document rules.
 *
 * `kind` is detected from `$schema` or shape when not given. `strict` reports warnings as errors.
 * `allowUnknown` reports unknown properties as warnings in a document of a newer minor version.
 */
export function validate(document: unknown, options: ValidateOptions = {}): Report {
  document = asDocument(document);
  const kind = options.kind ?? null;
  const strict = options.strict ?? false;
  checkKind(kind);
  const { identity, decided } = identified(document, kind, strict);
  if (decided !== null) return decided;
  const doc = document as JsonObject;
  const findings: Finding[] = [...identity.findings];
  const identifiedKind = identity.kind!;
  const outcome = check(doc, identifiedKind, ruleMessages());
  for (const item of schemaFindings(outcome, identity, options.allowUnknown ?? false)) findings.push(item); // no spread: a million findings overflow the stack
  for (const item of DOCUMENT_RULES[identifiedKind](doc)) findings.push(item);
  if (identifiedKind === "resultset") {
    for (const item of summaryMismatches(doc)) findings.push(item);
    if (options.suite !== undefined && options.suite !== null && isObject(options.suite)) {
      for (const item of crossdocFindings(doc, options.suite)) findings.push(item);
    }
  }
  return buildReport(identifiedKind, findings, strict);
}
