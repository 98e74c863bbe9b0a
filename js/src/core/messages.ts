/**
 * Messages are data: every finding's text is its ledger rule's `message` template (spec/ledger.json), filled from
 * named parameters by `render`. Python's `render` is the same renderer, so the two SDKs say the same words by
 * construction.
 *
 * The parameters and how each is written are listed in spec/ledger.schema.json (`$defs/template`):
 * - quoted values (`value`, `name`, …) go through `show`: JSON, shortened; a number as `Number::toString` writes it
 *   (the shortest decimal that reads back as the same double); an object or array by its shape only, so no finding
 *   dumps a whole document or a long regular expression;
 * - lists (`allowed`, `names`, `declared`) are their items quoted and joined by ", ", "none" when empty;
 * - capped lists (`defined`: the ids a suite defines, beside an undefined one) the same, but only their first
 *   `MAX_LISTED` items, then "and N more";
 * - optional values (`base`, `new`: the two sides of a comparison) are quoted, or "absent" when missing or null;
 * - text (`type`, `first`, `detail`, `statement`, …) is inserted as it is;
 * - `suggestion` is derived: the close matches `difflib.getCloseMatches` (a port of Python's difflib) finds for
 *   `name` (or `value`) among `allowed` (or `declared`, or `defined`).
 */

import { createRequire } from "node:module";
import type Difflib from "difflib";
import { MAX_LISTED, MAX_SUGGESTIONS, MESSAGE_PARAMETERS, MESSAGE_VALUE_CHARS, MESSAGE_WORDS, SUGGESTION_CUTOFF } from "../generated/constants.js";
import { RULES } from "../generated/rules.js";

const require = createRequire(import.meta.url);
let difflibModule: typeof Difflib | undefined;

/** difflib, loaded the first time a suggestion is looked for: a valid document's run never needs it. */
function difflib(): typeof Difflib {
  return (difflibModule ??= require("difflib") as typeof Difflib);
}

export const QUOTED: ReadonlySet<string> = new Set(MESSAGE_PARAMETERS.quoted);
export const LISTS: ReadonlySet<string> = new Set(MESSAGE_PARAMETERS.lists);
export const CAPPED: ReadonlySet<string> = new Set(MESSAGE_PARAMETERS.capped);
export const OPTIONAL: ReadonlySet<string> = new Set(MESSAGE_PARAMETERS.optional);
export const TEXT: ReadonlySet<string> = new Set(MESSAGE_PARAMETERS.text);
export const DERIVED: ReadonlySet<string> = new Set(MESSAGE_PARAMETERS.derived);
export const PARAMETERS: ReadonlySet<string> = new Set([...QUOTED, ...LISTS, ...CAPPED, ...OPTIONAL, ...TEXT, ...DERIVED]);

/** A value as a message quotes it: scalars as JSON (shortened), containers by their shape only. */
export function show(value: unknown, limit: number = MESSAGE_VALUE_CHARS): string {
  if (Array.isArray(value)) return `an array of ${value.length} item(s)`;
  if (value !== null && typeof value === "object") return Object.keys(value).length ? "an object" : "an empty object";
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" || typeof value === "bigint") return String(value === 0 ? 0 : Number(value));
  const text = JSON.stringify(String(value));
  const chars = [...text];
  return chars.length <= limit ? text : chars.slice(0, limit - 2).join("") + '…"';
}

/**
 * The distinct strings of `names` in the order of their UTF-16 code units: the order both SDKs list a capped
 * list's ids in (Python's `ordered`).
 */
export function ordered(names: Iterable<unknown>): string[] {
  return [...new Set([...names].filter((c): c is string => typeof c === "string"))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Whether `name` can be close enough to `word`: difflib's own `quickRatio` bound (the UTF-16 code units they share,
 * counted with repeats, whatever their order) reaches SUGGESTION_CUTOFF. A name below it is never a close match,
 * so leaving it out changes no suggestion; when none is left, difflib is not even loaded (Python's `_may_match`).
 */
function mayMatch(word: string, name: string): boolean {
  const counts = new Map<string, number>();
  for (let i = 0; i < name.length; i++) counts.set(name[i]!, (counts.get(name[i]!) ?? 0) + 1);
  let shared = 0;
  for (let i = 0; i < word.length; i++) {
    const left = counts.get(word[i]!) ?? 0;
    if (left > 0) {
      counts.set(word[i]!, left - 1);
      shared++;
    }
  }
  return word.length + name.length === 0 || (2 * shared) / (word.length + name.length) >= SUGGESTION_CUTOFF;
}

/** `; did you mean "x"?` for the close matches of `word` among the string `candidates`, or "". */
export function suggest(word: unknown, candidates: Iterable<unknown>): string {
  if (typeof word !== "string") return "";
  const names = ordered(candidates).filter((c) => c !== word && mayMatch(word, c));
  if (names.length === 0) return "";
  const matches: string[] = difflib().getCloseMatches(word, names, MAX_SUGGESTIONS, SUGGESTION_CUTOFF);
  return matches.length ? "; did you mean " + matches.map((m) => show(m)).join(" or ") + "?" : "";
}

type Message = string | Readonly<Record<string, string>>;

/** The ledger's message template of rule `code` (its `variant`, when it has several). */
export function template(code: string, variant = "default"): string {
  const rule = (RULES as Readonly<Record<string, { message: Message; statement: string }>>)[code];
  if (rule === undefined) throw new Error(`no rule ${code}`);
  const message = rule.message;
  const text = typeof message === "string" ? (variant === "default" ? message : undefined) : message[variant];
  if (text === undefined) throw new Error(`${code} has no message variant ${JSON.stringify(variant)}`);
  return text;
}

export type Params = Readonly<Record<string, unknown>>;

function fill(name: string, params: Params, code: string): string {
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(params, key);
  if (name === "statement" && !has(name)) {
    return (RULES as Readonly<Record<string, { statement: string }>>)[code]!.statement;
  }
  if (name === "suggestion") {
    const word = has("name") ? params["name"] : params["value"];
    const candidates = (has("allowed") ? params["allowed"] : has("declared") ? params["declared"] : has("defined") ? params["defined"] : []) as Iterable<unknown>;
    return suggest(word, candidates);
  }
  if (OPTIONAL.has(name)) return params[name] === undefined || params[name] === null ? MESSAGE_WORDS.absent : show(params[name]);
  if (!has(name)) throw new Error(`${code}: no parameter ${name}`);
  const value = params[name];
  if (LISTS.has(name)) return [...(value as Iterable<unknown>)].map((item) => show(item)).join(", ") || MESSAGE_WORDS.empty_list;
  if (CAPPED.has(name)) {
    const items = [...(value as Iterable<unknown>)];
    const shown = items.slice(0, MAX_LISTED).map((item) => show(item)).join(", ") || MESSAGE_WORDS.empty_list;
    return shown + (items.length > MAX_LISTED ? ` and ${items.length - MAX_LISTED} ${MESSAGE_WORDS.more}` : "");
  }
  if (TEXT.has(name)) return String(value);
  return show(value);
}

/** Rule `code`'s message (`variant`) with its placeholders filled from `params`. */
export function render(code: string, params: Params = {}, variant = "default"): string {
  return template(code, variant).replace(/\{([a-z_]+)\}/g, (_, name: string) => fill(name, params, code));
}
