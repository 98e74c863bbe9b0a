/**
 * The code rules bound to the units that implement them, as data (issue 38, item 7; mirrors Python's
 * `evalschema.rules.registry.build` and `evalschema.rules.units`).
 *
 * The ledger names, for each rule enforced by code, its `unit` (a name both SDKs share); codegen writes the rules of
 * each unit into a table (`RULES_BY_UNIT`, generated/rules.ts). Here is one function per unit name (`RULE_UNITS`, the
 * units of this layer and below); `bindUnits` builds the registry from that table and those functions, and
 * pipeline.ts builds the one it runs with the summary's unit (a higher layer) added. No table here binds a rule id
 * to an implementation: adding a code rule is a ledger entry, one function per language for a new unit, fixtures.
 *
 * The uniqueness and reference rules (unit `annotated`) are no code of ours: the schemas declare them (`x-unique`,
 * `x-references`), codegen writes them into a table, and one generic unit (annotated.ts) checks them.
 */

import type { Finding } from "../core/findings.js";
import type { JsonObject } from "../core/json.js";
import { RULES, RULES_BY_UNIT } from "../generated/rules.js";
import { KINDS, type Kind } from "../schemas/schemas.js";
import { AnnotatedRows } from "./annotated.js";
import { SuiteIndex } from "./crossdoc.js";
import { Registry, type Unit } from "./rule.js";
import { graderRules, packRules, resultsetDocumentRules, ResultRows, suiteRules, testcaseRules } from "./rules.js";

/** A unit's function in this SDK: where it runs and, for a stage, the stage. Its name is its key in the units
 * given to `bindUnits`, its kinds those the ledger gives its rules. */
export type UnitFunction = Omit<Unit, "name" | "kinds">;

/** The per-document pass of each kind: the unit `document_rules` runs the one of the document's kind. */
const DOCUMENT_RULES: Readonly<Record<Kind, (document: JsonObject) => Iterable<Finding>>> = {
  grader: graderRules,
  testcase: (document) => testcaseRules(document),
  suite: suiteRules,
  pack: packRules,
  resultset: resultsetDocumentRules,
};

/** One function per unit the ledger names (but the summary's, a higher layer's); the stages run in this order. */
export const RULE_UNITS: Readonly<Record<string, UnitFunction>> = {
  document_rules: {
    family: "document",
    stage: ({ kind }) => {
      const check = DOCUMENT_RULES[kind];
      return { envelope: check };
    },
  },
  result_rows: {
    family: "rows",
    stage: () => {
      const rows = new ResultRows();
      return { rows: (batch, start) => rows.check(batch, start) };
    },
  },
  against_suite: {
    family: "crossdoc",
    stage: ({ suite: given }) => {
      if (given === null) return null;
      const index = new SuiteIndex(given);
      return { rows: (batch, start) => index.check(batch, start), finish: (members) => index.finish(members) };
    },
  },
  /** The rules the schemas declare, one pass: the rows (if the kind has any) row by row, the rest with the members. */
  annotated: {
    family: "document",
    stage: (context) => {
      const checker = new AnnotatedRows(context.kind, context.rows ?? "");
      return { envelope: (members) => checker.envelope(members), rows: (batch, start) => checker.rows(batch, start) };
    },
  },
  /** Read-time codes: the readers (loader, stream, yaml) report them. */
  reader: { family: "reader" },
  /** A suite's test cases file, read by the readers too. */
  test_cases_file: { family: "reader" },
  /** Identifying a document: what alone decides its report (engine/stage.ts `identified`). */
  identify: { family: "identity" },
  /** Deprecated locations, found by the engine while validating (engine/deprecations.ts). */
  deprecations: { family: "engine" },
  /** Comparing result sets (compare/): not a validation stage. */
  compare: { family: "comparison" },
};

type Ledger = Readonly<Record<string, { readonly kinds: readonly string[] }>>;

/**
 * The registry of the ledger's code rules: every rule of each unit (`byUnit`, the generated table) bound to that
 * unit's function in `functions`, in their order; a unit runs on the kinds of its rules. Throws, naming them, on a
 * rule whose unit has no function and on a function whose unit no ledger rule names.
 */
export function bindUnits(
  functions: Readonly<Record<string, UnitFunction>>,
  byUnit: Readonly<Record<string, readonly string[]>> = RULES_BY_UNIT,
  ledger: Ledger = RULES,
): Registry {
  const problems: string[] = [];
  for (const name of Object.keys(functions)) {
    if (!Object.hasOwn(byUnit, name)) problems.push(`${name}: a function is given for unit '${name}', which no ledger rule names`);
  }
  for (const [name, ids] of Object.entries(byUnit)) {
    if (!Object.hasOwn(functions, name)) problems.push(`${ids.join(", ")}: the ledger's unit '${name}' has no function (give one for it)`);
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  const registry = new Registry();
  for (const [name, fn] of Object.entries(functions)) {
    const ids = byUnit[name]!;
    const kinds = KINDS.filter((kind) => ids.some((id) => ledger[id]?.kinds.includes(kind)));
    const unit: Unit = { name, kinds, ...fn };
    for (const id of ids) registry.register(id, unit);
  }
  return registry;
}
