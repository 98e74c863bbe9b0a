/**
 * The HTML reports' one page (Python's `evalschema.report.page`, line for line): the shared template
 * (`templates/report.html` in the repository, copied into the package by scripts/prepare.mjs as the schemas are),
 * filled with a report's data as JSON. The page draws itself from that data with its inline script, so both SDKs
 * write byte-equal pages when their data is equal: nothing that formats, escapes or lays out a value exists twice.
 *
 * The data is written as `JSON.stringify` writes it (object keys in UTF-16 code unit order, no spaces, undefined
 * members left out), with every character outside printable ASCII and each of `<`, `>` and `&` as a `\u` escape:
 * no `</script>`, `<!--` or line separator (U+2028) can end or break the script element it sits in.
 */

import { packageTemplate } from "../schemas/templates.js";
import { REPORT_DATE_VARIABLE } from "../generated/constants.js";

export const PLACEHOLDER = "@@EVALSCHEMA_DATA@@";
/** A reproducible page: the variable that fixes the time it says it was made. */
export const DATE_VARIABLE = REPORT_DATE_VARIABLE;

let cached: string | null = null;

/** The page template, from the package's `templates/` folder. */
export function template(): string {
  if (cached === null) {
    const text = packageTemplate("report.html");
    if (text.split(PLACEHOLDER).length !== 2) throw new Error("templates/report.html: the report template must hold its data placeholder exactly once");
    cached = text;
  }
  return cached;
}

/** Now, or the time the REPORT_DATE_VARIABLE variable gives (seconds since 1970, UTC), as `YYYY-MM-DDTHH:MM:SSZ`. */
export function generatedAt(): string {
  const given = process.env[DATE_VARIABLE] ?? "";
  const moment = /^[0-9]{1,12}$/.test(given) ? new Date(Number(given) * 1000) : new Date();
  return moment.toISOString().replace(/\.[0-9]{3}Z$/, "Z");
}

/** The template with `data` in its placeholder. */
export function renderPage(data: unknown): string {
  const [before, after] = template().split(PLACEHOLDER) as [string, string];
  return before + pageJson(data) + after;
}

const SAFE: Record<string, string> = { "<": "\\u003c", ">": "\\u003e", "&": "\\u0026" };

/** `value` as the page embeds it (see above). */
export function pageJson(value: unknown): string {
  return write(value).replace(/[<>&]/g, (c) => SAFE[c]!);
}

function write(value: unknown): string {
  if (value === null || value === true || value === false || typeof value === "number") return JSON.stringify(value);
  if (typeof value === "string") return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  if (Array.isArray(value)) return "[" + value.map((item) => (item === undefined ? "null" : write(item))).join(",") + "]";
  if (typeof value === "object") {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object)
      .filter((key) => object[key] !== undefined)
      .sort();
    return "{" + keys.map((key) => write(key) + ":" + write(object[key])).join(",") + "}";
  }
  throw new TypeError(`not JSON data: ${typeof value}`);
}
