// scripts/import-graph.mjs (run by `npm test` on the built package) is able to fail: an upward import, a cycle and a
// module in no layer are each refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JS } from "./helpers.js";

interface Checked {
  problems: string[];
  arrows: string[];
}
const graph = (await import(pathToFileURL(join(JS, "scripts", "import-graph.mjs")).href)) as {
  check: (graph: Record<string, string[]>, cycles?: string[][]) => Checked;
  layerOf: (module: string) => string | null;
};

const GOOD = {
  "index.js": ["pipeline.js", "core/findings.js"],
  "pipeline.js": ["rules/registry.js", "engine/stage.js", "io/loader.js"],
  "rules/registry.js": ["rules/rules.js", "schemas/schemas.js", "generated/rules.js"],
  "rules/rules.js": ["core/findings.js"],
  "engine/stage.js": ["core/findings.js", "schemas/schemas.js"],
  "schemas/schemas.js": ["generated/constants.js"],
  "io/loader.js": ["core/findings.js"],
  "core/findings.js": [],
  "generated/rules.js": [],
  "generated/constants.js": [],
};

test("a layered graph passes, with its folder-level arrows", () => {
  const { problems, arrows } = graph.check(GOOD);
  assert.deepEqual(problems, []);
  assert.ok(arrows.includes("pipeline -> rules/"), arrows.join("\n"));
  assert.ok(arrows.includes("rules/ -> generated/"), arrows.join("\n"));
});

test("an upward import fails", () => {
  const bad = { ...GOOD, "core/findings.js": ["pipeline.js"] };
  assert.deepEqual(graph.check(bad).problems, ["upward: core/findings.js (core) imports pipeline.js (pipeline)"]);
  const reader = { ...GOOD, "io/loader.js": ["rules/rules.js"] };
  assert.deepEqual(graph.check(reader).problems, ["upward: io/loader.js (io) imports rules/rules.js (rules)"]);
});

test("a cycle fails, within a layer too", () => {
  const { problems } = graph.check(GOOD, [["rules/rules.js", "rules/registry.js"]]);
  assert.deepEqual(problems, ["cycle: rules/rules.js -> rules/registry.js"]);
});

test("a module in no layer fails", () => {
  assert.deepEqual(graph.check({ ...GOOD, "misc/thing.js": ["core/findings.js"] }).problems, ["misc/thing.js: in no layer"]);
  assert.equal(graph.layerOf("compare/compare.js"), "features");
});
