/**
 * The engine's part of the pipeline: identifying a document (kind, claimed version: what alone may decide the
 * report) and the schema stage — the JSON Schema path over the members and rows, then unknown fields allowed in a
 * newer minor version, then deprecations (mirrors Python's `identified` and `schema_findings`).
 */

import { buildReport, finding, type Finding, type Report } from "../core/findings.js";
import { render, show } from "../core/messages.js";
import type { Members, Stage } from "../core/stage.js";
import { RULES } from "../generated/rules.js";
import * as codes from "../generated/rules.js";
import { isObject } from "../core/json.js";
import { isKind, KINDS, specVersion, type Kind } from "../schemas/schemas.js";
import { warningsFor } from "./deprecations.js";
import { identify, parseVersion, type Identity, type Version } from "../schemas/identify.js";
import { check, checkRows, type DeprecatedUse, type SchemaOutcome } from "./schemaPath.js";

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

function append<T>(target: T[], items: Iterable<T>): void {
  for (const item of items) target.push(item); // no spread: a million findings overflow the stack
}

/**
 * The schema stage. Read whole (`whole`), the members are the whole document: one validation of it, rows included.
 * Read in pieces, each batch of rows is validated against the rows' subschema (which judges each row on its own:
 * `rowsStandAlone`) and the members as a document whose `results` is empty. `identity` must be set before `finish`.
 */
export class SchemaStage implements Stage {
  identity: Identity | null = null;
  private readonly own: SchemaOutcome = { findings: [], deprecated: [] };
  private readonly rowFindings: Finding[] = [];
  private readonly rowDeprecated: DeprecatedUse[] = [];

  constructor(
    private readonly kind: Kind,
    private readonly whole: boolean,
    private readonly allowUnknown: boolean,
    private readonly array = "results",
  ) {}

  envelope(members: Members): Finding[] {
    const outcome = check(members, this.kind, ruleMessages());
    append(this.own.findings, outcome.findings);
    append(this.own.deprecated, outcome.deprecated);
    return [];
  }

  rows(batch: readonly unknown[], start: number): Finding[] {
    if (this.whole) return []; // validated with the members
    const outcome = checkRows(batch, start, this.kind, this.array, ruleMessages());
    append(this.rowFindings, outcome.findings);
    append(this.rowDeprecated, outcome.deprecated);
    return [];
  }

  finish(): Iterable<Finding> {
    if (this.identity === null) throw new Error("SchemaStage.finish needs the document's identity");
    const combined: SchemaOutcome = { findings: this.own.findings, deprecated: this.own.deprecated };
    append(combined.findings, this.rowFindings);
    append(combined.deprecated, this.rowDeprecated);
    return schemaFindings(combined, this.identity, this.allowUnknown);
  }
}
