import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { render } from "evalschema";
import { FILE_UNREADABLE } from "evalschema";
import { JS, ROOT } from "./helpers.js";

const CLI = join(JS, "dist", "cli.js");
const SRC = join(JS, "src");
const NOT_REGULAR = render(FILE_UNREADABLE, {}, "not_regular");
const dir = mkdtempSync(join(tmpdir(), "evalschema-gate-"));
const example = join(ROOT, "spec", "examples", "resultset-multi-attempt.json");

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === "generated" ? [] : sources(join(folder, e.name))) : e.name.endsWith(".ts") ? [join(folder, e.name)] : [],
  );
}

test("one input gate: only openInput opens a file; nothing else reads one by name", () => {
  const opens: string[] = [];
  for (const path of sources(SRC)) {
    const name = relative(SRC, path);
    const text = readFileSync(path, "utf-8");
    // the package's own schemas and validators are read by name; every input goes through the gate
    if (name.startsWith("schemas/")) continue;
    for (const call of text.match(/\b(openSync|readFileSync|createReadStream|openAsBlob|readFile|open)\(/g) ?? []) opens.push(`${name}: ${call}`);
  }
  assert.deepEqual(opens, ["io/loader.ts: openSync("]);
  assert.match(readFileSync(join(SRC, "io", "loader.ts"), "utf-8"), /export function openInput\([^]*?openSync\([^]*?\n}\n/);
});

/**
 * Loaded before the command: the first time `target` is opened, a FIFO is renamed over it just before the open
 * (a file swapped between any check by name and the open); and the bytes read from each opened path are counted.
 */
const HOOK = join(dir, "hook.mjs");
writeFileSync(
  HOOK,
  `import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const target = process.env.GATE_SWAP_TARGET;
const fifo = process.env.GATE_SWAP_FIFO;
const paths = new Map();
const bytes = {};
const open = fs.openSync;
fs.openSync = function (path, ...rest) {
  if (target && String(path) === target && fs.existsSync(fifo)) fs.renameSync(fifo, target);
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

function run(env: Record<string, string>, ...args: string[]): { status: number | null; stdout: string; stderr: string; read: Record<string, number> } {
  const out = spawnSync(process.execPath, ["--import", pathToFileURL(HOOK).href, CLI, ...args], {
    encoding: "utf-8",
    env: { ...process.env, ...env },
    timeout: 20_000,
  });
  const line = out.stderr.split("\n").find((l) => l.startsWith("READ "));
  return { status: out.status, stdout: out.stdout, stderr: out.stderr, read: line ? (JSON.parse(line.slice(5)) as Record<string, number>) : {} };
}

const SWAPS: [string, string[]][] = [
  ["a.json", ["validate", "--format", "json"]],
  ["b.json", ["validate", "--format", "json", "--stream", "always"]],
  ["c.jsonl", ["validate", "--format", "json"]],
  ["d.yaml", ["validate", "--format", "json"]],
];

for (const [name, args] of SWAPS) {
  test(`a file that becomes a FIFO just before it is opened is refused at once, not waited on (${args.join(" ")} ${name})`, () => {
    const target = join(dir, name);
    copyFileSync(example, target);
    const fifo = join(dir, `${name}.fifo`);
    execFileSync("mkfifo", [fifo]);
    const out = run({ GATE_SWAP_TARGET: target, GATE_SWAP_FIFO: fifo }, ...args, target);
    assert.ok(statSync(target).isFIFO(), "the hook did not swap the file: this test would prove nothing");
    assert.equal(out.status, 2, out.stderr);
    const [entry] = JSON.parse(out.stdout).files;
    assert.deepEqual(
      entry.errors.map((f: { code: string; message: string }) => [f.code, f.message]),
      [[FILE_UNREADABLE, NOT_REGULAR]],
    );
  });
}

test("summarize: a file swapped for a FIFO just before it is opened is refused at once (exit 2, named)", () => {
  for (const stream of ["never", "always"]) {
    const target = join(dir, `s-${stream}.json`);
    copyFileSync(example, target);
    const fifo = join(dir, `s-${stream}.fifo`);
    execFileSync("mkfifo", [fifo]);
    const out = run({ GATE_SWAP_TARGET: target, GATE_SWAP_FIFO: fifo }, "summarize", "--stream", stream, target);
    assert.equal(out.status, 2, out.stderr);
    assert.ok(out.stderr.includes(`evalschema-js: ${target}: ${FILE_UNREADABLE}: ${NOT_REGULAR}\n`), out.stderr);
  }
});

test("/dev/zero and a FIFO, in every form and command: refused with exit 2 before a single byte is read", () => {
  const fifo = join(dir, "plain.fifo");
  execFileSync("mkfifo", [fifo]);
  const forms: string[][] = [[], ["--input-format", "json"], ["--input-format", "jsonl"], ["--input-format", "yaml"], ["--stream", "always"]];
  for (const command of ["validate", "summarize"]) {
    for (const form of forms) {
      const out = run({}, command, ...form, "/dev/zero", fifo);
      assert.equal(out.status, 2, `${command} ${form.join(" ")}: ${out.stderr}`);
      assert.deepEqual(out.read, {}, `${command} ${form.join(" ")} read from a device or a FIFO`);
      const said = command === "validate" ? out.stdout : out.stderr;
      for (const path of ["/dev/zero", fifo]) assert.ok(said.includes(path) && said.includes(NOT_REGULAR), `${command} ${form.join(" ")}: ${said}`);
    }
  }
});
