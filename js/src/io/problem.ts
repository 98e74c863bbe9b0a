/**
 * The one problem type of every reader: why an input cannot be read, as a ledger code, a message and a place.
 *
 * The strict JSON reader, the YAML reader and the streamed reader all throw (or, for the stream, keep) a
 * `ReadProblem`; it becomes a `Finding` only where a document's reading ends. Callers decide on `code` and
 * `variant`, never on the message text. (Python: `evalschema.io.problem.ReadProblem`.)
 */

import { finding, type Finding } from "../core/findings.js";
import { render, type Params } from "../core/messages.js";

export class ReadProblem extends Error {
  /** The 1-based line and column, where known. */
  where: [number, number] | null = null;

  /**
   * `code`: the ledger code; `variant`: the message variant (spec/ledger.json) and `params` its values, which render
   * the message unless `message` is given; `index`: where in what was read (a string index in a text, a byte
   * offset in a streamed file), or null.
   */
  constructor(
    readonly code: string,
    readonly variant: string = "default",
    readonly index: number | null = null,
    readonly params: Params = {},
    message?: string,
  ) {
    super(message ?? render(code, params, variant));
  }

  /** Whether the text ended where more was expected (a piece cut short, not a wrong character). */
  get atEnd(): boolean {
    return this.variant === "end";
  }

  /** The error finding this problem is, at its place (no place: the whole document). */
  finding(): Finding {
    return this.where === null
      ? finding("", this.code, "error", this.message)
      : finding("", this.code, "error", this.message, this.where[0], this.where[1]);
  }
}
