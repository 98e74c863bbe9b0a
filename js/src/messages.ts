/**
 * Wording shared by every finding that quotes a value or suggests a fix (mirrors evalschema/messages.py).
 *
 * Values are quoted as JSON and shortened, so that no finding dumps a whole document or a long regular expression;
 * suggestions are the close matches `difflib.getCloseMatches` (a port of Python's difflib) finds among the
 * allowed names or values.
 */

import difflib from "difflib";

export const VALUE_LIMIT = 60;
export const SUGGESTIONS = 3;
export const CUTOFF = 0.75;

/** Python's repr of a float (shortest round trip), as far as JSON numbers go. */
function number(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(value);
  const text = String(value);
  // JavaScript writes 1e+21 and 1e-7 where Python writes 1e+21 and 1e-07
  return text.replace(/e([+-])(\d)$/, "e$10$2");
}

/** A value as a message quotes it: scalars as JSON (shortened), containers by their shape only. */
export function show(value: unknown, limit = VALUE_LIMIT): string {
  if (Array.isArray(value)) return `an array of ${value.length} item(s)`;
  if (value !== null && typeof value === "object") return Object.keys(value).length ? "an object" : "an empty object";
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") return number(value);
  const text = JSON.stringify(String(value));
  const chars = [...text];
  return chars.length <= limit ? text : chars.slice(0, limit - 2).join("") + '…"';
}

/** `; did you mean "x"?` for the close matches of `word` among the string `candidates`, or "". */
export function suggest(word: unknown, candidates: Iterable<unknown>): string {
  if (typeof word !== "string") return "";
  const names = [...new Set([...candidates].filter((c): c is string => typeof c === "string" && c !== word))].sort(
    (a, b) => (a < b ? -1 : a > b ? 1 : 0),
  );
  const matches: string[] = difflib.getCloseMatches(word, names, SUGGESTIONS, CUTOFF);
  return matches.length ? "; did you mean " + matches.map((m) => show(m)).join(" or ") + "?" : "";
}

/** The message of a value outside an enumeration: every allowed value, and the close ones. */
export function oneOf(value: unknown, allowed: readonly unknown[]): string {
  return `${show(value)} is not one of ${allowed.map((o) => show(o)).join(", ")}${suggest(value, allowed)}`;
}

export function unknownProperty(name: string, declared: Iterable<string>): string {
  return `unknown property ${show(name)}${suggest(name, declared)}`;
}
