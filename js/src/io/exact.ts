/**
 * Whether `JSON.parse` read a text as the strict reader (strictJson.ts) reads it, without reading it again:
 * `JSON.parse` is several times faster, and silently keeps the last of repeated keys, reads 1e400 as Infinity and
 * nests as deep as the stack allows, where the strict reader refuses each. The streamed reader (stream.ts) checks
 * each batch of rows this way, the whole-document reader (loader.ts `parseJson`) the whole text; whatever this
 * cannot vouch for is read again by the strict reader, which says what is wrong and where.
 */

const QUOTE = 0x22;
const SPACED_COLON = /"[ \t\r\n]+:/;
const LEADING_COLON = /^ *:/;
const QUOTE_COLON = /" *:/;

/**
 * Whether `JSON.parse`'s reading of this text might differ from the strict one in a way the key count cannot
 * see: a quote, colon or space disguised as a `\u` escape.
 */
function needsExactPath(text: string): boolean {
  return text.includes("\\u00") && (text.includes("\\u0022") || text.includes("\\u003a") || text.includes("\\u003A") || text.includes("\\u0020"));
}

/**
 * Occurrences of a quote followed by a colon, with whitespace between or not (`"a":` or `"a" :`): one per key,
 * plus those strings add (see `stringMarks`).
 */
function countMarks(text: string): number {
  // one scan, colon to colon (colons are rarer than quotes: a search for '":' stops at every quote); a spaced
  // mark has whitespace right before its colon, so without one the text has none
  let count = 0;
  let spaced = false;
  for (let i = text.indexOf(":"); i >= 0; i = text.indexOf(":", i + 1)) {
    const before = text.charCodeAt(i - 1);
    if (before === QUOTE) count++;
    else if (before === 0x20 || before === 0x0a || before === 0x0d || before === 0x09) spaced = true;
  }
  if (spaced) {
    const spaced = new RegExp(SPACED_COLON.source, "g");
    while (spaced.exec(text) !== null) count++;
  }
  return count;
}

let keys = 0;

/** Whether objects inherit enumerable properties (a library extended Object.prototype): `for…in` would count them. */
function prototypeHasKeys(): boolean {
  for (const _ in {}) return true;
  return false;
}

/**
 * Count the keys of a parsed value into `keys`; false if a number is not finite (JSON.parse reads 1e400 as
 * Infinity, the strict parser refuses it) or containers nest deeper than `maxDepth` (the value is at depth 1).
 */
function tally(value: unknown, depth: number, maxDepth: number): boolean {
  if (typeof value === "number") return value - value === 0;
  if (typeof value !== "object" || value === null) return true;
  if (depth > maxDepth) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if ((typeof item === "object" || typeof item === "number") && !tally(item, depth + 1, maxDepth)) return false;
    }
    return true;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    keys++;
    const item = object[key];
    if ((typeof item === "object" || typeof item === "number") && !tally(item, depth + 1, maxDepth)) return false;
  }
  return true;
}

/**
 * The quote-then-colon marks a string adds to the text it is written in: one where it starts with a colon (after
 * spaces: its opening quote makes one), one per quote in it followed by a colon (after spaces: the quote is
 * written `\"`). Spaces and colons in strings are written as themselves (`needsExactPath` refuses `\u` escapes
 * of them), and whitespace other than spaces is escaped in strings, so the text has exactly these.
 */
function stringMarks(text: string): number {
  let count = LEADING_COLON.test(text) ? 1 : 0;
  if (text.includes('"')) {
    const inner = new RegExp(QUOTE_COLON.source, "g");
    while (inner.exec(text) !== null) count++;
  }
  return count;
}

/** Every quote-then-colon mark a parsed value is written with: its keys', and those its strings (and keys) add. */
function writtenMarks(value: unknown): number {
  if (typeof value === "string") return stringMarks(value);
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) count += writtenMarks(value[i]);
    return count;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) count += 1 + stringMarks(key) + writtenMarks(object[key]);
  return count;
}

/**
 * Whether `JSON.parse`'s values (of a text holding them, comma-separated) are certainly what the strict parser
 * reads: no key was repeated in an object (every quote-then-colon mark of the text — one per key it holds — is
 * accounted for by the values), no number is out of range, nothing nests deeper than `maxDepth`.
 */
export function certainlyExact(text: string, values: readonly unknown[], maxDepth: number): boolean {
  if (needsExactPath(text) || prototypeHasKeys()) return false;
  keys = 0;
  for (const value of values) if (!tally(value, 1, maxDepth)) return false;
  const marks = countMarks(text);
  if (marks === keys) return true;
  // strings holding a quote then a colon (or starting with a colon) add to the text's count: account for them
  let written = 0;
  for (const value of values) written += writtenMarks(value);
  return marks === written;
}
