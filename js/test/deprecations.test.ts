import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validate } from "evalschema";
import { ROOT } from "./helpers.js";

// The generated table of deprecated locations and their one message (generated/typescript/_deprecations.ts).
const generated = readFileSync(join(ROOT, "generated", "typescript", "_deprecations.ts"), "utf-8");
const LOCATION = "pack.json#/$defs/Validator/properties/fail_on_violation";

test("a deprecated field's warning is the generated message of its location, reason included", () => {
  const entry = new RegExp(`^  ${JSON.stringify(LOCATION).replace(/[$/]/g, "\\$&")}: (".*"),$`, "m").exec(generated);
  assert.ok(entry, `generated/typescript/_deprecations.ts has no entry for ${LOCATION}`);
  const message = JSON.parse(entry[1]!) as string;
  const fixture = JSON.parse(readFileSync(join(ROOT, "spec", "conformance", "validator_fail_open__both_values.json"), "utf-8")) as {
    document: unknown;
  };
  const report = validate(fixture.document, { kind: "pack" });
  const deprecated = report.warnings.find((f) => f.code === "DEPRECATED_FIELD");
  assert.equal(deprecated?.message, `"fail_on_violation" is deprecated: ${message}`);
  const reason = (JSON.parse(readFileSync(join(ROOT, "schemas", "pack.json"), "utf-8")) as any).$defs.Validator.properties.fail_on_violation["x-deprecation"].reason;
  assert.ok(deprecated.message.endsWith(reason), "the reason is part of the message");
});
