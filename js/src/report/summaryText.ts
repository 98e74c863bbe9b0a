/** `summarize`'s text: each result set's reference summary, then its attempt statistics, line for line as the Python
 * command writes them (Python's `render_text` and `attempt_text`). */

import { fixed, visible } from "../core/display.js";
import { shorten } from "../core/limits.js";
import { SUMMARY_INVALID_WARNING } from "../generated/constants.js";
import type { AttemptStats } from "../generated/comparison.js";
import type { JsonObject } from "../core/json.js";
import type { GraderSummary, Summary } from "../summary/summary.js";
import type { Paint } from "./render.js";

/** Printed above the numbers of a result set that is not valid (summarized under --force). */
export const INVALID_WARNING: string = SUMMARY_INVALID_WARNING;

function percent(value: number | null): string {
  return value === null ? "n/a" : `${fixed(value * 100, 1)}%`;
}

function number(value: number | null): string {
  return value === null ? "n/a" : fixed(value, 3);
}

function graderRate(totals: GraderSummary): number | null {
  const scored = totals.passed + totals.failed;
  return scored ? totals.passed / scored : null;
}

/** Length in code points, as Python counts a string. */
function length(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function left(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - length(text)));
}

function right(text: string, width: number): string {
  return " ".repeat(Math.max(0, width - length(text))) + text;
}

/** Python's `str()` of a JSON value, as the text names a result set's suite and run. */
function pyStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}

/** Each summarized result set: a heading, its results, its pass rate and average, its graders, its attempts. */
export function summaryText(results: readonly { label: string; fields: JsonObject; summary: Summary }[], paint: Paint, invalid: ReadonlyMap<string, number>): string {
  const out: string[] = [];
  for (const { label, fields, summary: s } of results) {
    const errors = invalid.get(label);
    if (errors !== undefined) out.push(paint(INVALID_WARNING.replace("{errors}", String(errors)), "1;31"));
    const scored = s.total - s.skipped;
    const [suite, run] = ["suite_id", "run_id"].map((key) => visible(shorten(pyStr(Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : "?"))));
    out.push(paint(`${visible(label)}  (suite ${suite}, run ${run})`, "1"));
    out.push(
      `  results ${s.total}: passed ${s.passed}, failed ${s.failed} (of which invalidated by a constraint ${s.invalidated}), ` +
        `errored ${s.errored}, unscored ${s.unscored}`,
    );
    out.push(`  pass rate ${percent(s.pass_rate)} of ${scored} scored; average score ${number(s.avg_score)}`);
    const graders = Object.entries(s.by_grader);
    if (graders.length) {
      const width = Math.max(12, ...graders.map(([g]) => length(visible(shorten(g)))));
      out.push(`  ${left("grader", width)}  ${right("passed", 6)}  ${right("failed", 6)}  ${right("unscored", 8)}  ${right("pass rate", 9)}  ${right("avg score", 9)}`);
      for (const [grader, t] of graders) {
        out.push(
          `  ${left(visible(shorten(grader)), width)}  ${right(String(t.passed), 6)}  ${right(String(t.failed), 6)}  ${right(String(t.unscored), 8)}  ` +
            `${right(percent(graderRate(t)), 9)}  ${right(number(t.avg_score), 9)}`,
        );
      }
    }
    if (s.attempts !== undefined && s.attempts !== null) {
      const a = s.attempts;
      out.push(
        `  attempts: ${a.test_cases} test case(s); first attempt ${percent(a.first_attempt_pass_rate)}, ` +
          `any pass ${percent(a.any_pass_rate)}, all pass ${percent(a.all_pass_rate)}`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}

function share(value: number | null): string {
  return value === null ? "n/a" : fixed(100 * value, 1);
}

/** One line per result set: the flip rate and pass@k / pass^k for the first k. */
export function attemptText(statistics: ReadonlyMap<string, AttemptStats>): string {
  let text = "";
  for (const [label, found] of statistics) {
    const flip = found.flip_rate === null || found.flip_rate === undefined ? "n/a" : `${fixed(100 * found.flip_rate, 1)} %`;
    const ks = found.by_k
      .slice(0, 5)
      .map((e) => `pass@${e.k} ${share(e.pass_at_k)} % pass^${e.k} ${share(e.pass_hat_k)} %`)
      .join(", ");
    text += `${visible(label)}: attempts: flip rate ${flip} over ${found.multi_attempt_cases} test case(s); ${ks}\n`;
  }
  return text;
}
