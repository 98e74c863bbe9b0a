/**
 * `compare`'s text and Markdown, line for line as the Python command writes them (its `render_text`,
 * `render_markdown`, `verdict_line`, `power_line`): the verdict, what the run could show, the pairs, the graders,
 * the attempts, the findings and the flipped cases, every value from the result sets escaped for its medium.
 */

import { fixed, visible } from "../core/display.js";
import type { Comparison, GraderDelta, Interval } from "../generated/comparison.js";
import { fewestSignificant, powerOf } from "../compare/compare.js";
import { mcnemar } from "../compare/compareStats.js";
import { general, plusFixed, pythonDumpsSorted } from "./pyFormat.js";

/** The text lists this many flipped cases; JSON lists them all. */
export const TEXT_FLIPS = 50;
/** A pull request comment holds at most 65,536 characters: the rest are counted, not listed. */
export const MARKDOWN_FLIPS = 100;

function pct(value: number | null | undefined): string {
  return value === null || value === undefined ? "n/a" : `${fixed(100 * value, 1)} %`;
}

function signed(value: number, scale: number, digits: number): string {
  return plusFixed(value * scale, digits).replace("-", "\u2212");
}

function interval(bounds: Interval | undefined, scale: number, digits: number): string {
  if (bounds === null || bounds === undefined) return "n/a";
  return `${signed(bounds[0]!, scale, digits)}\u2026${signed(bounds[1]!, scale, digits)}`;
}

function p(value: number): string {
  return value < 0.01 ? general(value, 2) : fixed(value, 2);
}

function num(value: number | null | undefined, isSigned = false): string {
  if (value === null || value === undefined) return "n/a";
  return isSigned ? signed(value, 1, 3) : fixed(value, 3);
}

function spaced(name: string): string {
  return name.replace(/_/g, " ");
}

export function confidence(document: Comparison): string {
  return `${general(100 * (1 - document.options.alpha))} %`;
}

/** The one-line answer: rates, the difference with its interval, McNemar's p and what it means. */
export function verdictLine(document: Comparison): string {
  const rate = document.pass_rate;
  if (rate.difference === null || rate.difference === undefined) return "no pair was scored in both runs: nothing to compare";
  const meaning = {
    regression: "significant regression",
    improvement: "significant improvement",
    no_significant_change: "not significant",
    no_data: "no data",
  }[document.verdict.outcome];
  return (
    `pass rate ${pct(rate.base.rate)} \u2192 ${pct(rate.new.rate)} ` +
    `(${signed(rate.difference, 100, 1)} pt, ${confidence(document)} CI ${interval(rate.interval, 100, 1)}), ` +
    `McNemar p = ${p(document.mcnemar.p_value)}: ${meaning}`
  );
}

export function graderLine(grader: GraderDelta, document: Comparison): string {
  if (grader.difference === null || grader.difference === undefined) return `grader ${grader.grader_id}: no pair scored on both sides`;
  return (
    `grader ${grader.grader_id}: mean score ${fixed(grader.base_mean!, 3)} \u2192 ${fixed(grader.new_mean!, 3)} ` +
    `(${signed(grader.difference, 1, 3)}, ${confidence(document)} CI ${interval(grader.interval, 1, 3)}, ` +
    `${spaced(grader.method)}) over ${grader.pairs} pairs in ${grader.test_cases} test cases`
  );
}

/** What the comparison could show at all: the smallest pass-rate change that could be significant with this many
 * pairs at alpha, or that none could (the document's `power`, else computed). */
export function powerLine(document: Comparison): string {
  const pairs = document.pairs.comparable;
  const alpha = document.options.alpha;
  const power = document.power ?? powerOf(pairs, alpha);
  if (power.fewest_flips === null || power.fewest_flips === undefined) {
    const best = pairs ? mcnemar(pairs, 0).p : 1;
    const needed = power.pairs_needed ?? fewestSignificant(1 << 20, alpha);
    return (
      `power: no change can be significant at alpha ${general(alpha)} with ${pairs} pair(s): even all of them flipping ` +
      `one way gives McNemar p = ${p(best)}` +
      (needed !== null && needed !== undefined ? `; it takes at least ${needed} pairs` : "")
    );
  }
  return (
    `power: with ${pairs} pairs, the smallest change that can be significant at alpha ${general(alpha)} is ` +
    `${fixed((100 * power.fewest_flips) / pairs, 1)} pt (${power.fewest_flips} pairs flipping one way, none the other)`
  );
}

/** One printed line that quotes input (Python's `terminal_line`): `visible`, and a leading `::` (a GitHub
 * workflow command) escaped. */
export function terminalLine(text: string): string {
  const shown = visible(text);
  const rest = shown.replace(/^\s+/, "");
  return rest.startsWith("::") ? shown.slice(0, shown.length - rest.length) + "\\x3a" + rest.slice(1) : shown;
}

function gateLine(document: Comparison): string {
  return "gate: fails with --fail-on-regression (" + document.verdict.gate_reasons.map(spaced).join(", ") + ")";
}

/** The reducer each run applied to this grader: one name when both agree, else `base → new` (Python's `reducer_of`). */
export function reducerOf(grader: GraderDelta): string {
  const before = grader.base_per_test_case?.reducer ?? "n/a";
  const after = grader.new_per_test_case?.reducer ?? "n/a";
  return before === after ? before : `${before} \u2192 ${after}`;
}

/** A grader's per-test-case view (SPEC §12.4), when either run's rows carry attempts (Python's `per_test_case_line`). */
export function perTestCaseLine(grader: GraderDelta, document: Comparison): string | null {
  const base = grader.base_per_test_case, next = grader.new_per_test_case;
  if (base === undefined && next === undefined) return null;
  const line =
    `grader ${grader.grader_id} per test case (${reducerOf(grader)}): mean ` +
    `${base === undefined ? "n/a" : num(base.avg_score)} \u2192 ${next === undefined ? "n/a" : num(next.avg_score)}`;
  const paired = grader.per_test_case_difference;
  if (paired === undefined || paired.difference === null) return line;
  return `${line}; paired over ${paired.test_cases} test cases: ${signed(paired.difference, 1, 3)}, ${confidence(document)} CI ${interval(paired.interval, 1, 3)}`;
}

export function renderText(document: Comparison): string {
  const pairs = document.pairs;
  const lines = [verdictLine(document)];
  lines.push(
    `  ${pairs.comparable} pairs compared (${document.mcnemar.discordant} discordant); excluded: ` +
      `${pairs.excluded_errored} errored, ${pairs.excluded_unscored} unscored; ` +
      `${pairs.only_in_base} only in base, ${pairs.only_in_new} only in new`,
  );
  lines.push("  " + powerLine(document));
  lines.push("  changes: " + Object.entries(document.changes).map(([name, count]) => `${count} ${spaced(name)}`).join(", "));
  for (const grader of document.graders) {
    lines.push("  " + graderLine(grader, document));
    const view = perTestCaseLine(grader, document);
    if (view !== null) lines.push("    " + view);
  }
  for (const side of ["base", "new"] as const) {
    const stats = document.attempts[side];
    if (stats.multi_attempt_cases) {
      const ks = stats.by_k.slice(0, 4).map((e) => `pass@${e.k} ${pct(e.pass_at_k)} pass^${e.k} ${pct(e.pass_hat_k)}`).join(", ");
      lines.push(`  ${side} attempts: flip rate ${pct(stats.flip_rate)}; ${ks}`);
    }
  }
  for (const f of document.findings) lines.push(`  ${f.severity}  ${f.code}  ${f.pointer || "/"}  ${f.message}`);
  if (document.verdict.gate_failed) lines.push("  " + gateLine(document));
  const flips = document.flips;
  if (flips.length) {
    lines.push(`flipped (${flips.length}):`);
    for (const flip of flips.slice(0, TEXT_FLIPS)) {
      const detail: string[] = [];
      if (flip.graders_changed.length) detail.push("graders " + flip.graders_changed.join(", "));
      if (flip.constraint_ids !== undefined && flip.constraint_ids.length) detail.push("constraints " + flip.constraint_ids.join(", "));
      if (flip.error_type !== undefined) detail.push(`error ${flip.error_type === null ? "None" : flip.error_type}`);
      lines.push(
        `  ${leftPad(flip.change, 17)} ${flip.test_case_id} #${flip.attempt}  ${flip.base} \u2192 ${flip.new}` +
          (detail.length ? `  (${detail.join("; ")})` : ""),
      );
    }
    if (flips.length > TEXT_FLIPS) lines.push(`  \u2026 and ${flips.length - TEXT_FLIPS} more (--format json or --html lists them all)`);
  }
  // ids, messages and file names come from the documents: each line is escaped so it stays one inert line
  return lines.map(terminalLine).join("\n") + "\n";
}

function leftPad(text: string, width: number): string {
  let n = 0;
  for (const _ of text) n++;
  return text + " ".repeat(Math.max(0, width - n));
}

// --- Markdown (a CI step summary, a pull request comment) -----------------------------------------------------

// the characters that open something in GitHub's Markdown (Python's `_MD_SPECIAL`); a backslash escapes any of them
const MD_SPECIAL = /[\\`*_[\]<>&|~$@#]/g;
const MD_ENTITIES: Readonly<Record<string, string>> = { "<": "&lt;", ">": "&gt;", "&": "&amp;" };

/** A value as inert Markdown text on one line (Python's `md`). */
export function md(value: unknown): string {
  if (value === null || value === undefined) return "\u2014";
  const text = typeof value === "string" ? value : pythonDumpsSorted(value);
  return visible(text).replace(MD_SPECIAL, (ch) => MD_ENTITIES[ch] ?? "\\" + ch);
}

export function mdRow(...cells: unknown[]): string {
  return "| " + cells.map(md).join(" | ") + " |";
}

export function renderMarkdown(document: Comparison): string {
  const out = ["### evalschema compare", "", "**" + md(verdictLine(document)) + "**", "", "> " + md(powerLine(document)), ""];
  if (document.verdict.gate_failed) out.push("**" + md(gateLine(document)) + "**", "");
  out.push("| pairs | count |", "| --- | ---: |");
  for (const [name, value] of Object.entries(document.pairs)) out.push(mdRow(spaced(name), value));
  for (const [name, count] of Object.entries(document.changes)) out.push(mdRow(`changes: ${spaced(name)}`, count));
  if (document.graders.length) {
    out.push("", "| grader | pairs | base mean | new mean | difference | interval | method |", "| --- | ---: | ---: | ---: | ---: | --- | --- |");
    for (const g of document.graders) {
      out.push(mdRow(g.grader_id, g.pairs, num(g.base_mean), num(g.new_mean), num(g.difference, true), interval(g.interval, 1, 3), g.method));
    }
  }
  const viewed = document.graders.filter((g) => g.base_per_test_case !== undefined || g.new_per_test_case !== undefined);
  if (viewed.length) {
    out.push(
      "",
      "| grader per test case | reducer | base mean | new mean | paired test cases | difference | interval |",
      "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    );
    for (const g of viewed) {
      const base = g.base_per_test_case, next = g.new_per_test_case, paired = g.per_test_case_difference;
      out.push(
        mdRow(
          g.grader_id,
          reducerOf(g),
          base === undefined ? "n/a" : num(base.avg_score),
          next === undefined ? "n/a" : num(next.avg_score),
          paired === undefined ? "n/a" : paired.test_cases,
          paired === undefined ? "n/a" : num(paired.difference, true),
          paired === undefined ? "n/a" : interval(paired.interval, 1, 3),
        ),
      );
    }
  }
  if (document.findings.length) {
    out.push("", "| severity | code | pointer | message |", "| --- | --- | --- | --- |");
    for (const f of document.findings) out.push(mdRow(f.severity, f.code, f.pointer || "/", f.message));
  }
  const flips = document.flips;
  if (flips.length) {
    out.push("", `#### Flipped cases (${flips.length})`, "", "| change | test case | attempt | base | new | graders changed | constraints | error |");
    out.push("| --- | --- | ---: | --- | --- | --- | --- | --- |");
    for (const f of flips.slice(0, MARKDOWN_FLIPS)) {
      out.push(
        mdRow(spaced(f.change), f.test_case_id, f.attempt, f.base, f.new, f.graders_changed.join(", "), (f.constraint_ids ?? []).join(", "), f.error_type === undefined ? "" : f.error_type),
      );
    }
    if (flips.length > MARKDOWN_FLIPS) out.push("", md(`\u2026 and ${flips.length - MARKDOWN_FLIPS} more (--format json or --html lists them all)`));
  }
  return out.join("\n") + "\n";
}
