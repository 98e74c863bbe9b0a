// The code rules are bound to their units as data (issue 38, item 7): the ledger names each code rule's unit,
// codegen writes the rules of each unit (RULES_BY_UNIT), and the registry is that table bound to one function per
// unit name — a unit without function, or a function without ledger unit, is refused by name.
import assert from "node:assert/strict";
import { test } from "node:test";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { RULES } from "evalschema";
import { JS } from "./helpers.js";

interface Unit {
  name: string;
  family: string;
  kinds: readonly string[];
  stage?: (context: { kind: string; suite: unknown; rows: string | null }) => unknown;
}
type UnitFunction = Omit<Unit, "name" | "kinds">;
interface Registry {
  rules(): readonly { id: string; kinds: readonly string[]; unit: Unit }[];
  stageUnits(kind: string): Unit[];
}
type Table = Readonly<Record<string, readonly string[]>>;

const dist = (path: string): string => pathToFileURL(join(JS, "dist", path)).href;
const pipeline = (await import(dist("pipeline.js"))) as { REGISTRY: Registry };
const registry = (await import(dist("rules/registry.js"))) as {
  RULE_UNITS: Readonly<Record<string, UnitFunction>>;
  bindUnits(functions: Readonly<Record<string, UnitFunction>>, byUnit?: Table): Registry;
};
const generated = (await import(dist("generated/rules.js"))) as { RULES_BY_UNIT: Table };
const { SUMMARY_UNIT } = (await import(dist("summary/mismatch.js"))) as { SUMMARY_UNIT: UnitFunction };

const ledger = RULES as unknown as Readonly<Record<string, { enforced_by: string; unit?: string; kinds: readonly string[] }>>;
const all = { ...registry.RULE_UNITS, summary: SUMMARY_UNIT };

test("every code rule is bound to the unit the ledger names for it, for the ledger's kinds", () => {
  const bound = pipeline.REGISTRY.rules().map((rule) => `${rule.id} ${rule.unit.name}`).sort();
  const named = Object.entries(ledger)
    .filter(([, rule]) => rule.enforced_by === "code")
    .map(([id, rule]) => `${id} ${rule.unit}`)
    .sort();
  assert.deepEqual(bound, named);
  for (const rule of pipeline.REGISTRY.rules()) assert.ok(ledger[rule.id]!.kinds.every((kind) => rule.unit.kinds.includes(kind)), rule.id);
  assert.deepEqual(pipeline.REGISTRY.stageUnits("resultset").map((unit) => unit.name), ["document_rules", "result_rows", "against_suite", "annotated", "summary"]);
  assert.deepEqual(pipeline.REGISTRY.stageUnits("suite").map((unit) => unit.name), ["document_rules", "annotated"]);
});

test("a ledger unit without function is refused, naming its rules", () => {
  const without = Object.fromEntries(Object.entries(all).filter(([name]) => name !== "result_rows"));
  assert.throws(() => registry.bindUnits(without), {
    message: "ERROR_WITH_INVALIDATING_VIOLATION: the ledger's unit 'result_rows' has no function (give one for it)",
  });
});

test("a function for a unit no ledger rule names is refused", () => {
  assert.throws(() => registry.bindUnits({ ...all, no_such_unit: { family: "document" } }), {
    message: "no_such_unit: a function is given for unit 'no_such_unit', which no ledger rule names",
  });
});

test("the binding is the table's: a rule given a unit of its own runs that unit's function", () => {
  const table = Object.fromEntries(
    Object.entries(generated.RULES_BY_UNIT).map(([unit, ids]) => [unit, ids.filter((id) => id !== "SELF_PARENT")]),
  );
  let ran = 0;
  const selfParent: UnitFunction = { family: "document", stage: () => ((ran += 1), { envelope: () => [] }) };
  const built = registry.bindUnits({ ...all, self_parent: selfParent }, { ...table, self_parent: ["SELF_PARENT"] });
  const rule = built.rules().find((r) => r.id === "SELF_PARENT")!;
  assert.equal(rule.unit.name, "self_parent");
  assert.deepEqual(rule.unit.kinds, ["resultset"]);
  for (const unit of built.stageUnits("resultset")) unit.stage?.({ kind: "resultset", suite: null, rows: "results" });
  assert.equal(ran, 1);
  assert.deepEqual(built.stageUnits("pack").map((unit) => unit.name), ["document_rules", "annotated"]);
});
