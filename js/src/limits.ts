/**
 * The limits every input is read under: one place, mirrored by evalschema/limits.py (a test checks they are equal).
 *
 * - `MAX_INPUT_BYTES`: the most evalschema holds of one input at a time — a file read whole, or one member or row
 *   of a result set read in pieces. Larger input is refused while it is read (FILE_UNREADABLE), whatever the
 *   file system says its size is. `EVALSCHEMA_MAX_INPUT_BYTES` changes it.
 * - `MAX_FINDINGS`: findings listed per document (errors and warnings together); the rest are counted.
 * - `MAX_VALUE_CHARS`: a value quoted in a message (a key, a string, a file name) is shortened to this many
 *   characters.
 */

export const MAX_INPUT_BYTES = 128 * 2 ** 20;
/** The variable can raise the limit this far, no further. */
export const MAX_INPUT_BYTES_CEILING = 2 ** 30;
export const MAX_FINDINGS = 1000;
export const MAX_VALUE_CHARS = 200;
export const INPUT_BYTES_VARIABLE = "EVALSCHEMA_MAX_INPUT_BYTES";

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
