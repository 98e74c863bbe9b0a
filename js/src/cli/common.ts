/** What every command of `evalschema-js` shares: its name, usage errors, and writing to a stdout whose reader may go. */

import { visible } from "../core/display.js";
import { OutputRefused } from "../io/outputGate.js";

export const PROG = "evalschema-js";

/** A usage error; `usage`: argparse's kind (printed after the usage text), else the command's own. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage = true,
  ) {
    super(message);
  }
}

/** argparse's refusal of a value that is not one of an option's `choices` (the value shown escaped, as its repr). */
export function invalidChoice(option: string, value: string | undefined, choices: readonly string[]): UsageError {
  return new UsageError(`argument ${option}: invalid choice: '${visible(value ?? "")}' (choose from ${choices.map((c) => `'${c}'`).join(", ")})`);
}

let readerGone = false;

export function write(text: string): void {
  if (readerGone) return;
  try {
    process.stdout.write(text);
  } catch {
    readerGone = true; // stdout is closed or not writable: keep the exit status
  }
}

/**
 * The reader of stdout may go away (`| head -1`): the write then fails later, as an "error" event (EPIPE), which
 * would otherwise end the process with a stack trace. Stop writing and keep the exit status.
 */
export function quietStreams(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => {
      readerGone ||= stream === process.stdout;
    });
  }
}

/** Run `act` (a check or a write of a report page); an OutputRefused is printed, as the output gate's refusal. */
export function htmlWritable(act: () => void): boolean {
  try {
    act();
    return true;
  } catch (error) {
    if (!(error instanceof OutputRefused)) throw error;
    process.stderr.write(`${PROG}: ${error.message}; nothing was changed\n`);
    return false;
  }
}
