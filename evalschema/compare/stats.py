"""The statistics of ``evalschema compare`` (SPEC.md §12.4), as closed forms and one seeded bootstrap.

Every function here is mirrored, operation for operation, in ``js/src/compare/compareStats.ts``: the two SDKs give the
same numbers (closed forms within 1e-12, the bootstrap's resamples identical). Nothing here uses a library
beyond the standard one: the oracle fixtures (``spec/conformance/compare/``) check it against scipy and
statsmodels, which are test dependencies only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

EXACT_BELOW = 25  # McNemar: the exact binomial test while b + c < 25, the continuity-corrected chi-square from there
DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 20261130
DRAW_BUDGET = 10_000_000  # test cases × resamples above which the bootstrap gives way to the normal interval

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF


def z_value(alpha: float) -> float:
    """The two-sided standard normal quantile ``Φ⁻¹(1 − alpha / 2)`` (Wichura's AS 241, as in CPython)."""
    upper = 1.0 - alpha / 2.0
    if upper < 1.0:
        return NormalDist().inv_cdf(upper)
    # alpha below the double spacing at 1 (e.g. 1e-300): 1 - alpha/2 rounds to 1, whose quantile is infinite;
    # the lower tail holds it exactly (the normal is symmetric). Half the smallest double (alpha 5e-324) rounds to
    # 0, whose quantile is not defined either: the smallest double stands for it.
    return -NormalDist().inv_cdf(max(alpha / 2.0, math.ulp(0.0)))


def finite(value: float | None) -> float | None:
    """The value, or ``None`` where it overflowed the double range (scores near ±1.8e308: their differences and
    sums are not doubles, and JSON readers that read doubles cannot hold them)."""
    return value if value is not None and math.isfinite(value) else None


def finite_interval(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    """The interval, or ``None`` when a bound overflowed (see ``finite``)."""
    return bounds if bounds is not None and math.isfinite(bounds[0]) and math.isfinite(bounds[1]) else None


def mean(values: Sequence[float], count: int) -> float | None:
    """Σ values / count, exactly rounded; ``None`` when there is no value or the mean is not a finite double (a
    sum past the double range: an infinite value, or ``inf`` and ``-inf`` both, which ``fsum`` refuses)."""
    if not count:
        return None
    try:
        return finite(math.fsum(values) / count)
    except (OverflowError, ValueError):
        return None


def binomial_two_sided(b: int, m: int) -> float:
    """Exact two-sided binomial p-value of ``b`` successes in ``m`` trials with p = 1/2 (scipy's ``binomtest``)."""
    if m == 0:
        return 1.0
    low = min(b, m - b)
    tail = sum(math.comb(m, i) for i in range(low + 1))
    return min(1.0, 2.0 * tail / 2.0**m)


def mcnemar(b: int, c: int) -> tuple[float, str, float | None]:
    """McNemar's test on the discordant counts: (p, method, statistic). Exact while b + c < 25, else chi-square
    with Edwards' continuity correction ``(|b − c| − 1)² / (b + c)`` and one degree of freedom."""
    m = b + c
    if m < EXACT_BELOW:
        return binomial_two_sided(b, m), "exact_binomial", None
    statistic = (abs(b - c) - 1) ** 2 / m
    return math.erfc(math.sqrt(statistic / 2.0)), "chi_square_corrected", statistic


def wilson(x: int, n: int, z: float) -> tuple[float, float] | None:
    """Wilson's score interval for x successes of n; ``None`` when n is 0 (statsmodels' ``method="wilson"``)."""
    if n == 0:
        return None
    p = x / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_paired(a: int, b: int, c: int, d: int, z: float) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval for a paired difference of proportions (Newcombe 1998, method 10, no
    continuity correction) for ``new − base``, where a: both passed, b: base only, c: new only, d: neither."""
    n = a + b + c + d
    if n == 0:
        return None
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, z) or (0.0, 0.0)
    l2, u2 = wilson(a + c, n, z) or (0.0, 0.0)
    product = (a + b) * (c + d) * (a + c) * (b + d)
    phi = 0.0 if product == 0 else (a * d - b * c) / math.sqrt(product)
    delta = p2 - p1
    lower = delta - math.sqrt(max(0.0, (p2 - l2) ** 2 - 2.0 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    upper = delta + math.sqrt(max(0.0, (u2 - p2) ** 2 - 2.0 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return lower, upper


# --- pass@k, pass^k and flips over attempts ---------------------------------------------------------------


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k (Chen et al. 2021): 1 − C(n − c, k) / C(n, k), for n ≥ k."""
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k (Yao et al. 2024): the chance that k attempts drawn without replacement all pass, C(c, k) / C(n, k)."""
    return math.comb(c, k) / math.comb(n, k)


# --- the seeded generator: xoshiro128** seeded by SplitMix64 ----------------------------------------------


class Xoshiro128:
    """xoshiro128** 1.1 (Blackman and Vigna), its four 32-bit words seeded from two SplitMix64 outputs
    (low word first). ``below(n)`` draws uniformly from 0 … n − 1 by rejection: r is redrawn while
    r ≥ 2³² − (2³² mod n), then r mod n."""

    def __init__(self, seed: int) -> None:
        x = seed & _MASK64
        words: list[int] = []
        for _ in range(2):
            x = (x + 0x9E3779B97F4A7C15) & _MASK64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
            z ^= z >> 31
            words += [z & _MASK32, z >> 32]
        self.s = words

    def next32(self) -> int:
        s0, s1, s2, s3 = self.s
        product = (s1 * 5) & _MASK32
        result = ((((product << 7) | (product >> 25)) & _MASK32) * 9) & _MASK32
        t = (s1 << 9) & _MASK32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 11) | (s3 >> 21)) & _MASK32
        self.s = [s0, s1, s2, s3]
        return result

    def indices(self, n: int, count: int) -> list[int]:
        """``count`` draws of ``below(n)``, the generator inlined (the bootstrap's inner loop)."""
        s0, s1, s2, s3 = self.s
        limit = (1 << 32) - (1 << 32) % n
        out: list[int] = []
        append = out.append
        while len(out) < count:
            product = (s1 * 5) & 0xFFFFFFFF
            r = ((((product << 7) | (product >> 25)) & 0xFFFFFFFF) * 9) & 0xFFFFFFFF
            t = (s1 << 9) & 0xFFFFFFFF
            s2 ^= s0
            s3 ^= s1
            s1 ^= s2
            s0 ^= s3
            s2 ^= t
            s3 = ((s3 << 11) | (s3 >> 21)) & 0xFFFFFFFF
            if r < limit:
                append(r % n)
        self.s = [s0, s1, s2, s3]
        return out

    def below(self, n: int) -> int:
        limit = (1 << 32) - (1 << 32) % n
        while True:
            r = self.next32()
            if r < limit:
                return r % n


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """The q-quantile by linear interpolation between order statistics (Hyndman–Fan type 7, numpy's default)."""
    h = (len(sorted_values) - 1) * q
    low = math.floor(h)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (h - low) * (sorted_values[high] - sorted_values[low])


def cluster_bootstrap(
    metrics: Sequence[tuple[Sequence[float], Sequence[int]]], n_cases: int, resamples: int, seed: int, alpha: float
) -> list[tuple[float, float] | None]:
    """Percentile intervals of ratio-of-sums statistics Σ sums[i] / Σ counts[i] over test cases resampled with
    replacement, the same ``resamples`` draws of ``n_cases`` indices shared by every metric. Each metric holds, per
    test case (in the canonical order), the sum of its paired differences and the number of pairs (0: the case
    has none for this metric). A resample with no pair for a metric is left out of that metric's distribution."""
    rng = Xoshiro128(seed)
    stats: list[list[float]] = [[] for _ in metrics]
    for _ in range(resamples):
        drawn = rng.indices(n_cases, n_cases)
        for (metric_sums, metric_counts), values in zip(metrics, stats):
            pairs = sum(map(metric_counts.__getitem__, drawn))
            if pairs:
                values.append(sum(map(metric_sums.__getitem__, drawn)) / pairs)
    out: list[tuple[float, float] | None] = []
    for values in stats:
        if not values:
            out.append(None)
            continue
        if not all(map(math.isfinite, values)):  # a resample's sum past the double range (see ``finite``)
            out.append(None)
            continue
        values.sort()
        out.append(finite_interval((quantile(values, alpha / 2.0), quantile(values, 1.0 - alpha / 2.0))))
    return out


def cluster_normal(sums: Sequence[float], counts: Sequence[int], z: float) -> tuple[float, float] | None:
    """The cluster-robust normal interval of Σ sums / Σ counts: mean ± z·SE with SE² = Σ (sumᵢ − mean·countᵢ)² /
    (Σ counts)² · G / (G − 1) over the G test cases that have pairs. Used beyond ``DRAW_BUDGET``."""
    pairs = sum(counts)
    clusters = sum(1 for c in counts if c)
    centre = mean(sums, pairs)
    if centre is None or clusters < 2:
        return None
    try:
        squares = math.fsum((s - centre * c) ** 2 for s, c in zip(sums, counts) if c)
    except (OverflowError, ValueError):  # a square past the double range
        return None
    se = math.sqrt(squares * clusters / (clusters - 1)) / pairs
    return finite_interval((centre - z * se, centre + z * se))
