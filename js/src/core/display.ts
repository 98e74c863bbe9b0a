/**
 * Showing text from documents and file names safely (mirrors Python's `visible`): what is printed is one line
 * that cannot act on a terminal or forge a line of its own (a GitHub workflow command, say).
 */

import { DISPLAY_ESCAPES } from "../generated/constants.js";

// Characters that would move the cursor, recolour or retitle a terminal, reorder text, or start a new line;
// and lone surrogates, which have no UTF-8 form.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NAMED: Readonly<Record<string, string>> = DISPLAY_ESCAPES;

/** `text` with every control, line-separating or bidirectional-override character escaped (`\n`, `\x1b`, `\u202e`). */
export function visible(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch];
    if (named !== undefined) return named;
    const code = ch.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * Python's `f"{x:.{digits}f}"`: the exact binary value rounded to `digits` decimals, an exact tie to even (JavaScript's
 * `toFixed` takes a tie up: 0.0625 is "0.063" there and "0.062" in Python).
 */
export function fixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return x !== x ? "nan" : x > 0 ? "inf" : "-inf";
  const exact = Math.abs(x).toFixed(100); // every digit of a double's expansion this rounding can depend on
  const point = exact.indexOf(".");
  const tail = exact.slice(point + 1 + digits);
  let out = x.toFixed(digits);
  if (/^50*$/.test(tail)) {
    // a tie: toFixed went up; Python goes to the even neighbour
    const kept = exact.slice(0, point + 1 + digits).replace(/\.$/, "");
    const last = Number(kept[kept.length - 1]);
    if (last % 2 === 0) out = (x < 0 ? "-" : "") + kept;
  }
  return out;
}
