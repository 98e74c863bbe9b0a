/**
 * `evalschema-js summarize --html`: the data of the summary page (Python's `evalschema.report.html`
 * `CaseLists`, `run_data` and `summary_data`, line for line), drawn by the shared report template (./page.ts).
 */

import { get, isObject, type JsonObject } from "../core/json.js";
import { shorten } from "../core/limits.js";
import type { Finding } from "../core/findings.js";
import type { Members, Stage } from "../core/stage.js";
import { REPORT_CASE_ROWS } from "../generated/constants.js";
import { specVersion } from "../schemas/schemas.js";
import { classify, type Summary } from "../summary/summary.js";
import { generatedAt, renderPage } from "./page.js";

type Scalar = string | number | null;

/** A value the page shows as it is: a string or a finite number; anything else is null, shown as a dash. */
export function scalar(value: unknown): Scalar {
  if (typeof value === "string") return value;
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/** A long text (an output, a reason, an error message) as the page shows it: cut to MAX_VALUE_CHARS. */
function text(value: unknown): string | null {
  return typeof value === "string" ? shorten(value) : null;
}

type CaseRow = { [key: string]: unknown };
const LISTS = ["failed", "invalidated", "errored"] as const;
type ListName = (typeof LISTS)[number];

/** The rows a reader acts on, gathered while the rows go by (a stage of the one reading): failed, invalidated
 * and errored, each with what explains it; and the row durations. At most `limit` rows per list are kept. */
export class CaseLists implements Stage {
  readonly rowsOf: Record<ListName, CaseRow[]> = { failed: [], invalidated: [], errored: [] };
  readonly counts: Record<ListName, number> = { failed: 0, invalidated: 0, errored: 0 };
  readonly durations: number[] = [];

  constructor(readonly limit: number = REPORT_CASE_ROWS) {}

  rows(batch: readonly unknown[]): Finding[] {
    for (const row of batch) this.add(row);
    return [];
  }

  add(result: unknown): void {
    if (!isObject(result)) return;
    const duration = get(result, "duration_ms");
    if (typeof duration === "number" && Number.isFinite(duration)) this.durations.push(duration);
    const outcome = classify(result);
    if (outcome !== "failed" && outcome !== "invalidated" && outcome !== "errored") return;
    this.counts[outcome]++;
    if (this.rowsOf[outcome].length >= this.limit) return;
    const row: CaseRow = { test_case_id: scalar(get(result, "test_case_id")), attempt: scalar(get(result, "attempt")), duration_ms: scalar(duration) };
    if (outcome === "invalidated") {
      const violations = get(result, "constraint_violations");
      row.constraints = (Array.isArray(violations) ? violations : [])
        .filter((v): v is JsonObject => isObject(v) && get(v, "invalidates_result") === true)
        .map((v) => scalar(get(v, "id")));
      row.output = text(get(result, "actual_output"));
    } else if (outcome === "errored") {
      const error = get(result, "error");
      const e = isObject(error) ? error : {};
      row.error_type = scalar(get(e, "type"));
      row.error_message = text(get(e, "message"));
    } else {
      const graders = get(result, "grader_results");
      row.graders = (Array.isArray(graders) ? graders : [])
        .filter((g): g is JsonObject => isObject(g) && get(g, "passed") === false)
        .map((g) => ({ grader_id: scalar(get(g, "grader_id")), reason: text(get(g, "reason")) }));
      row.output = text(get(result, "actual_output"));
    }
    this.rowsOf[outcome].push(row);
  }

  toJSON(): JsonObject {
    return Object.fromEntries(LISTS.map((name) => [name, { count: this.counts[name], rows: this.rowsOf[name] }]));
  }

  /** Median (the upper one of an even count), max and total, summed in ascending order one by one. */
  durationStats(): JsonObject | null {
    if (!this.durations.length) return null;
    const ordered = [...this.durations].sort((a, b) => a - b);
    let total = 0;
    for (const value of ordered) total += value;
    return { count: ordered.length, median: ordered[Math.floor(ordered.length / 2)], max: ordered[ordered.length - 1], total };
  }
}

/** Rows of a document read whole, as the stream would give them. */
export function caseLists(document: JsonObject): CaseLists {
  const lists = new CaseLists();
  const rows = get(document, "results");
  if (Array.isArray(rows)) lists.rows(rows);
  return lists;
}

const GROUP_FIELDS = ["group_id", "role", "label", "sequence"];

export interface SummarizedRun {
  label: string;
  fields: JsonObject | Members;
  summary: Summary;
}

function runData(run: SummarizedRun, lists: CaseLists | undefined, invalid: number | undefined): JsonObject {
  const fields = run.fields as JsonObject;
  const group = get(fields, "group"), provider = get(fields, "provider");
  return {
    label: run.label,
    run_id: scalar(get(fields, "run_id")),
    suite_id: scalar(get(fields, "suite_id")),
    model: isObject(provider) ? scalar(get(provider, "model")) : null,
    started_at: scalar(get(fields, "started_at")),
    completed_at: scalar(get(fields, "completed_at")),
    group: isObject(group) ? Object.fromEntries(GROUP_FIELDS.filter((k) => Object.prototype.hasOwnProperty.call(group, k)).map((k) => [k, scalar(get(group, k))])) : null,
    invalid: invalid ?? null,
    summary: run.summary,
    cases: lists !== undefined ? lists.toJSON() : null,
    durations: lists !== undefined ? lists.durationStats() : null,
  };
}

/** The summary page's data: each summarized result set, with its case lists when gathered. */
export function summaryData(results: readonly SummarizedRun[], invalid: ReadonlyMap<string, number>, lists: ReadonlyMap<string, CaseLists>, stamp?: string): JsonObject {
  return {
    page: "summary",
    version: specVersion(),
    generated_at: stamp ?? generatedAt(),
    runs: results.map((run) => runData(run, lists.get(run.label), invalid.get(run.label))),
  };
}

/** One self-contained page, byte for byte the page Python's `render_html` writes for the same result sets. */
export function renderSummaryHtml(results: readonly SummarizedRun[], invalid: ReadonlyMap<string, number>, lists: ReadonlyMap<string, CaseLists>, stamp?: string): string {
  return renderPage(summaryData(results, invalid, lists, stamp));
}
