import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JS, ROOT } from "./helpers.js";

const CLI = join(JS, "dist", "cli.js");
const dir = mkdtempSync(join(tmpdir(), "evalschema-read-once-"));

/** Loaded before the command: counts the bytes `readSync` reads from each path `openSync` opened. */
const COUNTER = join(dir, "count-reads.mjs");
writeFileSync(
  COUNTER,
  `import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const paths = new Map();
const bytes = {};
const open = fs.openSync;
fs.openSync = function (path, ...rest) {
  const fd = open.call(this, path, ...rest);
  paths.set(fd, String(path));
  return fd;
};
const read = fs.readSync;
fs.readSync = function (fd, ...rest) {
  const n = read.call(this, fd, ...rest);
  const path = paths.get(fd);
  if (path !== undefined) bytes[path] = (bytes[path] ?? 0) + n;
  return n;
};
syncBuiltinESMExports();
process.on("exit", () => process.stderr.write("READ " + JSON.stringify(bytes) + "\\n"));
`,
);

function bytesRead(...args: string[]): { status: number | null; read: Record<string, number> } {
  const out = spawnSync(process.execPath, ["--import", pathToFileURL(COUNTER).href, CLI, ...args], { encoding: "utf-8" });
  const line = out.stderr.split("\n").find((l) => l.startsWith("READ "));
  assert.ok(line !== undefined, out.stderr);
  return { status: out.status, read: JSON.parse(line.slice(5)) as Record<string, number> };
}

const examples = readdirSync(join(ROOT, "spec", "examples"))
  .filter((n) => n.startsWith("resultset-") && n.endsWith(".json"))
  .map((n) => join(ROOT, "spec", "examples", n));
const lines = join(dir, "results.jsonl");
writeFileSync(lines, examples.map((p) => JSON.stringify(JSON.parse(readFileSync(p, "utf-8")))).join("\n") + "\n");

for (const stream of ["never", "always"]) {
  test(`summarize reads each file once (--stream ${stream}): its summary is built while it is checked`, () => {
    assert.ok(examples.length >= 3);
    for (const format of ["text", "json"]) {
      const { status, read } = bytesRead("summarize", "--format", format, "--stream", stream, ...examples, lines);
      assert.equal(status, 0);
      for (const path of [...examples, lines]) assert.equal(read[path], statSync(path).size, `${path} (${format})`);
    }
  });
}
