/**
 * A stage of the pipeline (pipeline.ts): what one rule, or the schema engine, or the summary does with the pieces a
 * source yields. A source yields the document's own members and its rows in batches; a whole document is the
 * one-batch case. Every step is optional and returns the findings it makes (most make theirs in `finish`).
 *
 * Order: `rows` for each batch, in document order; `envelope` once the document's own members are all known —
 * before the rows when the document was read whole, after them when it was read in pieces (members may follow
 * `results` in the file); `finish` last. State kept across rows must be compact: a stream may hold millions.
 */

import type { Finding } from "./findings.js";

/** The document's own members: every field but its rows (`results: []` when they are streamed). */
export type Members = { [key: string]: unknown };

export interface Stage {
  envelope?(members: Members): Iterable<Finding>;
  rows?(batch: readonly unknown[], start: number): Iterable<Finding>;
  finish?(members: Members): Iterable<Finding>;
}
