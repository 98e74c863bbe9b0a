// The fast validator (no allErrors, `if` conditions as plain code) must accept exactly what the
// all-errors validator over the original schema accepts: findings come from the latter only when the former
// says "invalid", so a disagreement would silently drop findings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { identify, KINDS, type Kind } from "evalschema";
import { JS, jsonFiles, ROOT } from "./helpers.js";

interface CompiledKind {
  isValid: (document: unknown) => boolean;
  allErrors: () => (document: unknown) => boolean;
}

// an internal module, not part of the package's API: loaded from the build by path
const schemas = (await import(pathToFileURL(join(JS, "dist", "schemas", "schemas.js")).href)) as { compiledKind: (kind: Kind) => CompiledKind };

/** Values that flip the schemas' conditions: types, grader types, scores, booleans, empty and odd shapes. */
const REPLACEMENTS: unknown[] = [null, true, false, 0, 0.5, "x", "regex", "llm_judge", "model graded", [], [{}], {}];
const ADDED: [string, unknown][] = [
  ["error", { type: "timeout", message: "x" }],
  ["passed", true],
  ["passed", false],
  ["score", null],
  ["invalidates_result", true],
  ["type", "custom"],
  ["constraint_violations", [{ invalidates_result: true, grader_id: "g" }]],
];

type Node = Record<string | number, unknown>;

/**
 * Call `check` with every document one change away from `document` (each value replaced, each object given one
 * more key), then with `document` itself; the changes are made in place and undone.
 */
function eachMutant(document: unknown, check: (mutant: unknown) => void): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const holder = node as Node;
    for (const key of Array.isArray(node) ? node.keys() : Object.keys(node)) {
      const original = holder[key];
      for (const value of REPLACEMENTS) {
        holder[key] = value;
        check(document);
      }
      holder[key] = original;
      visit(original);
    }
    if (!Array.isArray(node)) {
      for (const [key, value] of ADDED) {
        if (Object.prototype.hasOwnProperty.call(node, key)) continue;
        holder[key] = value;
        check(document);
        delete holder[key];
      }
    }
  };
  visit(document);
  check(document);
}

const documents: [string, unknown, Kind | null][] = [
  ...jsonFiles(join(ROOT, "spec", "examples")).map(([name, doc]): [string, unknown, Kind | null] => [name, doc, null]),
  ...jsonFiles(join(ROOT, "spec", "conformance")).map(([name, fixture]): [string, unknown, Kind | null] => {
    const f = fixture as { document: unknown; kind: Kind | null };
    return [name, f.document, f.kind];
  }),
];

test("the fast validator agrees with the all-errors validator", () => {
  let checked = 0;
  const seen = new Set<string>(); // the fixtures share most of their structure, and so many mutants
  for (const [name, document, declared] of documents) {
    const kinds = declared ?? identify(document, null).kind;
    for (const kind of kinds === null ? KINDS : [kinds]) {
      const { isValid, allErrors } = schemas.compiledKind(kind);
      eachMutant(structuredClone(document), (mutant) => {
        const key = kind + JSON.stringify(mutant);
        if (seen.has(key)) return;
        seen.add(key);
        const fast = isValid(mutant);
        const full = allErrors()(mutant);
        if (fast !== full) assert.fail(`${name} as ${kind}: fast says ${fast}, all-errors says ${full}: ${key.slice(0, 400)}`);
        checked++;
      });
    }
  }
  assert.ok(checked > 10000, `only ${checked} documents checked`);
});
