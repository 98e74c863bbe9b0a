import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { JS } from "./helpers.js";

/**
 * No unused import, local or parameter in the hand-written sources (generated/ is codegen's: its own checks
 * hold it). Checked here rather than in tsconfig.json, so that the build never depends on what codegen writes.
 */
test("hand-written sources have no unused imports, locals or parameters", () => {
  const tsc = join(JS, "node_modules", "typescript", "bin", "tsc");
  const out = spawnSync(process.execPath, [tsc, "-p", JS, "--noEmit", "--noUnusedLocals", "--noUnusedParameters"], { encoding: "utf-8", cwd: JS });
  const diagnostics = out.stdout.split("\n").filter((line) => /^src\/.*error TS/.test(line));
  assert.deepEqual(
    diagnostics.filter((line) => !line.startsWith("src/generated/")),
    [],
  );
  assert.ok(out.status === 0 || diagnostics.length > 0, `tsc failed otherwise: ${out.stdout}${out.stderr}`);
});
