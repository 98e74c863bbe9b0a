// The code rules are units bound to their ledger ids (issue 17, item 3): every rule the ledger says is enforced by
// code has an implementation here, and every implementation names ledger rules enforced by code.
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
  stage?: unknown;
}
interface Rule {
  id: string;
  kinds: readonly string[];
  unit: Unit;
}
interface Registry {
  register(id: string, unit: Unit): Registry;
  rules(): readonly Rule[];
  units(): Unit[];
}

const pipeline = (await import(pathToFileURL(join(JS, "dist", "pipeline.js")).href)) as { REGISTRY: Registry };
const rule = (await import(pathToFileURL(join(JS, "dist", "rules", "rule.js")).href)) as { Registry: new () => Registry };

type Ledger = Readonly<Record<string, { enforced_by: string; kinds: readonly string[] }>>;
const ledger = RULES as unknown as Ledger;

/** What is wrong with a registry against the ledger: rules enforced by code with no unit, units naming a rule the
 * ledger enforces by schema, units that never run on a kind of the rule they report. */
function problems(registry: Registry, rules: Ledger): string[] {
  const out: string[] = [];
  const bound = new Set(registry.rules().map((r) => r.id));
  for (const [id, entry] of Object.entries(rules)) {
    if (entry.enforced_by === "code" && !bound.has(id)) out.push(`${id}: enforced by code, but no unit reports it`);
  }
  for (const r of registry.rules()) {
    const entry = rules[r.id];
    if (entry === undefined) out.push(`${r.id} (${r.unit.name}): not in the ledger`);
    else if (entry.enforced_by !== "code") out.push(`${r.id} (${r.unit.name}): the ledger enforces it by ${entry.enforced_by}`);
    else if (!r.unit.kinds.some((kind) => entry.kinds.includes(kind))) out.push(`${r.id} (${r.unit.name}): runs on none of the rule's kinds`);
  }
  return out;
}

test("every ledger rule enforced by code has a unit, and every unit names such rules", () => {
  assert.deepEqual(problems(pipeline.REGISTRY, ledger), []);
});

test("a rule's kinds are the ledger's", () => {
  for (const r of pipeline.REGISTRY.rules()) assert.deepEqual(r.kinds, ledger[r.id]!.kinds, r.id);
});

test("read-time codes are the reader family's; units are few and named", () => {
  const units = pipeline.REGISTRY.units();
  assert.ok(units.length >= 8, "families, not one unit per id");
  for (const unit of units) assert.ok(unit.name.length > 0);
  const reader = pipeline.REGISTRY.rules().filter((r) => r.unit.family === "reader").map((r) => r.id);
  assert.ok(reader.includes("INVALID_JSON") && reader.includes("DUPLICATE_KEY") && reader.includes("FILE_UNREADABLE"), reader.join(","));
});

test("the check fails on a rule without a unit and on a unit for a schema rule", () => {
  const some = new rule.Registry();
  const unit: Unit = { name: "u", family: "document", kinds: ["suite"] };
  some.register("DUPLICATE_ID", unit).register("TYPE_MISMATCH", unit);
  const found = problems(some, ledger);
  assert.ok(found.some((p) => p.startsWith("DANGLING_REFERENCE: enforced by code")), found.join("\n"));
  assert.ok(found.some((p) => p.startsWith("TYPE_MISMATCH (u): the ledger enforces it by schema")), found.join("\n"));
  const elsewhere: Unit = { name: "v", family: "document", kinds: ["pack"] };
  assert.ok(problems(new rule.Registry().register("DUPLICATE_ID", elsewhere), ledger).some((p) => p.includes("runs on none")));
  // the full registry minus one binding
  const partial = new rule.Registry();
  for (const r of pipeline.REGISTRY.rules()) if (r.id !== "SELF_PARENT") partial.register(r.id, r.unit);
  assert.deepEqual(problems(partial, ledger), ["SELF_PARENT: enforced by code, but no unit reports it"]);
});

test("an id the ledger does not have cannot be registered", () => {
  assert.throws(() => new rule.Registry().register("NO_SUCH_RULE", { name: "u", family: "document", kinds: ["suite"] }), /NO_SUCH_RULE/);
});
