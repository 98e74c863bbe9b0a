// The working schemas' fast validators are generated at build time (src/schemas/prebuilt.ts): they must be the ones
// validation uses, only for the schemas they were generated from, and a run that does not need Ajv must not load it.
// Without them (or with schemas changed since the build) everything is compiled at run time, with the same answers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { availableReleases, KINDS, specVersion, type Kind } from "evalschema";
import { JS, ROOT } from "./helpers.js";

type Validator = (value: unknown) => boolean;

// internal modules, not part of the package's API: loaded from the build by path
const internal = async <T>(path: string): Promise<T> => (await import(pathToFileURL(join(JS, "dist", ...path.split("/"))).href)) as T;
const schemas = await internal<{
  compiledKind: (kind: Kind) => { isValid: Validator };
  compiledProperty: (kind: Kind, property: string) => { isValid: Validator };
  current: () => { digest: string };
  partName: (kind: Kind, property: string) => string;
  withSpecVersion: <T>(version: string, fn: () => T) => T;
}>("schemas/schemas.js");
const prebuilt = await internal<{ prebuiltValidator: (digest: string, kind: string, name: string) => Validator | undefined }>("schemas/prebuilt.js");
const { ROWS_STAND_ALONE } = await internal<{ ROWS_STAND_ALONE: Record<string, Record<string, boolean>> }>("generated/_rows.js");

test("the working schemas' fast validators are the prebuilt ones, for every kind and every row array", () => {
  const digest = schemas.current().digest;
  let parts = 0;
  for (const kind of KINDS) {
    const own = prebuilt.prebuiltValidator(digest, kind, kind);
    assert.equal(typeof own, "function", kind);
    assert.equal(schemas.compiledKind(kind).isValid, own, kind);
    for (const [array, standsAlone] of Object.entries(ROWS_STAND_ALONE[`${kind}.json`] ?? {})) {
      if (!standsAlone) continue;
      const part = prebuilt.prebuiltValidator(digest, kind, schemas.partName(kind, array));
      assert.equal(typeof part, "function", `${kind} ${array}`);
      assert.equal(schemas.compiledProperty(kind, array).isValid, part, `${kind} ${array}`);
      parts++;
    }
  }
  assert.ok(parts > 0);
});

test("a prebuilt validator is never taken for other schemas: another digest, or a pinned release", () => {
  assert.equal(prebuilt.prebuiltValidator("0".repeat(64), "resultset", "resultset"), undefined);
  const digest = schemas.current().digest;
  const own = prebuilt.prebuiltValidator(digest, "resultset", "resultset");
  // the release of the working schemas' own version is those schemas (`load` gives them): the others are not
  const others = availableReleases().filter((release) => release !== specVersion());
  assert.ok(others.length > 0);
  for (const release of others) {
    const pinned = schemas.withSpecVersion(release, () => schemas.compiledKind("resultset").isValid);
    assert.equal(typeof pinned, "function", release);
    assert.notEqual(pinned, own, release);
  }
});

/**
 * Run in a child process against the build in `dist`: each document (an example file, read streamed and whole; each
 * conformance fixture's document) validated, and the packages the run loaded that a valid JSON document's need not.
 */
const CHILD = `
import { createRequire } from "node:module";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const [dist, root, what] = process.argv.slice(1);
const sdk = await import(pathToFileURL(join(dist, "index.js")).href);
const outcomes = [];
const outcome = (name, report) => outcomes.push([name, report.valid, report.errors.map((f) => f.code + " " + f.pointer), report.warnings.map((f) => f.code + " " + f.pointer)]);
const examples = join(root, "spec", "examples");
for (const name of readdirSync(examples).filter((n) => n.endsWith(".json")).sort()) {
  outcome(name + " streamed", sdk.validateFile(join(examples, name), { streamRows: true }));
  outcome(name + " whole", sdk.validateFile(join(examples, name), { streamRows: false }));
}
if (what === "all") {
  const fixtures = join(root, "spec", "conformance");
  for (const name of readdirSync(fixtures).filter((n) => n.endsWith(".json")).sort()) {
    const fixture = JSON.parse(readFileSync(join(fixtures, name), "utf-8"));
    outcome(name, sdk.validate(fixture.document, { kind: fixture.kind ?? undefined }));
  }
}
// the files of packages the run loaded, as paths under node_modules ("ajv/dist/runtime/ucs2length.js")
const loaded = Object.keys(createRequire(import.meta.url).cache)
  .map((path) => path.replaceAll("\\\\", "/"))
  .filter((path) => path.includes("/node_modules/"))
  .map((path) => path.slice(path.lastIndexOf("/node_modules/") + "/node_modules/".length));
process.stdout.write(JSON.stringify({ outcomes, loaded: loaded.sort() }));
`;

interface ChildRun {
  outcomes: unknown[];
  loaded: string[];
}

function run(dist: string, what: "examples" | "all"): ChildRun {
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD, dist, ROOT, what], { encoding: "utf-8", maxBuffer: 64 * 2 ** 20 });
  assert.equal(out.stderr, "");
  assert.equal(out.status, 0);
  return JSON.parse(out.stdout) as ChildRun;
}

test("a valid JSON document's run loads neither Ajv's compiler, nor yaml, nor difflib", () => {
  const { outcomes, loaded } = run(join(JS, "dist"), "examples");
  assert.ok(outcomes.length > 0 && outcomes.every((o) => (o as [string, boolean])[1]), JSON.stringify(outcomes));
  // the prebuilt code takes one helper from Ajv's run-time folder, which loads nothing else
  assert.deepEqual(loaded, ["ajv/dist/runtime/ucs2length.js"]);
});

test("without the prebuilt files, or with schemas changed since the build, validators are compiled at run time, with the same answers", () => {
  const expected = run(join(JS, "dist"), "all");
  // a copy of the build beside the real one (node_modules resolves from js/), the schemas where dist expects them
  const scratch = mkdtempSync(join(JS, ".prebuilt-test-"));
  try {
    cpSync(join(JS, "dist"), join(scratch, "dist"), { recursive: true, filter: (path) => !path.includes(`${join("dist", "test")}`) });
    cpSync(join(JS, "schemas"), join(scratch, "schemas"), { recursive: true });
    const index = join(scratch, "dist", "schemas", "prebuilt", "index.json");
    const written = JSON.parse(readFileSync(index, "utf-8")) as { digest: string; kinds: string[] };

    // valid documents alone load Ajv's compiler only when their fast validators are compiled at run time
    const compiles = (dist: string): boolean => run(dist, "examples").loaded.includes("ajv/dist/2020.js");
    assert.equal(compiles(join(JS, "dist")), false);

    writeFileSync(index, JSON.stringify({ ...written, digest: "0".repeat(64) }));
    assert.deepEqual(run(join(scratch, "dist"), "all").outcomes, expected.outcomes);
    assert.equal(compiles(join(scratch, "dist")), true, "a digest that is not the schemas' must not be trusted");

    unlinkSync(index);
    assert.deepEqual(run(join(scratch, "dist"), "all").outcomes, expected.outcomes);
    assert.equal(compiles(join(scratch, "dist")), true, "without an index, validators are compiled");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
