import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DUPLICATE_KEY, FILE_UNREADABLE, INVALID_JSON, REQUIRED_FIELD } from "evalschema";
import { JS, ROOT } from "./helpers.js";

const CLI = join(JS, "dist", "cli.js");
const examples = join(ROOT, "spec", "examples");

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const out = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf-8" });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "evalschema-js-"));
function file(name: string, text: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test("validate --format json: every example is valid, exit 0", () => {
  const paths = ["grader-llm-judge.json", "suite-qa-basic.json", "resultset-multi-attempt.json"].map((n) => join(examples, n));
  const out = run("validate", "--format", "json", ...paths);
  assert.equal(out.status, 0, out.stderr);
  const report = JSON.parse(out.stdout);
  assert.deepEqual(report.summary, { files: 3, valid: 3, invalid: 0, unreadable: 0 });
  assert.deepEqual(Object.keys(report.files[0]), ["path", "kind", "valid", "errors", "warnings"]); // as the Python CLI writes it
  assert.equal(report.files[1].kind, "suite");
});

test("an invalid document: exit 1, findings with code, severity, pointer, message, line and column", () => {
  const path = file("grader.json", JSON.stringify({ type: "contains", params: { substring: "x" } }));
  const out = run("validate", "--format=json", "--kind", "grader", path);
  assert.equal(out.status, 1);
  const [entry] = JSON.parse(out.stdout).files;
  assert.equal(entry.valid, false);
  assert.deepEqual(entry.errors.map((f: { code: string; pointer: string }) => [f.code, f.pointer]), [[REQUIRED_FIELD, "/id"]]);
  assert.deepEqual(Object.keys(entry.errors[0]), ["code", "severity", "pointer", "message", "line", "column"]);
  // a missing property is placed at its parent: the root object, 1:1
  assert.deepEqual([entry.errors[0].line, entry.errors[0].column], [1, 1]);
});

test("unreadable and unparseable inputs: exit 2, the others still checked", () => {
  mkdirSync(join(dir, "a-directory"), { recursive: true });
  const paths = [
    file("bad.json", '{\n  "id": "x",\n  "type": }'),
    file("dup.json", '{"id": "x", "id": "y", "type": "human"}'),
    file("nan.json", '{"id": "x", "type": "human", "weight": NaN}'),
    file("latin1.bin", Buffer.from([0x7b, 0x0a, 0x22, 0xe9, 0x22, 0x7d])),
    join(dir, "missing.json"),
    join(dir, "a-directory"), // a folder gives its documents: none here
    join(examples, "grader-llm-judge.json"),
  ];
  const out = run("validate", "--format", "json", ...paths);
  assert.equal(out.status, 2);
  const report = JSON.parse(out.stdout);
  const codes = report.files.map((e: { errors: { code: string }[] }) => e.errors[0]?.code ?? null);
  assert.deepEqual(codes, [INVALID_JSON, DUPLICATE_KEY, INVALID_JSON, FILE_UNREADABLE, FILE_UNREADABLE, null]);
  assert.deepEqual([report.files[0].errors[0].line, report.files[0].errors[0].column], [3, 11]);
  assert.deepEqual([report.files[3].errors[0].line, report.files[3].errors[0].column], [2, 2]);
  assert.deepEqual(report.summary, { files: 6, valid: 1, invalid: 0, unreadable: 5 });
});

test("--strict turns warnings into errors", () => {
  const pack = join(examples, "pack-legacy-fail-on-violation.json");
  assert.equal(run("validate", "--format", "json", pack).status, 0);
  const strict = run("validate", "--strict", "--format", "json", pack);
  assert.equal(strict.status, 1);
  assert.equal(JSON.parse(strict.stdout).files[0].warnings.length, 0);
});

test("usage errors exit 2", () => {
  assert.equal(run().status, 2);
  assert.equal(run("validate").status, 2);
  assert.equal(run("validate", "--kind", "nope", "x.json").status, 2);
  assert.equal(run("frobnicate", "x.json").status, 2);
});

test("--version names the spec version", () => {
  const out = run("--version");
  assert.equal(out.status, 0);
  // the one version: the working schemas' $id
  const id = (JSON.parse(readFileSync(join(ROOT, "schemas", "common.json"), "utf-8")) as { $id: string }).$id;
  const version = /\/schema\/([^/]+)\//.exec(id)![1]!;
  assert.equal(out.stdout.split("\n")[0], `evalschema-js ${version} (spec ${version})`);
});

test("summarize --format json prints the reference summary of each result set", () => {
  const path = join(examples, "resultset-multi-attempt.json");
  const out = run("summarize", "--format", "json", path);
  assert.equal(out.status, 0, out.stderr);
  const [item] = JSON.parse(out.stdout);
  assert.equal(item.path, path);
  assert.equal(typeof item.summary.total, "number");
  const text = run("summarize", path);
  // as the Python command writes it (tests/test_js_summarize.py compares the two line for line)
  assert.match(text.stdout, /  results \d+: passed \d+, failed \d+ .*\n  pass rate [\d.]+% of \d+ scored/);
});

test("summarize: a file that is not an object exits 2", () => {
  const out = run("summarize", "--format", "json", file("list.json", "[]"));
  assert.equal(out.status, 2);
  assert.deepEqual(JSON.parse(out.stdout), []);
});
