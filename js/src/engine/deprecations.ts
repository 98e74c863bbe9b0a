/**
 * Warnings for deprecated fields present in a document (mirrors Python's `warnings_for`), rendered from
 * the ledger's templates: DEPRECATED_FIELD with the variant and parameters codegen records for each deprecated
 * location of the schemas (generated/_deprecations.ts), and VALIDATOR_FAIL_OPEN around it.
 */

import { DEPRECATIONS } from "../generated/_deprecations.js";
import * as codes from "../generated/rules.js";
import { finding, type Finding } from "../core/findings.js";
import { render } from "../core/messages.js";
import type { DeprecatedUse } from "./schemaPath.js";

/** A location the working schemas do not deprecate (a field of an older release, since removed) has no entry. */
const PLAIN: Readonly<Record<string, string>> = { variant: "plain" };

/** The DEPRECATED_FIELD message of `use`: the ledger's template for its location's variant. */
export function describe(use: DeprecatedUse): string {
  const entry = Object.prototype.hasOwnProperty.call(DEPRECATIONS, use.location) ? DEPRECATIONS[use.location]! : PLAIN;
  const { variant, ...params } = entry;
  return render(codes.DEPRECATED_FIELD, { ...params, name: use.name }, variant);
}

export function* warningsFor(uses: readonly DeprecatedUse[], kind: string): Generator<Finding> {
  for (const use of uses) {
    if (kind === "pack" && use.name === "fail_on_violation" && use.value === false) {
      yield finding(use.pointer, codes.VALIDATOR_FAIL_OPEN, "warning", render(codes.VALIDATOR_FAIL_OPEN, { detail: describe(use) }));
    } else {
      yield finding(use.pointer, codes.DEPRECATED_FIELD, "warning", describe(use));
    }
  }
}
