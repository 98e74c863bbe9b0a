/**
 * `summarize --format markdown` (for `$GITHUB_STEP_SUMMARY` or a pull request comment), line for line as the Python
 * command writes it (its summarize command's `render_markdown`). Generic over the summary's JSON: every member it
 * holds is shown (a scalar as a row, an object of scalars as rows under its name, an object of objects or a list of
 * objects as a table of its own), so a field the summary gains appears without a change here. Numbers are written
 * by the schema's type (`integer` or `number`; a `…rate` as a percentage).
 */

import { fixed } from "../core/display.js";
import { SUMMARY_INVALID_WARNING } from "../generated/constants.js";
import type { Finding } from "../core/findings.js";
import { current } from "../schemas/schemas.js";
import { md } from "./compareText.js";
import { pythonDumpsSorted } from "./pyFormat.js";
import type { Entry } from "./entry.js";

type Node = Record<string, unknown> | undefined;
type Defs = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function defsOf(name: string): Defs {
  const schema = current().files.get(name);
  const defs = schema?.["$defs"];
  return isRecord(defs) ? defs : {};
}

function resolved(node: unknown, defs: Defs): Node {
  let here = node;
  for (let i = 0; i < 32 && isRecord(here) && typeof here["$ref"] === "string"; i++) {
    const ref = here["$ref"];
    here = ref.startsWith("#/$defs/") ? defs[ref.slice("#/$defs/".length)] : undefined;
  }
  return isRecord(here) ? here : undefined;
}

function member(node: Node, key: string, defs: Defs): Node {
  if (node === undefined) return undefined;
  const properties = node["properties"];
  if (isRecord(properties) && Object.prototype.hasOwnProperty.call(properties, key)) return resolved(properties[key], defs);
  const extra = node["additionalProperties"];
  return isRecord(extra) ? resolved(extra, defs) : undefined;
}

/** A number as the Markdown shows it: an integer as is, a rate as a percentage, another number to 3 decimals. */
function shown(value: unknown, key: string, node: Node): unknown {
  if (typeof value !== "number") return value;
  const type = node?.["type"];
  const kinds = Array.isArray(type) ? type : [type];
  if (kinds.includes("integer") || (!kinds.includes("number") && Number.isInteger(value))) return String(Math.trunc(value));
  if (key.endsWith("rate")) return `${fixed(100 * value, 1)} %`;
  return fixed(value, 3);
}

function words(key: string): string {
  return key.replace(/_/g, " ");
}

function row(...cells: unknown[]): string {
  return "| " + cells.map(md).join(" | ") + " |";
}

/** Present members (a value left undefined is one Python's dictionary does not hold). */
function entries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).filter(([, v]) => v !== undefined);
}

/** A table cell: a number as `shown` shows it; an object (a grader's per-test-case view) as its members,
 * `name: value; …`, each shown the same way (never a JSON text, whose numbers the two SDKs write differently). */
function cell(value: unknown, key: string, node: Node, defs: Defs): unknown {
  if (!isRecord(value)) return shown(value, key, node);
  return entries(value)
    .map(([name, item]) => {
      const text = cell(item, name, member(node, name, defs), defs);
      return `${words(name)}: ${text === null ? "\u2014" : typeof text === "string" ? text : pythonDumpsSorted(text)}`;
    })
    .join("; ");
}

function table(title: string, items: [string | null, Record<string, unknown>][], node: Node, defs: Defs): string[] {
  const columns = [...new Set(items.flatMap(([, item]) => entries(item).map(([k]) => k)))];
  const named = items[0]![0] !== null;
  const head = [...(named ? [title] : []), ...columns.map(words)];
  const out = ["", row(...head), "| " + [...(named ? ["---"] : []), ...columns.map(() => "---:")].join(" | ") + " |"];
  for (const [name, item] of items) {
    const cells = columns.map((c) => (item[c] !== undefined ? cell(item[c], c, member(node, c, defs), defs) : ""));
    out.push(row(...(named ? [name] : []), ...cells));
  }
  return out;
}

function section(title: string, value: Record<string, unknown>, node: Node, defs: Defs): string[] {
  const rows: string[] = [];
  const tables: string[] = [];
  for (const [key, item] of entries(value)) {
    const child = member(node, key, defs);
    if (isRecord(item) && entries(item).length && entries(item).every(([, v]) => isRecord(v))) {
      tables.push(...table(words(key), entries(item) as [string, Record<string, unknown>][], child === undefined ? undefined : member(child, "", defs), defs));
    } else if (Array.isArray(item) && item.length && item.every(isRecord)) {
      tables.push(...table(words(key), item.map((v) => [null, v] as [null, Record<string, unknown>]), child === undefined ? undefined : resolved(child["items"], defs), defs));
    } else if (isRecord(item)) {
      for (const [k, v] of entries(item)) rows.push(row(`${words(key)}: ${words(k)}`, shown(v, k, member(child, k, defs))));
    } else rows.push(row(words(key), shown(item, key, child)));
  }
  return [...(rows.length ? [`| ${md(title)} | value |`, "| --- | ---: |"] : []), ...rows, ...tables];
}

export interface SummarizedForMarkdown {
  label: string;
  fields: Record<string, unknown>;
  summary: object;
}

/** Each summarized result set (its summary, then its attempt statistics) and the findings of those refused. */
export function summaryMarkdown(
  results: readonly SummarizedForMarkdown[],
  attempts: ReadonlyMap<string, object>,
  refused: readonly Entry[],
  omitted: ReadonlyMap<Entry, number>,
  invalid: ReadonlyMap<string, number>,
  force: boolean,
): string {
  const resultset = defsOf("resultset.json");
  const comparison = defsOf("comparison.json");
  const out = ["### evalschema summarize"];
  if (refused.length) {
    const verdict = force ? "summarized anyway (--force)" : "not summarized (use --force to see the numbers anyway)";
    out.push("", "**" + md(`${refused.length} invalid result set(s): ${verdict}`) + "**", "");
    out.push(row("file", "line", "severity", "code", "pointer", "message"), "| --- | ---: | --- | --- | --- | --- |");
    for (const e of refused) {
      const label = e.path + (e.line !== undefined ? `:${e.line}` : "");
      for (const f of e.errors as Finding[]) out.push(row(label, f.line ?? "", f.severity, f.code, f.pointer || "/", f.message));
      const more = omitted.get(e) ?? 0;
      if (more) out.push(row(label, "", "", "", "", `\u2026 ${more.toLocaleString("en-US")} more finding(s) not shown`));
    }
  }
  for (const { label, fields, summary } of results) {
    const [suite, run] = ["suite_id", "run_id"].map((key) => (Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : "?"));
    out.push("", `#### ${md(label)} (suite ${md(suite)}, run ${md(run)})`, "");
    const errors = invalid.get(label);
    if (errors !== undefined) out.push("**" + md(SUMMARY_INVALID_WARNING.replace("{errors}", String(errors))) + "**", "");
    out.push(...section("summary", JSON.parse(JSON.stringify(summary)) as Record<string, unknown>, resultset["Summary"] as Node, resultset));
    const found = attempts.get(label);
    if (found !== undefined) out.push("", ...section("attempt statistics", JSON.parse(JSON.stringify(found)) as Record<string, unknown>, comparison["AttemptStats"] as Node, comparison));
  }
  return out.join("\n") + "\n";
}
