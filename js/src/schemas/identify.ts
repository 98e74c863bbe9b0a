/** Which kind of document this is, and which version of the specification it claims (mirrors Python's `identify`). */

import * as codes from "../generated/rules.js";
import { finding, pointer, type Finding } from "../core/findings.js";
import { render } from "../core/messages.js";
import { get, has, isObject } from "../core/json.js";
import { isKind, type Kind } from "./schemas.js";
import { EVALPORT_SCHEMA_URI, KIND_TELLTALES, PROMPTPACK_SCHEMA_URI, SCHEMA_URI, SEMVER_PREFIX, URI_VERSION } from "../generated/constants.js";

export type Version = readonly [number, number, number];

/** Every pattern here is matched against the whole string, as in every SDK. */
const whole = (source: string): RegExp => new RegExp(`^(?:${source})$`);
const OURS = whole(SCHEMA_URI);
// The formats evalschema stays wire-compatible with: their documents carry their own $schema URIs.
const EVALPORT = whole(EVALPORT_SCHEMA_URI);
const PROMPTPACK = whole(PROMPTPACK_SCHEMA_URI);
const SEMVER_RE = whole(SEMVER_PREFIX);
const URI_VERSION_RE = whole(URI_VERSION);

export interface Identity {
  kind: Kind | null;
  version: Version | null;
  versionPointer: string;
  findings: Finding[];
}

export function parseVersion(text: string): Version | null {
  const m = SEMVER_RE.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/** Detect the kind from one telltale property, checked in this order (SPEC.md, "Identification"). */
export function kindFromShape(document: Record<string, unknown>): Kind | null {
  for (const [kind, telltales] of Object.entries(KIND_TELLTALES)) {
    if (telltales.some((name) => has(document, name))) return kind as Kind;
  }
  return null;
}

/** Kind (given, from `$schema`, or from shape) and claimed spec version, with any findings. */
export function identify(document: unknown, kind: Kind | null): Identity {
  if (!isObject(document)) return { kind, version: null, versionPointer: "", findings: [] };
  const findings: Finding[] = [];
  let schemaKind: Kind | null = null;
  let schemaVersion: Version | null = null;
  const declared = get(document, "$schema");
  if (typeof declared === "string") {
    const ours = OURS.exec(declared);
    const evalport = EVALPORT.exec(declared);
    if (ours && isKind(ours.groups!["kind"]) && URI_VERSION_RE.test(ours.groups!["version"]!)) {
      schemaKind = ours.groups!["kind"];
      schemaVersion = parseVersion(ours.groups!["version"]!);
    } else if (evalport) {
      schemaKind = evalport.groups!["kind"] as Kind;
    } else if (PROMPTPACK.test(declared)) {
      schemaKind = "pack";
    } else {
      findings.push(
        finding(
          pointer("$schema"),
          codes.UNKNOWN_SCHEMA,
          "error",
          render(codes.UNKNOWN_SCHEMA, { value: declared }),
        ),
      );
    }
  }
  const resolved = kind ?? schemaKind ?? kindFromShape(document);
  if (resolved === null) {
    findings.push(finding("", codes.UNKNOWN_KIND, "error", render(codes.UNKNOWN_KIND)));
  }
  let version = schemaVersion;
  let where = pointer("$schema");
  const claimed = get(document, "version");
  if ((resolved === "suite" || resolved === "resultset") && typeof claimed === "string") {
    const parsed = parseVersion(claimed);
    if (parsed !== null) {
      version = parsed;
      where = pointer("version");
    }
  }
  return { kind: resolved, version, versionPointer: where, findings };
}
