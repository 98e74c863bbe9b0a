/**
 * The limits every input is read under. Their values are generated from spec/constants.json (generated/constants.ts,
 * which Python's `max_input_bytes` reads too); this module adds how they are applied.
 *
 * - `MAX_INPUT_BYTES`: the most evalschema holds of one input at a time — a file read whole, or one member or row
 *   of a result set read in pieces. Larger input is refused while it is read (FILE_UNREADABLE), whatever the
 *   file system says its size is. `EVALSCHEMA_MAX_INPUT_BYTES` changes it.
 * - `MAX_FINDINGS`: findings listed per document (errors and warnings together); the rest are counted.
 * - `MAX_VALUE_CHARS`: a value quoted in a message (a key, a string, a file name) is shortened to this many
 *   characters.
 */

import { INPUT_BYTES_VARIABLE, MAX_INPUT_BYTES, MAX_INPUT_BYTES_CEILING, MAX_VALUE_CHARS } from "../generated/constants.js";

export { INPUT_BYTES_VARIABLE, MAX_FINDINGS, MAX_INPUT_BYTES, MAX_INPUT_BYTES_CEILING, MAX_VALUE_CHARS } from "../generated/constants.js";

/** `MAX_INPUT_BYTES`, or the positive whole number in `EVALSCHEMA_MAX_INPUT_BYTES` (anything else is ignored), at most `MAX_INPUT_BYTES_CEILING`. */
export function maxInputBytes(): number {
  const text = (process.env[INPUT_BYTES_VARIABLE] ?? "").trim();
  return /^[0-9]{1,15}$/.test(text) && Number(text) > 0 ? Math.min(Number(text), MAX_INPUT_BYTES_CEILING) : MAX_INPUT_BYTES;
}

export function tooLargeMessage(limit: number): string {
  return `larger than the input size limit of ${limit.toLocaleString("en-US")} bytes (${INPUT_BYTES_VARIABLE} sets it)`;
}

/** `text`, cut to `limit` characters (code points, as Python counts) with a note of how many were left out. */
export function shorten(text: string, limit: number = MAX_VALUE_CHARS): string {
  if (text.length <= limit) return text;
  const chars = Array.from(text);
  if (chars.length <= limit) return text;
  return `${chars.slice(0, limit).join("")}… (${(chars.length - limit).toLocaleString("en-US")} more characters)`;
}
