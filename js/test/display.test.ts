// core/display.ts `fixed` is Python's `f"{x:.Nf}"`: an exact tie goes to even (toFixed takes it up).
import assert from "node:assert/strict";
import { test } from "node:test";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JS } from "./helpers.js";

const { fixed } = (await import(pathToFileURL(join(JS, "dist", "core", "display.js")).href)) as { fixed: (x: number, digits: number) => string };

test("fixed rounds an exact tie to even, anything else to nearest", () => {
  assert.equal(fixed(0.0625, 3), "0.062"); // toFixed: 0.063
  assert.equal(fixed(0.125, 2), "0.12");
  assert.equal(fixed(0.375, 2), "0.38");
  assert.equal(fixed(2.5, 0), "2");
  assert.equal(fixed(3.5, 0), "4");
  assert.equal(fixed(-0.0625, 3), "-0.062");
  assert.equal(fixed(66.66666666666667, 1), "66.7");
  assert.equal(fixed(0.1 + 0.2, 3), "0.300");
  assert.equal(fixed(1, 3), "1.000");
  assert.equal(fixed(Number.NaN, 1), "nan");
});
