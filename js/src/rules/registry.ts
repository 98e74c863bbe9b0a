/**
 * The code rules of the rules layer and below, bound to their units (rules/rule.ts). pipeline.ts adds the
 * summary's (a higher layer) and runs the stages; js/test/registry.test.ts holds the registry to the ledger.
 *
 * The uniqueness and reference rules are no code of ours: the schemas declare them (`x-unique`, `x-references`),
 * codegen writes them into a table, and one generic unit (annotated.ts) checks them, bound per kind from that table.
 */

import * as codes from "../generated/rules.js";
import { KINDS, type Kind } from "../schemas/schemas.js";
import { AnnotatedRows, rulesOf } from "./annotated.js";
import { SuiteIndex } from "./crossdoc.js";
import { documentUnit, Registry, type Unit } from "./rule.js";
import { graderRules, packRules, resultsetDocumentRules, ResultRows, suiteRules, testcaseRules } from "./rules.js";

/** Read-time codes: the readers (loader, stream, yaml, the test cases file) report them. */
const reader: Unit = { name: "reader", family: "reader", kinds: KINDS };
/** Identifying a document: what alone decides its report (engine/stage.ts `identified`). */
const identify: Unit = { name: "identified", family: "identity", kinds: KINDS };
/** Deprecated locations, found by the engine while validating (engine/deprecations.ts). */
const deprecations: Unit = { name: "deprecations", family: "engine", kinds: KINDS };
/** Comparing result sets (compare/): not a validation stage. */
const comparison: Unit = { name: "compare", family: "comparison", kinds: ["resultset"] };

const grader = documentUnit("graderRules", ["grader"], graderRules);
const testcase = documentUnit("testcaseRules", ["testcase"], (document) => testcaseRules(document));
const suite = documentUnit("suiteRules", ["suite"], suiteRules);
const pack = documentUnit("packRules", ["pack"], packRules);
const resultset = documentUnit("resultsetDocumentRules", ["resultset"], resultsetDocumentRules);

const resultRows: Unit = {
  name: "ResultRows",
  family: "rows",
  kinds: ["resultset"],
  stage: () => {
    const rows = new ResultRows();
    return { rows: (batch, start) => rows.check(batch, start) };
  },
};

/** The rules the schemas declare, one pass: the rows (if the kind has any) row by row, the rest with the members. */
const annotatedOf = (kind: Kind): Unit => ({
  name: "AnnotatedRows",
  family: "document",
  kinds: [kind],
  stage: (context) => {
    const checker = new AnnotatedRows(context.kind, context.rows ?? "");
    return { envelope: (members) => checker.envelope(members), rows: (batch, start) => checker.rows(batch, start) };
  },
});

const crossdoc: Unit = {
  name: "SuiteIndex",
  family: "crossdoc",
  kinds: ["resultset"],
  stage: ({ suite: given }) => {
    if (given === null) return null;
    const index = new SuiteIndex(given);
    return { rows: (batch, start) => index.check(batch, start), finish: (members) => index.finish(members) };
  },
};

export const RULES_REGISTRY = new Registry()
  .register(codes.FILE_UNREADABLE, reader)
  .register(codes.INVALID_JSON, reader)
  .register(codes.INVALID_YAML, reader)
  .register(codes.DUPLICATE_KEY, reader)
  .register(codes.TEST_CASES_FILE_UNREADABLE, reader)
  .register(codes.UNKNOWN_KIND, identify)
  .register(codes.UNKNOWN_SCHEMA, identify)
  .register(codes.VERSION_UNSUPPORTED, identify)
  .register(codes.DEPRECATED_FIELD, deprecations)
  .register(codes.VALIDATOR_FAIL_OPEN, deprecations)
  .register(codes.INVALID_REGEX, grader)
  .register(codes.UNKNOWN_GRADER_PARAM, grader)
  .register(codes.INVALID_REGEX, testcase)
  .register(codes.UNKNOWN_GRADER_PARAM, testcase)
  .register(codes.INVALID_REGEX, suite)
  .register(codes.UNKNOWN_GRADER_PARAM, suite)
  .register(codes.PROMPT_ID_MISMATCH, pack)
  .register(codes.MIGRATION_PLACEHOLDER, pack)
  .register(codes.INVALID_REGEX, pack)
  .register(codes.SELF_PARENT, resultset)
  .register(codes.ERROR_WITH_INVALIDATING_VIOLATION, resultRows)
  .register(codes.UNKNOWN_TEST_CASE, crossdoc)
  .register(codes.UNKNOWN_GRADER, crossdoc)
  .register(codes.GRADER_TYPE_MISMATCH, crossdoc)
  .register(codes.GRADER_RESULT_MISSING, crossdoc)
  .register(codes.SUITE_ID_MISMATCH, crossdoc)
  .register(codes.TEST_CASE_NOT_RUN, crossdoc)
  .register(codes.COMPARE_SUITE_MISMATCH, comparison)
  .register(codes.COMPARE_SUITE_DIGEST_MISMATCH, comparison)
  .register(codes.COMPARE_GRADER_CHANGED, comparison)
  .register(codes.COMPARE_TEST_CASES_DIFFER, comparison);

// generated: each kind's rules from the schemas' x-unique / x-references, in the table's order (one unit per kind)
for (const kind of KINDS) {
  const unit = annotatedOf(kind);
  for (const id of new Set(rulesOf(kind).map((rule) => rule.rule))) RULES_REGISTRY.register(id, unit);
}
