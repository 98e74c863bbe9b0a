import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { JS, ROOT } from "./helpers.js";

const SRC = join(JS, "src");
/** A file path in a comment: folders and a name with one of these suffixes. */
const CITED = /(?<![\w/.-])((?:[\w.-]+\/)*[\w-]+\.(?:py|ts|mjs|js|json|md))\b/g;

/** Where a cited path may start: the citing file's folder, the package, the repository, the specification, the
 * schemas, the built validators, a release. */
const BASES = [".", SRC, JS, ROOT, join(ROOT, "spec"), join(ROOT, "schemas"), join(JS, "dist", "schemas", "prebuilt")].concat(
  readdirSync(join(ROOT, "spec", "releases")).map((release) => join(ROOT, "spec", "releases", release)),
);

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === "generated" ? [] : sources(join(folder, e.name))) : e.name.endsWith(".ts") ? [join(folder, e.name)] : [],
  );
}

/** The comments of a TypeScript text (line and block comments; strings are not comments). */
function comments(text: string): string[] {
  return [...text.matchAll(/\/\*[^]*?\*\/|(?<![:"'`\\])\/\/[^\n]*/g)].map((m) => m[0]);
}

test("comments name symbols: every path one cites exists, and none cites a Python module by its file", () => {
  const stale: string[] = [];
  let cited = 0;
  for (const path of sources(SRC)) {
    const here = dirname(path);
    for (const comment of comments(readFileSync(path, "utf-8"))) {
      for (const [, name] of comment.matchAll(CITED)) {
        cited++;
        // Python's modules move between rooms: a comment names the Python symbol it mirrors instead
        if (name!.endsWith(".py")) stale.push(`${relative(SRC, path)}: ${name} (name the Python symbol)`);
        else if (!BASES.some((base) => existsSync(join(base === "." ? here : base, name!)))) stale.push(`${relative(SRC, path)}: ${name}`);
      }
    }
  }
  assert.ok(cited > 20, "no paths found: the pattern is broken");
  assert.deepEqual(stale, []);
});
