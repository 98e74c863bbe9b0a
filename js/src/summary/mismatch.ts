/** SUMMARY_MISMATCH: a result set's claimed `summary` against the reference summary of its rows, as a stage that
 * builds the reference summary from the rows it is fed (whole or in batches; mirrors Python's summary stage). */

import { finding, pointer, type Finding } from "../core/findings.js";
import { render } from "../core/messages.js";
import type { Members, Stage } from "../core/stage.js";
import { NO_RESULTS, SUMMARY_TOLERANCE } from "../generated/constants.js";
import * as codes from "../generated/rules.js";
import { get, isObject, type JsonObject } from "../core/json.js";
import type { Unit } from "../rules/rule.js";
import { summarize, SummaryBuilder, type Summary } from "./summary.js";

export { SUMMARY_TOLERANCE };
/** A grader without results, indexable by name. */
const noResults: Readonly<Record<string, unknown>> = NO_RESULTS;

/**
 * Whether a claimed summary value differs from the computed one, compared as JSON values (SPEC §4.5), the same in
 * every language: a number (never a boolean) matches a number within SUMMARY_TOLERANCE, null only null, true and
 * false only themselves; anything else differs.
 */
function differs(claimed: unknown, computed: unknown): boolean {
  if (typeof claimed === "number" && typeof computed === "number") {
    return !(claimed === computed || Math.abs(claimed - computed) <= SUMMARY_TOLERANCE);
  }
  if (typeof claimed === "boolean" || claimed === null || typeof computed === "boolean" || computed === null) return claimed !== computed;
  return true;
}

/** Compare a producer's `summary` with the reference summary, field by field. */
export function* summaryMismatches(resultset: JsonObject): Generator<Finding> {
  const claimed = get(resultset, "summary");
  if (!isObject(claimed)) return;
  yield* summaryMismatchesAgainst(claimed, summarize(resultset));
}

/** Compare a producer's claimed `summary` with a reference summary (of rows read whole or in batches). */
export function* summaryMismatchesAgainst(claimed: unknown, summary: Summary): Generator<Finding> {
  if (!isObject(claimed)) return;
  const reference = summary as unknown as Record<string, unknown>;
  const byGrader = reference["by_grader"] as Record<string, Record<string, unknown>>;
  const mismatch = (tokens: string[], said: unknown, want: unknown): Finding =>
    finding(pointer("summary", ...tokens), codes.SUMMARY_MISMATCH, "warning", render(codes.SUMMARY_MISMATCH, { value: said, expected: want }));
  for (const [field, value] of Object.entries(claimed)) {
    if (field === "by_grader" && isObject(value)) {
      for (const [graderId, totals] of Object.entries(value)) {
        // a grader with no results has zero counts and no average
        const expected = Object.prototype.hasOwnProperty.call(byGrader, graderId) ? byGrader[graderId]! : noResults;
        if (!isObject(totals)) continue;
        for (const [name, number] of Object.entries(totals)) {
          if (name === "per_test_case" && isObject(number)) {
            // the per-test-case view (SPEC §4.7): its numbers, one by one, where the reference has them
            const view = (isObject(expected[name]) ? expected[name] : {}) as Record<string, unknown>;
            for (const [key, said] of Object.entries(number)) {
              if (key !== "reducer" && Object.prototype.hasOwnProperty.call(view, key) && differs(said, view[key])) {
                yield mismatch(["by_grader", graderId, name, key], said, view[key]);
              }
            }
          } else if (Object.prototype.hasOwnProperty.call(expected, name) && differs(number, expected[name])) {
            yield mismatch(["by_grader", graderId, name], number, expected[name]);
          }
        }
      }
    } else if (field === "attempts" && isObject(value)) {
      const expected = (reference["attempts"] ?? {}) as Record<string, unknown>;
      for (const [name, number] of Object.entries(value)) {
        if (Object.prototype.hasOwnProperty.call(expected, name) && differs(number, expected[name])) {
          yield mismatch(["attempts", name], number, expected[name]);
        }
      }
    } else if (Object.prototype.hasOwnProperty.call(reference, field) && field !== "by_grader" && differs(value, reference[field])) {
      yield mismatch([field], value, reference[field]);
    }
  }
}

/**
 * The reference summary of the rows a stage is fed. When the members come first (a document read whole) and the
 * result set claims no summary, no row is counted: nothing would be compared (`summarize` then builds it alone).
 */
export class SummaryStage implements Stage {
  private readonly builder = new SummaryBuilder();
  /** Whether the rows are wanted: unknown (null) until the members are. */
  private wanted: boolean | null;
  /** The result set's `graders`, whose reducers the per-test-case view follows (SPEC §4.7). */
  private provenance: unknown;

  /** `compare`: false to build the summary whatever the document claims (summarize, summarizeFile). */
  constructor(private readonly compare = true) {
    this.wanted = compare ? null : true;
  }

  envelope(members: Members): Finding[] {
    if (this.wanted === null) this.wanted = isObject(get(members, "summary"));
    this.provenance = get(members, "graders");
    return [];
  }

  rows(batch: readonly unknown[]): Finding[] {
    if (this.wanted === false) return [];
    const builder = this.builder;
    for (const item of batch) if (isObject(item)) builder.add(item);
    return [];
  }

  finish(members: Members): Iterable<Finding> {
    this.provenance = get(members, "graders");
    return this.compare ? summaryMismatchesAgainst(get(members, "summary"), this.builder.build(this.provenance)) : [];
  }

  /** The reference summary of the rows fed so far; `provenance`: the result set's `graders`, when this stage's
   * envelope step did not see them (a stream whose members come after its rows). */
  summary(provenance?: unknown): Summary {
    return this.builder.build(provenance ?? this.provenance);
  }
}

/** The function of the ledger's unit `summary` (rules/registry.ts `bindUnits` binds it to the unit's rules). */
export const SUMMARY_UNIT: Omit<Unit, "name" | "kinds"> = { family: "summary", stage: () => new SummaryStage() };
