// --spec-version / `specVersion`: validate against a published release (spec/releases/<version>/, shipped in the
// package's schemas/releases/) instead of the working schemas, as the Python SDK's `spec_version` does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { availableReleases, KINDS, specVersion, UNKNOWN_FIELD, validate, validateFile } from "evalschema";
import { JS, ROOT } from "./helpers.js";

const CLI = join(JS, "dist", "cli.js");
const RELEASES = join(ROOT, "spec", "releases");
const published = readdirSync(RELEASES).filter((name) => existsSync(join(RELEASES, name, "manifest.json")));

/** A result set whose row carries `constraint_violations`: a field the first release did not have. */
function resultset(version: string): Record<string, unknown> {
  const row = {
    test_case_id: "t1",
    grader_results: [{ grader_id: "g", type: "contains", score: 1, passed: true }],
    passed: true,
    constraint_violations: [{ id: "rbac_scope", invalidates_result: false }],
  };
  return { version, suite_id: "s", run_id: "r1", started_at: "2026-10-15T09:00:00Z", results: [row] };
}

test("every published release is bundled, oldest first", () => {
  assert.deepEqual([...availableReleases()].sort(), [...published].sort());
  assert.ok(availableReleases().length >= 2);
  assert.ok(availableReleases().includes(specVersion()), "the working version is a release too");
});

test("a pinned release judges by its own schemas, and the pin ends with the call", () => {
  const [first, second] = availableReleases() as [string, string];
  const pinned = validate(resultset(first), { specVersion: first });
  assert.deepEqual(
    pinned.errors.map((f) => [f.code, f.pointer]),
    [[UNKNOWN_FIELD, "/results/0/constraint_violations"]],
  );
  assert.deepEqual(validate(resultset(second), { specVersion: second }).errors, []);
  assert.deepEqual(validate(resultset(first)).errors, [], "the working schemas again");
  assert.equal(specVersion(), availableReleases().at(-1));
});

test("a file read in pieces under a pinned release reports what reading it whole does", () => {
  const [first] = availableReleases() as [string];
  const dir = mkdtempSync(join(tmpdir(), "evalschema-spec-version-"));
  const path = join(dir, "run.json");
  writeFileSync(path, JSON.stringify(resultset(first), null, 2));
  const whole = validateFile(path, { specVersion: first, streamRows: false });
  const streamed = validateFile(path, { specVersion: first, streamRows: true });
  assert.equal(whole.errors.length, 1);
  assert.deepEqual(streamed, whole);
});

test("every kind of every release compiles from the bundled files alone", () => {
  for (const version of availableReleases()) {
    for (const kind of KINDS) {
      const report = validate({}, { kind, specVersion: version });
      assert.equal(report.kind, kind, `${version} ${kind}`);
    }
  }
});

test("an unknown release: the API throws, the command line says which exist (exit 2)", () => {
  assert.throws(() => validate(resultset("1.0.0"), { specVersion: "0.0.1" }), /no bundled release "0\.0\.1"; available: /);
  const out = spawnSync(process.execPath, [CLI, "validate", "--spec-version", "0.0.1", join(ROOT, "spec", "examples", "suite-qa-basic.json")], { encoding: "utf-8" });
  assert.equal(out.status, 2);
  assert.equal(out.stderr, `evalschema-js: --spec-version 0.0.1: no such release; available: ${availableReleases().join(", ")}\n`);
  assert.equal(out.stdout, "");
});
