/** The report's renderers: text, JSON and GitHub workflow commands, each escaping for its medium, as the Python
 * command writes them (its `text_entry`, `json_entry`, `github_entry`). */

import { visible } from "../core/display.js";
import { compareCodePoints, type Finding } from "../core/findings.js";
import { shorten } from "../core/limits.js";
import { ROOT_LABEL } from "../generated/constants.js";
import { findingJson, type Entry, type Shown } from "./entry.js";

export type Paint = (text: string, code: string) => string;

export function painter(): Paint {
  const colour = process.stdout.isTTY === true && process.env["NO_COLOR"] === undefined && process.env["TERM"] !== "dumb";
  return colour ? (text, code) => `\x1b[${code}m${text}\x1b[0m` : (text) => text;
}

export function where(pointer: string): string {
  return pointer ? visible(shorten(pointer)) : ROOT_LABEL;
}

/** Python's `f"{n:,}"`. */
export function grouped(n: number): string {
  return n.toLocaleString("en-US");
}

/** Text findings come by position, then pointer and code (Python's `_text_entry` ordering). */
export function textOrder(a: Finding, b: Finding): number {
  return (
    (a.line === undefined ? 1 : 0) - (b.line === undefined ? 1 : 0) ||
    (a.line ?? 0) - (b.line ?? 0) ||
    (a.column ?? 0) - (b.column ?? 0) ||
    compareCodePoints(a.pointer, b.pointer) ||
    compareCodePoints(a.code, b.code)
  );
}

/** A file's findings in reading order (`verbosity` -1: errors only; 1: a line for a valid file too). */
export function textEntry(e: Entry, shown: Shown, paint: Paint, verbosity: number): string {
  const findings = verbosity < 0 ? [...shown.errors] : [...shown.errors, ...shown.warnings];
  const label = visible(e.path) + (e.line !== undefined ? ` (line ${e.line})` : "");
  const kind = e.kind ? `  [${e.kind}]` : "";
  if (!findings.length) {
    if (verbosity > 0) return label + kind + "  " + paint(e.valid ? "valid" : "invalid", e.valid ? "32" : "31") + "\n";
    return "";
  }
  const lines = [paint(label, "1") + kind];
  for (const f of findings.sort(textOrder)) {
    const position = f.line !== undefined ? `${f.line}:${f.column || 1}` : "-";
    const severity = f.severity === "error" ? paint("error", "31") : paint("warning", "33");
    lines.push(`  ${position.padStart(9)}  ${severity}  ${paint(f.code, "36")}  ${where(f.pointer)}  ${visible(f.message)}`);
  }
  if (shown.omitted) lines.push(`  … ${grouped(shown.omitted)} more finding(s) not shown`);
  return lines.join("\n") + "\n";
}

export interface Totals {
  files: number;
  valid: number;
  invalid: number;
  unreadable: number;
}

export function textSummary(totals: Totals, errors: number, warnings: number, paint: Paint, omitted = 0): string {
  const summary =
    `${totals.files} document(s): ${totals.valid} valid, ${totals.invalid} invalid, ${totals.unreadable} unreadable; ` +
    `${errors} error(s), ${warnings} warning(s)` +
    (omitted ? `, ${grouped(omitted)} more not shown` : "");
  return paint(summary, totals.invalid + totals.unreadable === 0 ? "32" : "31") + "\n";
}

/** GitHub workflow-command escaping: a message cannot end its command or start another. */
export function escapeData(text: string): string {
  return visible(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

export function githubEntry(e: Entry, shown: Shown): string {
  const lines: string[] = [];
  for (const f of [...shown.errors, ...shown.warnings]) {
    const props = [`file=${escapeProperty(e.path)}`];
    if (f.line !== undefined) props.push(`line=${f.line}`, `col=${f.column || 1}`);
    props.push(`title=${escapeProperty(f.code)}`);
    lines.push(`::${f.severity === "error" ? "error" : "warning"} ${props.join(",")}::${escapeData(where(f.pointer) + ": " + f.message)}`);
  }
  if (shown.omitted) lines.push(`::notice file=${escapeProperty(e.path)}::${shown.omitted} more finding(s) not shown`);
  return lines.map((line) => line + "\n").join("");
}

export function jsonEntry(e: Entry, shown: Shown): string {
  const file: Record<string, unknown> = {
    path: e.path,
    ...(e.line !== undefined ? { line: e.line } : {}),
    kind: e.kind,
    valid: e.valid,
    errors: shown.errors.map(findingJson),
    warnings: shown.warnings.map(findingJson),
  };
  if (shown.omitted) file["omitted"] = shown.omitted;
  return JSON.stringify(file, null, 2).split("\n").map((line) => "    " + line).join("\n");
}
