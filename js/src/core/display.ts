/**
 * Showing text from documents and file names safely (mirrors evalschema/display.py): what is printed is one line
 * that cannot act on a terminal or forge a line of its own (a GitHub workflow command, say).
 */

// Characters that would move the cursor, recolour or retitle a terminal, reorder text, or start a new line;
// and lone surrogates, which have no UTF-8 form.
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `text` with every control, line-separating or bidirectional-override character escaped (`\n`, `\x1b`, `\u202e`). */
export function visible(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch];
    if (named !== undefined) return named;
    const code = ch.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
