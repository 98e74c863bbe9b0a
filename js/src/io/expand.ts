/**
 * The documents named on a command line: files, folders (recursively), globs and `-` for stdin (mirrors
 * Python's `expand`). Links to folders are never followed inside a folder or a `**` pattern, so a
 * link loop cannot make the walk endless.
 */

import { lstatSync, readdirSync, statSync } from "node:fs";
import { join, relative as relative_ } from "node:path";
import { compareCodePoints } from "../core/findings.js";
import { INPUT_FORMS, INPUT_SUFFIXES } from "../generated/constants.js";

/** File suffixes read as documents, and how each is read (generated from spec/constants.json). */
export const SUFFIXES: Readonly<Record<string, Form>> = INPUT_SUFFIXES;

/** How an input is read (the `--input-format` choices). */
export type Form = (typeof INPUT_FORMS)[number];

export function isForm(value: unknown): value is Form {
  return (INPUT_FORMS as readonly unknown[]).includes(value);
}

/** The standard input, among the paths. */
export const STDIN = "-";

const MAGIC = /[*?[]/;

/** The suffix of a path's last part, as Python's `PurePath.suffix` (lower-cased). */
export function suffix(path: string): string {
  const name = path.split("/").filter((p) => p !== "").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 && dot < name.length - 1 ? name.slice(dot).toLowerCase() : "";
}

function parts(path: string): string[] {
  const out = path.split("/").filter((p) => p !== "" && p !== ".");
  return path.startsWith("/") ? ["/", ...out] : out;
}

/** Python's ordering of `Path`s: by their parts, compared by code point. */
function byParts(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = compareCodePoints(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  return x.length - y.length;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Every file under `root` (links to files included, links to folders not followed); `depth`: at most this many
 * levels below `root`. Python's `_walk` over `os.walk(followlinks=False)`. */
function* walk(root: string, depth: number | null = null, level = 0): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return;
  }
  const folders: string[] = [];
  for (const name of entries) {
    const path = join(root, name);
    let folder = false;
    try {
      // as os.walk: a link to a folder is listed as a folder (and not entered), anything else as a file
      folder = statSync(path).isDirectory();
    } catch {
      folder = false;
    }
    if (folder) folders.push(path);
    else yield path;
  }
  if (depth !== null && level >= depth - 1) return;
  for (const folder of folders) {
    try {
      if (lstatSync(folder).isSymbolicLink()) continue;
    } catch {
      continue;
    }
    yield* walk(folder, depth, level + 1);
  }
}

/** fnmatch's translation of one name pattern (`*`, `?`, `[…]`, `[!…]`). */
function nameRegex(pattern: string): RegExp {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") out += "[\\s\\S]*";
    else if (c === "?") out += "[\\s\\S]";
    else if (c === "[") {
      const end = pattern.indexOf("]", i + 2);
      if (end < 0) out += "\\[";
      else {
        let body = pattern.slice(i + 1, end);
        if (body.startsWith("!")) body = "^" + body.slice(1);
        out += "[" + body.replace(/\\/g, "\\\\") + "]";
        i = end;
      }
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  return new RegExp(`^(?:${out})$`, "u");
}

function segmentMatches(name: string, pattern: string): boolean {
  if (name.startsWith(".") && !pattern.startsWith(".")) return false; // as the shell: a wildcard skips hidden names
  return nameRegex(pattern).test(name);
}

function matches(names: string[], patterns: string[]): boolean {
  if (patterns.length === 0) return names.length === 0;
  if (patterns[0] === "**") {
    for (let i = 0; i <= names.length; i++) {
      if (names.slice(0, i).some((p) => p.startsWith("."))) break;
      if (matches(names.slice(i), patterns.slice(1))) return true;
    }
    return false;
  }
  return names.length > 0 && segmentMatches(names[0]!, patterns[0]!) && matches(names.slice(1), patterns.slice(1));
}

/** The files a pattern names, found without following links to folders (Python's `_glob`). */
function glob(pattern: string): string[] {
  const all = parts(pattern);
  let fixed = 0;
  while (fixed < all.length - 1 && !MAGIC.test(all[fixed]!)) fixed++;
  const root = fixed ? (all[0] === "/" ? "/" + all.slice(1, fixed).join("/") : all.slice(0, fixed).join("/")) : ".";
  const patterns = all.slice(fixed);
  try {
    if (!statSync(root).isDirectory()) return [];
  } catch {
    return [];
  }
  const depth = patterns.includes("**") ? null : patterns.length;
  const found: string[] = [];
  for (const file of walk(root, depth)) {
    const relative = parts(relative_(root, file));
    if (matches(relative, patterns) && isFile(file)) found.push(fixed ? file : relative.join("/"));
  }
  return found.sort(byParts);
}

/** Files, folders (recursively: every file with one of `SUFFIXES`), globs, and `-` for stdin. */
export function* expand(args: string[]): Generator<string> {
  for (const arg of args) {
    if (arg === STDIN) {
      yield STDIN;
      continue;
    }
    let isDir = false;
    let exists = false;
    try {
      const stat = statSync(arg);
      exists = true;
      isDir = stat.isDirectory();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (!["ENOENT", "ENOTDIR", "ELOOP", "EBADF"].includes(code ?? "")) {
        yield arg; // a name too long, say: the reader says so, for this path alone
        continue;
      }
    }
    if (isDir) {
      const files = [...walk(arg)].filter((p) => suffix(p) in SUFFIXES && isFile(p));
      yield* files.sort(byParts);
    } else if (!exists && MAGIC.test(arg)) {
      const found = glob(arg);
      if (!found.length) yield arg; // reported as unreadable: a pattern that matches nothing is a mistake
      yield* found;
    } else yield arg;
  }
}
