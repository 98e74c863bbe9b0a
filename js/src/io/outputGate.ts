/**
 * Writing a report page as Python's output gate (`evalschema.io.gate.Outputs`) writes one file: a regular file or
 * a new path only, in a folder that exists; written whole to a temporary file beside it, then renamed over the
 * target (never half-written); a new file gets the mode the umask gives, an existing one keeps its own; no
 * message names the temporary file. The reasons are the gate's words.
 */

import { chmodSync, constants, lstatSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";

/** An output that is not written; nothing was changed. */
export class OutputRefused extends Error {}

function kind(mode: number): string {
  const type = mode & constants.S_IFMT;
  if (type === constants.S_IFDIR) return "a folder";
  if (type === constants.S_IFCHR) return "a character device";
  if (type === constants.S_IFBLK) return "a block device";
  if (type === constants.S_IFIFO) return "a FIFO";
  if (type === constants.S_IFSOCK) return "a socket";
  return "not a regular file";
}

/** Check where `target` would be written; throws OutputRefused naming `target` or its folder. `inputs`: the files
 * the command reads, which the output must not replace (the same file under another name or a hard link too). */
export function checkOutput(target: string, shown: (path: string) => string, inputs: readonly string[] = []): void {
  const folder = dirname(target);
  let parent;
  try {
    parent = statSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new OutputRefused(`${shown(folder)}: ${code === "ENOENT" ? "no such folder" : code === "ENOTDIR" ? "not a folder" : String(code)}`);
  }
  if (!parent.isDirectory()) throw new OutputRefused(`${shown(folder)}: not a folder`);
  let stat;
  try {
    stat = lstatSync(target);
  } catch {
    return; // a new path
  }
  if (stat.isSymbolicLink()) throw new OutputRefused(`${shown(target)}: is a symbolic link; name the file itself`);
  if (!stat.isFile()) throw new OutputRefused(`${shown(target)}: not a regular file (${kind(stat.mode)}); an output goes to a regular file or a new path`);
  for (const input of inputs) {
    let read;
    try {
      read = statSync(input);
    } catch {
      continue; // an input that cannot be read is reported by its reading
    }
    if (read.dev === stat.dev && read.ino === stat.ino) throw new OutputRefused(`${shown(target)}: is an input; the output would replace it`);
  }
}

/** Write `text` to `target` (checked first, see `checkOutput`). */
export function writeOutput(target: string, text: string, shown: (path: string) => string, inputs: readonly string[] = []): void {
  checkOutput(target, shown, inputs);
  let mode: number | null = null;
  try {
    mode = statSync(target).mode & 0o7777;
  } catch {
    mode = null;
  }
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    // a new file (O_EXCL), flushed to the disk before it replaces the target
    writeFileSync(temporary, text, { encoding: "utf-8", flag: "wx", mode: 0o666, flush: true });
    if (mode !== null) chmodSync(temporary, mode);
    renameSync(temporary, target);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? "the write failed";
    if (reason !== "EEXIST") rmSync(temporary, { force: true }); // never another's file of the same name
    throw new OutputRefused(`${shown(target)}: cannot write: ${reason}`);
  }
}
