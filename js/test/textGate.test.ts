import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JS, ROOT } from "./helpers.js";

const CLI = join(JS, "dist", "cli.js");
/** What input may hold to act on a terminal or forge a line: ESC and BEL sequences, a bidi override, line and
 * paragraph separators, a carriage return, a new line starting a GitHub workflow command. */
const EVIL = "x\x1b]0;pwn\x07\x1b[31m\u202e\u2028\u2029\r\n::error file=a,line=1::forged%0A\x85";
/** Characters no printed line may hold: controls (a line's own "\n" aside), C1 controls, separators, bidi. */
const UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const dir = mkdtempSync(join(tmpdir(), "evalschema-text-gate-"));
const name = (stem: string, suffix: string) => join(dir, stem + EVIL.replace(/\//g, "_") + suffix);

const good = JSON.parse(readFileSync(join(ROOT, "spec", "examples", "resultset-multi-attempt.json"), "utf-8"));
good.suite_id = EVIL;
good.run_id = EVIL;
for (const row of good.results) for (const g of row.grader_results ?? []) g.grader_id = EVIL + g.grader_id;
delete good.summary;
const bad = structuredClone(good);
bad.results[0].passed = EVIL;
bad[EVIL] = 1;
const files = {
  good: name("good", ".json"),
  bad: name("bad", ".json"),
  lines: name("lines", ".jsonl"),
  suite: name("suite", ".json"),
  missing: name("missing", ".json"),
};
writeFileSync(files.good, JSON.stringify(good));
writeFileSync(files.bad, JSON.stringify(bad));
writeFileSync(files.lines, JSON.stringify(good) + "\n" + JSON.stringify(bad) + "\n{\n");
writeFileSync(
  files.suite,
  JSON.stringify({ version: "1.2.0", id: EVIL, graders: [{ id: EVIL, type: "exact_match" }, { id: EVIL, type: "exact_match" }], test_cases: [{ id: EVIL, input: "q", graders: [EVIL + "?"] }] }),
);

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf-8", env: { ...process.env, NO_COLOR: "1" } });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** Every line printed is one line that cannot act on a terminal; only `github` output starts workflow commands. */
function assertSafe(what: string, text: string, github = false): void {
  assert.ok(text.length > 0, `${what}: nothing printed, nothing proven`);
  for (const line of text.split("\n")) {
    assert.doesNotMatch(line, UNSAFE, `${what}: ${JSON.stringify(line)}`);
    if (github) assert.match(line, /^(::(error|warning|notice) [^:]*::.*)?$/, `${what}: ${JSON.stringify(line)}`);
    else assert.ok(!line.startsWith("::"), `${what} forges a workflow command: ${JSON.stringify(line)}`);
  }
  // the input's text is there, shown escaped
  assert.ok(text.includes("\\x1b]0;pwn\\x07\\x1b[31m\\u202e\\u2028\\u2029"), `${what}: the input is not quoted at all`);
}

const all = [files.good, files.bad, files.lines, files.suite, files.missing];
for (const format of ["text", "github"]) {
  test(`validate --format ${format}: every quoted string (file names, ids, messages) escaped`, () => {
    for (const extra of [[], ["-v"], ["--stream", "always"]]) {
      if (format === "github" && extra[0] === "-v") continue;
      const out = run("validate", "--format", format, ...extra, ...all);
      assert.equal(out.status, 2);
      assertSafe(`validate ${format} ${extra.join(" ")}`, out.stdout, format === "github");
    }
  });
}

test("summarize: file names, suite and run ids, grader ids, the attempt line and errors escaped", () => {
  for (const extra of [[], ["--force"], ["--stream", "always", "--force"]]) {
    const out = run("summarize", ...extra, files.good, files.bad, files.lines, files.missing);
    assert.equal(out.status, 2);
    assertSafe(`summarize ${extra.join(" ")}`, out.stdout);
    assertSafe(`summarize ${extra.join(" ")} (stderr)`, out.stderr);
    assert.ok(out.stdout.includes(": attempts: flip rate"), "no attempt line: this test would not see it");
  }
});

test("usage errors and --suite refusals quote what they were given escaped", () => {
  const cases: string[][] = [
    [EVIL],
    ["validate", "--format", EVIL, files.good],
    ["validate", "--kind", EVIL, files.good],
    ["validate", "--spec-version", EVIL, files.good],
    ["validate", `--bogus${EVIL}`, files.good],
    ["validate", `--strict=${EVIL}`, files.good],
    ["validate", "--suite", files.missing, files.good],
    ["validate", "--suite", files.lines, files.good],
  ];
  for (const args of cases) {
    const out = run(...args);
    assert.equal(out.status, 2, args.join(" "));
    assertSafe(`usage ${args.slice(0, 2).join(" ")}`, out.stderr);
  }
});
