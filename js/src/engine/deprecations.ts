/**
 * Warnings for deprecated fields present in a document (mirrors evalschema/deprecations.py). The text is the one
 * message codegen formats for each deprecated location of the schemas (generated/_deprecations.ts; the types'
 * `@deprecated` tags say the same).
 */

import { DEPRECATIONS } from "../generated/_deprecations.js";
import * as codes from "../generated/rules.js";
import { finding, type Finding } from "../core/findings.js";
import { show } from "../core/messages.js";
import type { DeprecatedUse } from "./schemaPath.js";

/** `'<name>' is deprecated: <the location's generated message>` (a location the working schemas do not deprecate has none). */
export function describe(use: DeprecatedUse): string {
  const message = Object.prototype.hasOwnProperty.call(DEPRECATIONS, use.location) ? DEPRECATIONS[use.location] : undefined;
  return message === undefined ? `${show(use.name)} is deprecated.` : `${show(use.name)} is deprecated: ${message}`;
}

export function* warningsFor(uses: readonly DeprecatedUse[], kind: string): Generator<Finding> {
  for (const use of uses) {
    if (kind === "pack" && use.name === "fail_on_violation" && use.value === false) {
      yield finding(
        use.pointer,
        codes.VALIDATOR_FAIL_OPEN,
        "warning",
        "this validator has fail_on_violation: false, so it was meant to observe, but validators always " +
          "enforce now: move it to an eval on the same prompt (same type and params, a trigger, a metric " +
          "and a threshold) and delete the validator. " +
          describe(use),
      );
    } else {
      yield finding(use.pointer, codes.DEPRECATED_FIELD, "warning", describe(use));
    }
  }
}
