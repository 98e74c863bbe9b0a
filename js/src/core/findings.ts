/** Findings and reports: the one shape every validation path returns (mirrors Python's `Finding` and `Report`). */

export type Severity = "error" | "warning";

export interface Finding {
  code: string;
  severity: Severity;
  pointer: string;
  message: string;
  line?: number;
  column?: number;
}

export interface Report {
  kind: string | null;
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** Escape one reference token for an RFC 6901 JSON Pointer. */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Build an RFC 6901 JSON Pointer from unescaped tokens (no tokens: the root, ""). */
export function pointer(...tokens: (string | number)[]): string {
  return tokens.map((t) => "/" + escapeToken(t)).join("");
}

/** Split a JSON Pointer into unescaped tokens. */
export function tokens(ptr: string): string[] {
  if (ptr === "") return [];
  return ptr.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

export function finding(ptr: string, code: string, severity: Severity, message: string, line?: number, column?: number): Finding {
  const out: Finding = { code, severity, pointer: ptr, message };
  if (line !== undefined) out.line = line;
  if (column !== undefined) out.column = column;
  return out;
}

/** Compare strings by Unicode code point, as Python does. */
export function compareCodePoints(a: string, b: string): number {
  const left = Array.from(a);
  const right = Array.from(b);
  const n = Math.min(left.length, right.length);
  for (let i = 0; i < n; i++) {
    const x = left[i]!.codePointAt(0)!;
    const y = right[i]!.codePointAt(0)!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return left.length - right.length;
}

/** Reading order: placed findings by line and column, the rest after them; then pointer, code, severity. */
export function readingOrder(a: Finding, b: Finding): number {
  const placedA = a.line !== undefined ? 0 : 1;
  const placedB = b.line !== undefined ? 0 : 1;
  return (
    placedA - placedB ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    compareCodePoints(a.pointer, b.pointer) ||
    compareCodePoints(a.code, b.code) ||
    compareCodePoints(a.severity, b.severity)
  );
}

/** Deduplicate by (code, pointer, severity), apply strict mode, and order by position (line, column), then pointer
 * and code; findings without a position (a document given as data) come by pointer. Of findings that repeat a
 * (code, pointer, severity), the one whose message comes first by code point is kept: engines report failures in
 * different orders, and the choice must not depend on it. */
export function buildReport(kind: string | null, findings: Iterable<Finding>, strict: boolean): Report {
  const unique = new Map<string, Finding>();
  for (let f of findings) {
    if (strict && f.severity === "warning") f = { ...f, severity: "error" };
    const key = JSON.stringify([f.pointer, f.code, f.severity]);
    const kept = unique.get(key);
    if (kept === undefined || compareCodePoints(f.message, kept.message) < 0) unique.set(key, f);
  }
  const ordered = [...unique.values()].sort(readingOrder);
  const errors = ordered.filter((f) => f.severity === "error");
  const warnings = ordered.filter((f) => f.severity === "warning");
  return { kind, valid: errors.length === 0, errors, warnings };
}
