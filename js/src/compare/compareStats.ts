/**
 * The statistics of `compare` (SPEC.md §12.4); mirrors Python's compare statistics (`mcnemar`, `wilson`, `newcombe_paired`, …) operation for operation, so
 * the two SDKs give the same numbers: closed forms within 1e-12, the bootstrap's resamples identical.
 */

export const EXACT_BELOW = 25;
export const DEFAULT_RESAMPLES = 10_000;
export const DEFAULT_SEED = 20261130;
export const DRAW_BUDGET = 10_000_000;

export type Interval = [number, number];

/** Wichura's AS 241: the standard normal quantile (as CPython's statistics.NormalDist().inv_cdf). */
export function normalQuantile(p: number): number {
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    const num =
      (((((((2.5090809287301226727e3 * r + 3.3430575583588128105e4) * r + 6.7265770927008700853e4) * r + 4.5921953931549871457e4) * r +
        1.3731693765509461125e4) * r + 1.9715909503065514427e3) * r + 1.33141667891784377450e2) * r + 3.3871328727963666080e0) * q;
    const den =
      ((((((5.2264952788528545610e3 * r + 2.8729085735721942674e4) * r + 3.9307895800092710610e4) * r + 2.1213794301586595867e4) * r +
        5.3941960214247511077e3) * r + 6.8718700749205790830e2) * r + 4.2313330701600911252e1) * r + 1.0;
    return num / den;
  }
  let r = q <= 0 ? p : 1 - p;
  r = Math.sqrt(-Math.log(r));
  let num: number;
  let den: number;
  if (r <= 5) {
    r = r - 1.6;
    num =
      ((((((7.7454501427834140764e-4 * r + 2.27238449892691845833e-2) * r + 2.4178072517745061177e-1) * r + 1.27045825245236838258e0) * r +
        3.64784832476320460504e0) * r + 5.7694972214606914055e0) * r + 4.6303378461565452959e0) * r + 1.42343711074968357734e0;
    den =
      ((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 1.51986665636164571966e-2) * r + 1.4810397642748007459e-1) * r +
        6.8976733498510000455e-1) * r + 1.6763848301838038494e0) * r + 2.05319162663775882187e0) * r + 1.0;
  } else {
    r = r - 5;
    num =
      ((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.2426609473880784386e-3) * r + 2.6532189526576123093e-2) * r +
        2.9656057182850489123e-1) * r + 1.7848265399172913358e0) * r + 5.4637849111641143699e0) * r + 6.6579046435011037772e0;
    den =
      ((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r +
        1.4875361290850615025e-2) * r + 1.3692988092273580531e-1) * r + 5.9983220655588793769e-1) * r + 1.0;
  }
  const x = num / den;
  return q < 0 ? -x : x;
}

/** The two-sided standard normal quantile Φ⁻¹(1 − alpha / 2) (Python's `z_value`). */
export function zValue(alpha: number): number {
  const upper = 1 - alpha / 2;
  if (upper < 1) return normalQuantile(upper);
  // alpha below the double spacing at 1 (e.g. 1e-300): 1 − alpha/2 rounds to 1, whose quantile is infinite; the
  // lower tail holds it exactly (the normal is symmetric). Half the smallest double rounds to 0: the smallest is used.
  return -normalQuantile(Math.max(alpha / 2, Number.MIN_VALUE));
}

/** The value, or null where it overflowed the double range (Python's `finite`: scores near ±1.8e308). */
export function finite(value: number | null): number | null {
  return value !== null && Number.isFinite(value) ? value : null;
}

/** The interval, or null when a bound overflowed (Python's `finite_interval`). */
export function finiteInterval(bounds: Interval | null): Interval | null {
  return bounds !== null && Number.isFinite(bounds[0]) && Number.isFinite(bounds[1]) ? bounds : null;
}

/**
 * The exactly rounded sum of doubles: CPython's `math.fsum` (Shewchuk's partials, then the round-half-even
 * correction of the last partials), step for step, so the two SDKs round alike. Where Python's raises — an
 * intermediate overflow, or +∞ and −∞ both — this gives NaN; an infinite value alone gives that infinity.
 */
export function fsum(values: Iterable<number>): number {
  const partials: number[] = [];
  let special = 0;
  let infinities = 0;
  for (const value of values) {
    let x = value;
    let kept = 0;
    for (let j = 0; j < partials.length; j++) {
      let y = partials[j]!;
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) partials[kept++] = lo;
      x = hi;
    }
    partials.length = kept;
    if (x !== 0) {
      if (!Number.isFinite(x)) {
        if (Number.isFinite(value)) return NaN; // Python: OverflowError("intermediate overflow in fsum")
        if (!Number.isNaN(value)) infinities += value;
        special += value;
        partials.length = 0;
      } else partials.push(x);
    }
  }
  if (special !== 0) return Number.isNaN(infinities) ? NaN : special; // Python: ValueError("-inf + inf in fsum")
  let n = partials.length;
  if (n === 0) return 0;
  let hi = partials[--n]!;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = partials[--n]!;
    hi = x + y;
    lo = y - (hi - x);
    if (lo !== 0) break;
  }
  if (n > 0 && ((lo < 0 && partials[n - 1]! < 0) || (lo > 0 && partials[n - 1]! > 0))) {
    const y = lo * 2;
    const x = hi + y;
    if (y === x - hi) hi = x;
  }
  return hi;
}

/** Σ values / count, exactly rounded; null when there is no value or the mean is not a finite double (Python's `mean`). */
export function mean(values: Iterable<number>, count: number): number | null {
  return count ? finite(fsum(values) / count) : null;
}

/**
 * erfc(x) for x ≥ 0: the Maclaurin series of erf below 3 (absolute error under 1e-13 there), a Lentz continued
 * fraction from 3 on (relative error under 1e-15). Python uses math.erfc; the two agree within 1e-12.
 */
export function erfc(x: number): number {
  if (x < 3) {
    let term = x;
    let total = x;
    for (let n = 1; n < 200; n++) {
      term *= (-x * x) / n;
      const add = term / (2 * n + 1);
      total += add;
      if (Math.abs(add) < 1e-17 * Math.abs(total)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * total;
  }
  // erfc(x) = exp(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + …)))))
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

function comb(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  const m = Math.min(k, n - k);
  let out = 1;
  for (let i = 1; i <= m; i++) out = (out * (n - m + i)) / i; // exact while the result is below 2^53
  return out;
}

/** Exact two-sided binomial p-value of b successes in m trials with p = 1/2 (m < 25: every term is exact). */
export function binomialTwoSided(b: number, m: number): number {
  if (m === 0) return 1;
  const low = Math.min(b, m - b);
  let tail = 0;
  for (let i = 0; i <= low; i++) tail += comb(m, i);
  return Math.min(1, (2 * tail) / 2 ** m);
}

export function mcnemar(b: number, c: number): { p: number; method: "exact_binomial" | "chi_square_corrected"; statistic: number | null } {
  const m = b + c;
  if (m < EXACT_BELOW) return { p: binomialTwoSided(b, m), method: "exact_binomial", statistic: null };
  const statistic = (Math.abs(b - c) - 1) ** 2 / m;
  return { p: erfc(Math.sqrt(statistic / 2)), method: "chi_square_corrected", statistic };
}

export function wilson(x: number, n: number, z: number): Interval | null {
  if (n === 0) return null;
  const p = x / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Newcombe's hybrid score interval for the paired difference new − base (method 10). */
export function newcombePaired(a: number, b: number, c: number, d: number, z: number): Interval | null {
  const n = a + b + c + d;
  if (n === 0) return null;
  const p1 = (a + b) / n;
  const p2 = (a + c) / n;
  const [l1, u1] = wilson(a + b, n, z)!;
  const [l2, u2] = wilson(a + c, n, z)!;
  const product = (a + b) * (c + d) * (a + c) * (b + d);
  const phi = product === 0 ? 0 : (a * d - b * c) / Math.sqrt(product);
  const delta = p2 - p1;
  const lower = delta - Math.sqrt(Math.max(0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2));
  const upper = delta + Math.sqrt(Math.max(0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2));
  return [lower, upper];
}

export function passAtK(n: number, c: number, k: number): number {
  return 1 - comb(n - c, k) / comb(n, k);
}

export function passHatK(n: number, c: number, k: number): number {
  return comb(c, k) / comb(n, k);
}

const MASK64 = (1n << 64n) - 1n;

/** xoshiro128** 1.1 seeded from two SplitMix64 outputs (low word first); `below(n)` by rejection. */
export class Xoshiro128 {
  private s: Uint32Array;

  constructor(seed: number) {
    let x = BigInt(seed) & MASK64;
    const words: number[] = [];
    for (let i = 0; i < 2; i++) {
      x = (x + 0x9e3779b97f4a7c15n) & MASK64;
      let z = x;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
      z ^= z >> 31n;
      words.push(Number(z & 0xffffffffn), Number(z >> 32n));
    }
    this.s = Uint32Array.from(words);
  }

  next32(): number {
    const s = this.s;
    const product = Math.imul(s[1]!, 5) >>> 0;
    const result = Math.imul(((product << 7) | (product >>> 25)) >>> 0, 9) >>> 0;
    const t = (s[1]! << 9) >>> 0;
    s[2]! ^= s[0]!;
    s[3]! ^= s[1]!;
    s[1]! ^= s[2]!;
    s[0]! ^= s[3]!;
    s[2]! ^= t;
    s[3] = ((s[3]! << 11) | (s[3]! >>> 21)) >>> 0;
    return result;
  }

  below(n: number): number {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const r = this.next32();
      if (r < limit) return r % n;
    }
  }
}

/** Hyndman–Fan type 7 quantile of sorted values. */
export function quantile(sorted: readonly number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const low = Math.floor(h);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low]! + (h - low) * (sorted[high]! - sorted[low]!);
}

export type Metric = [sums: readonly number[], counts: readonly number[]];

/** Percentile intervals of Σ sums / Σ counts over test cases resampled with replacement (shared draws). */
export function clusterBootstrap(metrics: readonly Metric[], nCases: number, resamples: number, seed: number, alpha: number): (Interval | null)[] {
  const rng = new Xoshiro128(seed);
  const stats: number[][] = metrics.map(() => []);
  const drawn = new Int32Array(nCases);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < nCases; i++) drawn[i] = rng.below(nCases);
    metrics.forEach(([sums, counts], j) => {
      let pairs = 0;
      let total = 0;
      for (let i = 0; i < nCases; i++) pairs += counts[drawn[i]!]!;
      if (pairs === 0) return;
      for (let i = 0; i < nCases; i++) total += sums[drawn[i]!]!;
      stats[j]!.push(total / pairs);
    });
  }
  return stats.map((values) => {
    if (values.length === 0) return null;
    if (!values.every(Number.isFinite)) return null; // a resample's sum past the double range (see `finite`)
    values.sort((x, y) => x - y);
    return finiteInterval([quantile(values, alpha / 2), quantile(values, 1 - alpha / 2)]);
  });
}

/** The cluster-robust normal interval of Σ sums / Σ counts (used beyond DRAW_BUDGET; Python's `cluster_normal`). */
export function clusterNormal(sums: readonly number[], counts: readonly number[], z: number): Interval | null {
  let pairs = 0;
  let clusters = 0;
  for (const count of counts) {
    pairs += count;
    if (count > 0) clusters += 1;
  }
  const centre = mean(sums, pairs);
  if (centre === null || clusters < 2) return null;
  const squares: number[] = [];
  for (let i = 0; i < sums.length; i++) if (counts[i]! > 0) squares.push((sums[i]! - centre * counts[i]!) ** 2);
  const total = fsum(squares);
  if (!Number.isFinite(total)) return null; // a square past the double range
  const se = Math.sqrt((total * clusters) / (clusters - 1)) / pairs;
  return finiteInterval([centre - z * se, centre + z * se]);
}
