/**
 * The summary's exact mean (summary/summary.ts `Mean`): its double-only paths — msum partials, the double-double
 * quotient — give exactly what the BigInt path gives (`exactOnly`), on values built to be hard: ties, neighbours
 * of powers of two, cancellation, subnormals, huge values, infinities.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { JS, seeded as generator } from "./helpers.js";

interface MeanLike {
  add(value: number): void;
  value(): number | null;
}
const { Mean } = (await import(pathToFileURL(join(JS, "dist", "summary", "summary.js")).href)) as {
  Mean: new (exactOnly?: boolean) => MeanLike;
};

const view = new DataView(new ArrayBuffer(8));
function fromBits(high: number, low: number): number {
  view.setUint32(0, high >>> 0);
  view.setUint32(4, low >>> 0);
  return view.getFloat64(0);
}

function means(values: readonly number[]): [number | null, number | null] {
  const fast = new Mean();
  const exact = new Mean(true);
  for (const v of values) {
    fast.add(v);
    exact.add(v);
  }
  return [fast.value(), exact.value()];
}

function same(values: readonly number[]): void {
  const [fast, exact] = means(values);
  assert.ok(Object.is(fast, exact), `mean of ${JSON.stringify(values.map(String))}: ${fast} != ${exact}`);
}

test("mean: ties round to even, as the exact path does", () => {
  same([1, 1 + 2 ** -52]); // 1 + 2^-53: a tie between 1 and its successor
  same([1 + 2 ** -52, 1 + 2 ** -51]);
  same([3, 2 ** -52, 2 ** -52]);
  same([-1, -(1 + 2 ** -52)]);
  same([1, 2 ** -53, 2 ** -53, 2 ** -53]);
  same([2, -(2 ** -52)]); // just below a power of two: the gap below is half the gap above
  same([4, -(2 ** -51), -(2 ** -53)]);
  same([1, -(2 ** -54), -(2 ** -54), -(2 ** -54)]);
  same([0.1, 0.2, 0.3]);
  // true ties of a two-partial sum divided by a power of two and by 3, and a near tie just above a midpoint
  same([3.0872, -(2 ** -52), 0, 0]);
  same([3.3118, 2 ** -53, 0, 0, 0, 0]);
  same([3 + 2 ** -51, -(2 ** -53), 0]);
  same([3 + 2 ** -51, -(2 ** -53) + 2 ** -100, 0]);
  same([3 + 2 ** -51, -(2 ** -53) - 2 ** -100, 0]);
  same([0.6638, 0.639, 0.8843, 0.9001]);
  same([1e308, 1e308, -1e308]);
  same([Number.MAX_VALUE, Number.MAX_VALUE]); // beyond doubles: infinite
  same([2 ** 1000, 2 ** 999, 1]);
  same([5e-324, 5e-324, 1e-310]);
  same([Infinity, 1]);
  same([-Infinity, Infinity]);
  same([0, -0, 0]);
  same([1, -1]);
  same([]);
});

test("mean: random scores, decimals and bit patterns agree with the exact path", () => {
  const random = generator(22);
  const pick = (): number => {
    const r = random();
    if (r < 0.35) return Math.round(random() * 10000) / 10000; // scores as producers write them
    if (r < 0.5) return random();
    if (r < 0.6) return Math.round(random() * 100) / 10 - 5;
    if (r < 0.7) return 1 + Math.floor(random() * 8) * 2 ** -52; // near 1: ties and carries
    if (r < 0.75) return 2 ** Math.floor(random() * 8) * (random() < 0.5 ? 1 : -1) * (1 - Math.floor(random() * 4) * 2 ** -53);
    if (r < 0.85) return fromBits(random() * 2 ** 32, random() * 2 ** 32); // any double (NaN excepted below)
    if (r < 0.9) return fromBits(random() * 2 ** 20, random() * 2 ** 32); // subnormal and tiny
    return (random() < 0.5 ? -1 : 1) * 2 ** (Math.floor(random() * 2000) - 1000) * (1 + random());
  };
  for (let round = 0; round < 60000; round++) {
    const count = 1 + Math.floor(random() * (round % 10 === 0 ? 40 : 6));
    const values: number[] = [];
    for (let i = 0; i < count; i++) {
      const v = pick();
      values.push(Number.isNaN(v) ? 0.5 : v);
    }
    same(values);
  }
});

test("mean: many values of one grader, summed in any order", () => {
  const random = generator(7);
  const values: number[] = [];
  for (let i = 0; i < 100000; i++) values.push(Math.round(random() * 10000) / 10000);
  same(values);
  same([...values].reverse());
  same(values.map((v, i) => (i % 3 === 0 ? -v : v * 1e-3)));
});
