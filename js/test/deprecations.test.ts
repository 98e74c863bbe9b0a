import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { validate } from "evalschema";
import { ROOT } from "./helpers.js";

// The generated table of deprecated locations: each one's DEPRECATED_FIELD variant and parameters
// (generated/typescript/_deprecations.ts), rendered with the ledger's template.
const generated = readFileSync(join(ROOT, "generated", "typescript", "_deprecations.ts"), "utf-8");
const LOCATION = "pack.json#/$defs/Validator/properties/fail_on_violation";
const ledger = JSON.parse(readFileSync(join(ROOT, "spec", "ledger.json"), "utf-8")) as { rules: { id: string; message: string | Record<string, string> }[] };
const templates = (code: string): Record<string, string> => {
  const message = ledger.rules.find((rule) => rule.id === code)!.message;
  return typeof message === "string" ? { default: message } : message;
};

test("a deprecated field's warning is the ledger's template for its location, reason included", () => {
  const entry = new RegExp(`^  ${JSON.stringify(LOCATION).replace(/[$/]/g, "\\$&")}: (\\{.*\\}),$`, "m").exec(generated);
  assert.ok(entry, `generated/typescript/_deprecations.ts has no entry for ${LOCATION}`);
  const { variant, ...params } = JSON.parse(entry[1]!) as Record<string, string>;
  const expected = templates("DEPRECATED_FIELD")[variant!]!
    .replace("{name}", '"fail_on_violation"')
    .replace(/\{([a-z_]+)\}/g, (_, name: string) => params[name]!);
  const fixture = JSON.parse(readFileSync(join(ROOT, "spec", "conformance", "validator_fail_open__both_values.json"), "utf-8")) as {
    document: unknown;
  };
  const report = validate(fixture.document, { kind: "pack" });
  const deprecated = report.warnings.find((f) => f.code === "DEPRECATED_FIELD");
  assert.equal(deprecated?.message, expected);
  const reason = (JSON.parse(readFileSync(join(ROOT, "schemas", "pack.json"), "utf-8")) as any).$defs.Validator.properties.fail_on_violation["x-deprecation"].reason;
  assert.ok(deprecated.message.endsWith(reason), "the reason is part of the message");
  const failOpen = report.warnings.find((f) => f.code === "VALIDATOR_FAIL_OPEN");
  assert.equal(failOpen?.message, templates("VALIDATOR_FAIL_OPEN")["default"]!.replace("{detail}", expected));
});
