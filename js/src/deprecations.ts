/** Warnings for deprecated fields present in a document, driven by the schema's `x-deprecation` (mirrors evalschema/deprecations.py). */

import * as codes from "./generated/rules.js";
import { finding, type Finding } from "./findings.js";
import { show } from "./messages.js";
import { isDate } from "./schemas.js";
import type { DeprecatedUse } from "./schemaPath.js";

/** The earliest removal date: twelve months after the deprecation was published. */
function removalFloor(published: string): string {
  if (!isDate(published)) return "unknown";
  const [year, month, day] = published.split("-");
  const next = String(Number(year) + 1).padStart(4, "0");
  return month === "02" && day === "29" ? `${next}-02-28` : `${next}-${month}-${day}`;
}

function str(value: unknown): string {
  return value === undefined || value === null ? "None" : String(value);
}

export function describe(use: DeprecatedUse): string {
  const note = use.annotation;
  if (Object.keys(note).length === 0) return `${show(use.name)} is deprecated. ${use.description}`.trim();
  return (
    `${show(use.name)} is deprecated since ${str(note["since"])} and will be removed in ${str(note["removal"])} ` +
    `(not before ${removalFloor(str(note["date"]))}); use ${str(note["replacement"])} instead.`
  );
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
