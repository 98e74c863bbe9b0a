/** A report's entry per document, as both renderers and the command build it: its path (as Python prints a
 * path), its line in a JSON Lines file, whether it could be read, and its findings capped at MAX_FINDINGS. */

import type { Finding, Report } from "../core/findings.js";
import { MAX_FINDINGS } from "../core/limits.js";

/** `str(pathlib.Path(p))`: collapse repeated slashes, drop `.` parts and a trailing slash. */
export function displayPath(path: string): string {
  if (path === "") return ".";
  const leading = path.startsWith("//") && !path.startsWith("///") ? "//" : path.startsWith("/") ? "/" : "";
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  const out = leading + parts.join("/");
  return out === "" ? "." : out;
}

export type Entry = { path: string; unreadable: boolean; line?: number } & Report;

export function entry(path: string, report: Report, unreadable: boolean, line?: number): Entry {
  return { path: displayPath(path), unreadable, ...(line !== undefined ? { line } : {}), ...report };
}

/** The findings of an entry a report shows (errors first), and how many were left out. */
export interface Shown {
  errors: Finding[];
  warnings: Finding[];
  omitted: number;
}

export function findingJson(f: Finding): Record<string, unknown> {
  const out: Record<string, unknown> = { code: f.code, severity: f.severity, pointer: f.pointer, message: f.message };
  if (f.line !== undefined) out["line"] = f.line;
  if (f.column !== undefined) out["column"] = f.column;
  return out;
}

/** At most MAX_FINDINGS findings of an entry (errors first), and how many were left out. */
export function capped(e: Entry): Shown {
  const errors = e.errors.slice(0, MAX_FINDINGS);
  const warnings = e.warnings.slice(0, MAX_FINDINGS - errors.length);
  return { errors, warnings, omitted: e.errors.length + e.warnings.length - errors.length - warnings.length };
}
