"""Write the compare fixtures of ``spec/conformance/compare/`` with expected numbers from the oracles.

Run with the dev dependencies installed (``.venv/bin/python scripts/compare_oracles.py``); it never imports
evalschema. Every expected number comes from scipy or statsmodels, or from numpy re-deriving a definition:

- McNemar: ``statsmodels.stats.contingency_tables.mcnemar(table, exact=b + c < 25, correction=True)``, the exact
  branch cross-checked against ``scipy.stats.binomtest(b, b + c, 0.5)``;
- Wilson: ``statsmodels.stats.proportion.proportion_confint(x, n, alpha, method="wilson")``;
- Newcombe's paired interval (method 10): the published formula over statsmodels' Wilson limits;
- pass@k / pass^k: ``scipy.special.comb(..., exact=True)``, pass@k cross-checked against Chen et al.'s
  numerically stable product form;
- the bootstrap: xoshiro128** re-implemented on numpy ``uint32`` arrays, ``numpy.quantile(method="linear")``.

The counts (pairs, changes) are what the generator built, not what an SDK computed.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import comb  # type: ignore[import-untyped]
from scipy.stats import binomtest, norm  # type: ignore[import-untyped]
from statsmodels.stats.contingency_tables import mcnemar  # type: ignore[import-untyped]
from statsmodels.stats.proportion import proportion_confint  # type: ignore[import-untyped]

# what each kind of pair is, as the table of SPEC §12.2 names it (written out, not computed)
CHANGE = {
    "passed>passed": "unchanged", "failed>failed": "unchanged", "invalidated>failed": "unchanged",
    "passed>failed": "regression", "failed>passed": "improvement", "invalidated>passed": "improvement",
    "passed>invalidated": "newly_invalidated", "passed>errored": "newly_errored", "errored>passed": "no_longer_errored",
    "errored>errored": "excluded", "unscored>passed": "excluded", "passed>unscored": "excluded", "unscored>failed": "excluded",
}  # fmt: skip
EXCLUDED = {"errored>errored": "errored", "passed>errored": "errored", "errored>passed": "errored",
            "unscored>passed": "unscored", "passed>unscored": "unscored", "unscored>failed": "unscored"}  # fmt: skip
OUT = Path(__file__).resolve().parent.parent / "spec" / "conformance" / "compare"
GRADERS = ("exact", "judge")


def _row(case: str, attempt: int | None, outcome: str, rng: random.Random, scores: dict[str, float]) -> dict[str, Any]:
    row: dict[str, Any] = {"test_case_id": case}
    if attempt is not None:
        row["attempt"] = attempt
    if outcome == "errored":
        row.update(grader_results=[], passed=False, error={"type": "timeout"})
        return row
    if outcome == "unscored":
        row.update(grader_results=[{"grader_id": "exact", "type": "exact_match", "score": None, "passed": False}], passed=False)
        return row
    passed = outcome == "passed"
    row["grader_results"] = [
        {"grader_id": "exact", "type": "exact_match", "score": 1 if passed else 0, "passed": passed},
        {"grader_id": "judge", "type": "llm_judge", "score": scores["judge"], "passed": scores["judge"] >= 0.5},
    ]
    row["passed"] = passed
    if outcome == "invalidated":
        row["constraint_violations"] = [{"id": "rbac_scope", "invalidates_result": True}]
    return row


# --- oracles ----------------------------------------------------------------------------------------------


def oracle_mcnemar(b: int, c: int) -> dict[str, Any]:
    exact = b + c < 25
    result = mcnemar([[0, b], [c, 0]], exact=exact, correction=True)
    if exact and b + c:
        assert abs(result.pvalue - binomtest(b, b + c, 0.5).pvalue) < 1e-12
    p = 1.0 if b + c == 0 else float(result.pvalue)
    return {
        "method": "exact_binomial" if exact else "chi_square_corrected",
        "statistic": None if exact else float(result.statistic),
        "p_value": p,
    }


def oracle_wilson(x: int, n: int, alpha: float) -> list[float] | None:
    if n == 0:
        return None
    low, high = proportion_confint(x, n, alpha=alpha, method="wilson")
    return [max(0.0, float(low)), min(1.0, float(high))]


def oracle_newcombe(a: int, b: int, c: int, d: int, alpha: float) -> list[float] | None:
    n = a + b + c + d
    if n == 0:
        return None
    l1, u1 = oracle_wilson(a + b, n, alpha)  # type: ignore[misc]
    l2, u2 = oracle_wilson(a + c, n, alpha)  # type: ignore[misc]
    p1, p2 = (a + b) / n, (a + c) / n
    product = float(a + b) * (c + d) * (a + c) * (b + d)
    phi = 0.0 if product == 0 else (a * d - b * c) / np.sqrt(product)
    delta = p2 - p1
    lower = delta - np.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    upper = delta + np.sqrt(max(0.0, (u2 - p2) ** 2 - 2 * phi * (u2 - p2) * (p1 - l1) + (p1 - l1) ** 2))
    return [float(lower), float(upper)]


def oracle_pass_at_k(n: int, c: int, k: int) -> float:
    exact = 1.0 - comb(n - c, k, exact=True) / comb(n, k, exact=True)
    stable = 1.0 if n - c < k else 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))
    assert abs(exact - stable) < 1e-12
    return float(exact)


def oracle_pass_hat_k(n: int, c: int, k: int) -> float:
    return float(comb(c, k, exact=True) / comb(n, k, exact=True))


class NumpyXoshiro:
    """xoshiro128** on numpy uint32 (wrapping arithmetic), seeded by SplitMix64 on Python integers."""

    def __init__(self, seed: int) -> None:
        mask = (1 << 64) - 1
        x, words = seed & mask, []
        for _ in range(2):
            x = (x + 0x9E3779B97F4A7C15) & mask
            z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            words += [z & 0xFFFFFFFF, z >> 32]
        self.s = np.array(words, dtype=np.uint32)

    def next32(self) -> int:
        s = self.s
        with np.errstate(over="ignore"):
            p = np.uint32(s[1] * np.uint32(5))
            result = np.uint32((np.uint32(p << np.uint32(7)) | (p >> np.uint32(25))) * np.uint32(9))
            t = np.uint32(s[1] << np.uint32(9))
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = np.uint32(s[3] << np.uint32(11)) | (s[3] >> np.uint32(21))
        return int(result)

    def below(self, n: int) -> int:
        limit = 2**32 - 2**32 % n
        while True:
            r = self.next32()
            if r < limit:
                return r % n


def oracle_bootstrap(metrics: list[tuple[np.ndarray, np.ndarray]], resamples: int, seed: int, alpha: float) -> list[list[float] | None]:
    n = len(metrics[0][0])
    rng = NumpyXoshiro(seed)
    draws = np.array([[rng.below(n) for _ in range(n)] for _ in range(resamples)])
    out: list[list[float] | None] = []
    for sums, counts in metrics:
        pairs = counts[draws].sum(axis=1)
        keep = pairs > 0
        values = sums[draws].sum(axis=1)[keep] / pairs[keep]
        if not len(values):
            out.append(None)
            continue
        low, high = np.quantile(values, [alpha / 2, 1 - alpha / 2], method="linear")
        out.append([float(low), float(high)])
    return out


# --- cases ------------------------------------------------------------------------------------------------


def build(name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """One fixture: two result sets built from counts of each kind of pair, with the oracles' numbers."""
    rng = random.Random(name)
    alpha = spec.get("alpha", 0.05)
    attempts = spec.get("attempts", 1)
    kinds = [(kind, count) for kind, count in spec["pairs"].items()]
    plan: list[tuple[str, str]] = []  # (base outcome, new outcome) per pair
    for kind, count in kinds:
        before, after = kind.split(">")
        plan += [(before, after)] * count
    rng.shuffle(plan)
    base_rows, new_rows = [], []
    per_case: dict[str, list[tuple[float, int]]] = {}
    for index, (before, after) in enumerate(plan):
        case = f"case-{index // attempts:04d}"
        attempt = index % attempts + 1 if attempts > 1 else None
        scores = ({"judge": round(rng.random(), 3)}, {"judge": round(rng.random(), 3)})
        base_rows.append(_row(case, attempt, before, rng, scores[0]))
        new_rows.append(_row(case, attempt, after, rng, scores[1]))
        if "errored" not in (before, after) and "unscored" not in (before, after):
            per_case.setdefault(case, []).append((scores[1]["judge"] - scores[0]["judge"], 1))
        else:
            per_case.setdefault(case, [])
    rng.shuffle(new_rows)  # row order must not matter
    scored = ("passed", "failed", "invalidated")
    comparable = [(x, y) for x, y in plan if x in scored and y in scored]
    a = sum(1 for x, y in comparable if x == "passed" and y == "passed")
    b = sum(1 for x, y in comparable if x == "passed" and y != "passed")
    c = sum(1 for x, y in comparable if x != "passed" and y == "passed")
    d = len(comparable) - a - b - c
    n = a + b + c + d
    z = float(norm.isf(alpha / 2))
    changes = dict.fromkeys(
        ("regression", "newly_invalidated", "newly_errored", "improvement", "no_longer_errored", "unchanged", "excluded"), 0
    )
    for kind, count in kinds:
        changes[CHANGE[kind]] += count
    excluded = {"errored": 0, "unscored": 0}
    for kind, count in kinds:
        if kind in EXCLUDED:
            excluded[EXCLUDED[kind]] += count
    expect: dict[str, Any] = {
        "changes": changes,
        "pairs": {
            "paired": len(plan),
            "comparable": len(plan) - sum(excluded.values()),
            "excluded_errored": excluded["errored"],
            "excluded_unscored": excluded["unscored"],
        },
        "mcnemar": {"both_passed": a, "base_only": b, "new_only": c, "neither": d, **oracle_mcnemar(b, c)},
        "pass_rate": {
            "base": {"passed": a + b, "scored": n, "interval": oracle_wilson(a + b, n, alpha)},
            "new": {"passed": a + c, "scored": n, "interval": oracle_wilson(a + c, n, alpha)},
            "difference": (c - b) / n if n else None,
            "interval": oracle_newcombe(a, b, c, d, alpha),
        },
        "z": z,
    }
    # pass@k over the base run's attempts (every case has `attempts` rows; errored / unscored rows do not count)
    if attempts > 1:
        cases: dict[str, list[str]] = {}
        for index, (before, _) in enumerate(plan):
            cases.setdefault(f"case-{index // attempts:04d}", []).append(before)
        tallies = [(sum(1 for o in outs if o in scored), sum(1 for o in outs if o == "passed")) for outs in cases.values()]
        tallies = [(m, p) for m, p in tallies if m]
        by_k = []
        for k in range(1, max(m for m, _ in tallies) + 1):
            eligible = [(m, p) for m, p in tallies if m >= k]
            by_k.append(
                {
                    "k": k,
                    "test_cases": len(eligible),
                    "pass_at_k": float(np.mean([oracle_pass_at_k(m, p, k) for m, p in eligible])),
                    "pass_hat_k": float(np.mean([oracle_pass_hat_k(m, p, k) for m, p in eligible])),
                }
            )
        multi = [(m, p) for m, p in tallies if m >= 2]
        flips = sum(1 for m, p in multi if 0 < p < m)
        expect["attempts_base"] = {
            "test_cases": len(tallies),
            "multi_attempt_cases": len(multi),
            "flip_rate": flips / len(multi) if multi else None,
            "by_k": by_k,
        }
    resamples = spec.get("resamples")
    if resamples:
        ordered = sorted(per_case)  # test case ids are ASCII: code point order is byte order
        judge = (np.array([sum(v for v, _ in per_case[k]) for k in ordered]), np.array([len(per_case[k]) for k in ordered]))
        expect["judge_bootstrap"] = oracle_bootstrap([judge], resamples, spec["seed"], alpha)[0]
        expect["judge_difference"] = float(judge[0].sum() / judge[1].sum()) if judge[1].sum() else None
    envelope = {"version": "1.2.0", "suite_id": "oracle", "started_at": "2026-11-30T00:00:00Z"}
    return {
        "description": spec["description"],
        "base": {**envelope, "run_id": "base", "results": base_rows},
        "new": {**envelope, "run_id": "new", "results": new_rows},
        "options": {"alpha": alpha, "seed": spec.get("seed", 1), "resamples": resamples or 0},
        "expect": expect,
    }


def cases() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    rng = random.Random(19)
    # the exact branch: every discordant total from 0 to 24, at two confidence levels
    for m in range(25):
        b = rng.randint(0, m)
        alpha = 0.05 if m % 2 else 0.1
        out[f"exact__discordant_{m:02d}"] = {
            "description": f"{m} discordant pairs (b = {b}): the exact binomial test; alpha {alpha}",
            "alpha": alpha,
            "pairs": {"passed>passed": rng.randint(0, 12), "passed>failed": b, "failed>passed": m - b, "failed>failed": rng.randint(0, 8)},
        }
    # the chi-square branch: 25 discordant pairs and up
    for i, m in enumerate((25, 26, 30, 37, 44, 51, 60, 75, 90, 120)):
        b = rng.randint(0, m)
        out[f"chi_square__discordant_{m:03d}"] = {
            "description": f"{m} discordant pairs (b = {b}): the continuity-corrected chi-square",
            "alpha": (0.05, 0.01, 0.2)[i % 3],
            "pairs": {"passed>passed": rng.randint(0, 30), "passed>failed": b, "failed>passed": m - b, "failed>failed": rng.randint(0, 20)},
        }
    out["chi_square__balanced_25"] = {
        "description": "b = c at 25 discordant pairs: chi-square (|b − c| − 1)² / m",
        "pairs": {"passed>failed": 12, "failed>passed": 13, "passed>passed": 5},
    }
    out["edge__no_comparable_pair"] = {
        "description": "every pair errored or unscored: no statistics",
        "pairs": {"errored>errored": 3, "unscored>passed": 2, "passed>errored": 2},
    }
    out["edge__identical"] = {
        "description": "identical outcomes: no discordant pair, p = 1",
        "pairs": {"passed>passed": 9, "failed>failed": 4},
    }
    out["edge__all_pass_to_all_fail"] = {"description": "every pair regresses", "pairs": {"passed>failed": 20}}
    out["edge__single_pair"] = {"description": "one pair", "pairs": {"failed>passed": 1}}
    out["outcomes__invalidated_and_errored"] = {
        "description": "newly invalidated pairs count as base-only discordant; errored and unscored pairs leave",
        "pairs": {
            "passed>invalidated": 4,
            "invalidated>passed": 2,
            "invalidated>failed": 3,
            "passed>errored": 2,
            "errored>passed": 1,
            "passed>unscored": 2,
            "passed>passed": 10,
            "failed>passed": 3,
        },
    }
    for attempts, (pa, fa) in ((3, (21, 9)), (4, (20, 16)), (5, (30, 10))):
        out[f"attempts__{attempts}_per_case"] = {
            "description": f"{attempts} attempts per test case: pass@k, pass^k and the flip rate of the base run",
            "attempts": attempts,
            "pairs": {
                "passed>passed": pa,
                "failed>failed": fa,
                "passed>failed": attempts,
                "failed>passed": attempts,
                "errored>passed": 1,
                "unscored>failed": 1,
            },
        }
    for i, (n_cases, resamples) in enumerate(((8, 400), (15, 300), (30, 200), (12, 500))):
        out[f"bootstrap__judge_{n_cases:02d}_cases"] = {
            "description": f"the seeded paired bootstrap of the judge's mean score difference: {n_cases} pairs, {resamples} resamples",
            "seed": 1000 + i,
            "resamples": resamples,
            "pairs": {"passed>passed": n_cases // 2, "failed>passed": n_cases - n_cases // 2},
        }
    out["bootstrap__clustered_attempts"] = {
        "description": "attempts resampled together with their test case",
        "seed": 77,
        "resamples": 300,
        "attempts": 3,
        "pairs": {"passed>passed": 12, "failed>passed": 6, "passed>failed": 3, "failed>failed": 3},
    }
    return out


def comparability() -> dict[str, dict[str, Any]]:
    """One fixture per comparability rule that triggers it, and its fixed twin; the findings are by construction."""
    rng = random.Random("comparability")
    envelope = {"version": "1.2.0", "suite_id": "qa", "started_at": "2026-11-30T00:00:00Z"}
    digest = "sha256:" + "ab" * 32
    rows = [_row(f"case-{i}", None, "passed" if i % 3 else "failed", rng, {"judge": 0.5}) for i in range(6)]
    graders = {
        "exact": {"type": "exact_match", "version": "1.0.0"},
        "judge": {"type": "llm_judge", "version": "2.1.0", "judge_model": "judge-2026-10"},
    }

    def pair(
        description: str, base: dict[str, Any], new: dict[str, Any], findings: list[tuple[str, str]], **options: Any
    ) -> dict[str, Any]:
        return {
            "description": description,
            "base": {**envelope, "run_id": "base", "suite_digest": digest, "graders": graders, "results": rows, **base},
            "new": {**envelope, "run_id": "new", "suite_digest": digest, "graders": graders, "results": rows, **new},
            "options": {"alpha": 0.05, "seed": 1, "resamples": 0, **options},
            "expect": {"findings": [{"code": code, "pointer": where} for code, where in findings]},
        }

    changed = {**graders, "judge": {**graders["judge"], "judge_model": "judge-2026-11"}}
    return {
        "compare_suite_mismatch__other_suite": pair(
            "different suite ids", {}, {"suite_id": "qa-v2"}, [("COMPARE_SUITE_MISMATCH", "/suite_id")]
        ),
        "compare_suite_mismatch__same_suite": pair("the same suite id", {}, {}, []),
        "compare_suite_digest_mismatch__changed": pair(
            "the suite's digest changed", {}, {"suite_digest": "sha256:" + "cd" * 32}, [("COMPARE_SUITE_DIGEST_MISMATCH", "/suite_digest")]
        ),
        "compare_suite_digest_mismatch__one_side_absent": pair(
            "a digest on one side only: nothing to compare", {"suite_digest": None}, {}, []
        ),
        "compare_grader_changed__judge_model": pair(
            "the judge model changed", {}, {"graders": changed}, [("COMPARE_GRADER_CHANGED", "/graders/judge/judge_model")]
        ),
        "compare_grader_changed__version_and_removed": pair(
            "a grader's version changed and another is gone",
            {"graders": {**graders, "extra/one": {"type": "regex"}}},
            {"graders": {**graders, "exact": {"type": "exact_match", "version": "1.1.0"}}},
            [("COMPARE_GRADER_CHANGED", "/graders/exact/version"), ("COMPARE_GRADER_CHANGED", "/graders/extra~1one")],
        ),
        "compare_grader_changed__same_graders": pair("the same graders", {}, {}, []),
        "compare_test_cases_differ__missing_and_extra": pair(
            "one test case only in base, another only in new",
            {"results": rows[:-1]},
            {"results": rows[1:]},
            [("COMPARE_TEST_CASES_DIFFER", "/results")],
        ),
        "compare_test_cases_differ__same_cases": pair("the same test cases in another order", {}, {"results": rows[::-1]}, []),
        "comparability__strict_makes_errors": pair(
            "--strict: every finding is an error",
            {},
            {"suite_id": "qa-v2", "graders": changed},
            [("COMPARE_SUITE_MISMATCH", "/suite_id"), ("COMPARE_GRADER_CHANGED", "/graders/judge/judge_model")],
            strict=True,
        ),
    }


def oracle_reduce(values: list[float], counted: list[float], reducer: dict[str, Any]) -> float | None:
    """One test case's attempts reduced (SPEC §4.7), each method from its definition."""
    method, k, threshold = reducer["method"], reducer.get("k", 1), reducer.get("threshold", 1)
    if method == "mean":
        return float(np.mean(values))
    if method == "median":
        return float(np.median(values))
    if method == "mode":  # the most frequent value; among equally frequent ones, the earliest attempt's
        return max(values, key=lambda v: (values.count(v), -values.index(v)))
    if method in ("max", "min"):
        return float(max(values) if method == "max" else min(values))
    reached = sum(1 for v in counted if v >= threshold)
    if method == "at_least":
        return 1.0 if reached >= k else 0.0
    n = len(counted)
    return None if n < k else 1.0 - comb(n - reached, k, exact=True) / comb(n, k, exact=True)


def oracle_view(rows: list[dict[str, Any]], grader: str, reducer: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float]]:
    """A run's per-test-case view of one grader (``TestCaseSummary``) and each test case's reduced score."""
    by_case: dict[str, list[tuple[int, float, float | None]]] = {}
    for row in rows:
        if "error" in row:
            continue
        for g in row["grader_results"]:
            if g["grader_id"] == grader and g.get("score") is not None:
                by_case.setdefault(row["test_case_id"], []).append((row.get("attempt", 1), g["score"], g.get("raw_score")))
    reduced, raws = {}, []
    for case, held in by_case.items():
        held.sort(key=lambda v: v[0])
        counted = [raw if raw is not None else score for _, score, raw in held]
        value = oracle_reduce([score for _, score, _ in held], counted, reducer)
        if value is not None:
            reduced[case] = value
        raw_values = [raw for _, _, raw in held if raw is not None]
        if raw_values and reducer["method"] not in ("at_least", "pass_at"):
            raws.append(oracle_reduce(raw_values, raw_values, reducer))
    scores = np.array(list(reduced.values()))
    view: dict[str, Any] = {
        "reducer": reducer["method"],
        "test_cases": len(scores),
        "avg_score": float(scores.mean()) if len(scores) else None,
        "stderr": float(scores.std(ddof=1) / np.sqrt(len(scores))) if len(scores) > 1 else None,
    }
    if raws:
        raw_array = np.array(raws, dtype=float)
        view["avg_raw_score"] = float(raw_array.mean())
        view["raw_stderr"] = float(raw_array.std(ddof=1) / np.sqrt(len(raw_array))) if len(raw_array) > 1 else None
    return view, reduced


def per_test_case() -> dict[str, dict[str, Any]]:
    """Runs with uneven attempts, errored attempts and raw values on a 1-10 scale, each run with its own reducers:
    every grader's per-test-case view of each run and their paired difference (SPEC §12.4)."""
    out = {}
    plans: dict[str, tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]] = {
        "per_test_case__each_run_its_own_reducer": ({"exact": {"method": "mean"}, "judge": {"method": "median"}}, {"exact": {"method": "max"}, "judge": {"method": "mode"}}),
        "per_test_case__pass_at_and_at_least": ({"exact": {"method": "pass_at", "k": 2}, "judge": {"method": "at_least", "k": 2, "threshold": 6}}, {"exact": {"method": "pass_at", "k": 2}, "judge": {"method": "at_least", "k": 2, "threshold": 6}}),
        "per_test_case__min_and_default": ({"exact": {"method": "min"}}, {"judge": {"method": "min"}}),
    }  # fmt: skip
    for seed, (name, reducers) in enumerate(sorted(plans.items())):
        rng = random.Random(4000 + seed)
        sides: list[dict[str, Any]] = []
        for side, declared in zip(("base", "new"), reducers):
            rows = []
            for i in range(14):
                if rng.random() < 0.1:
                    continue  # a test case this run did not run
                for attempt in range(1, rng.randint(1, 4) + 1):
                    exact = float(rng.random() < 0.6)
                    rating = rng.randint(1, 10)
                    row: dict[str, Any] = {
                        "test_case_id": f"case-{i:02d}",
                        "attempt": attempt,
                        "grader_results": [
                            {"grader_id": "exact", "type": "exact_match", "score": exact, "passed": exact == 1.0},
                            {
                                "grader_id": "judge",
                                "type": "llm_judge",
                                "score": (rating - 1) / 9,
                                "raw_score": rating,
                                "passed": rating >= 6,
                            },
                        ],
                        "passed": exact == 1.0 and rating >= 6,
                    }
                    if rng.random() < 0.08:
                        row["error"] = {"type": "timeout"}
                        row["passed"] = False
                    rows.append(row)
            graders = {g: {"type": "exact_match" if g == "exact" else "llm_judge", "reducer": r} for g, r in declared.items()}
            run = {
                "version": "1.4.0",
                "suite_id": "oracle",
                "started_at": "2026-12-07T00:00:00Z",
                "run_id": side,
                "graders": graders,
                "results": rows,
            }
            if not graders:
                del run["graders"]
            sides.append(run)
        expect: dict[str, Any] = {}
        alpha = 0.05
        z = float(norm.ppf(1 - alpha / 2))
        for grader in ("exact", "judge"):
            views = [oracle_view(run["results"], grader, reducers[i].get(grader, {"method": "mean"})) for i, run in enumerate(sides)]
            both = [case for case in views[0][1] if case in views[1][1]]
            differences = np.array([views[1][1][case] - views[0][1][case] for case in both])
            mean = float(differences.mean()) if len(both) else None
            stderr = float(differences.std(ddof=1) / np.sqrt(len(both))) if len(both) > 1 else None
            expect[grader] = {
                "base_per_test_case": views[0][0],
                "new_per_test_case": views[1][0],
                "per_test_case_difference": {
                    "test_cases": len(both),
                    "base_mean": float(np.mean([views[0][1][c] for c in both])) if both else None,
                    "new_mean": float(np.mean([views[1][1][c] for c in both])) if both else None,
                    "difference": mean,
                    "stderr": stderr,
                    "interval": None if stderr is None or mean is None else [mean - z * stderr, mean + z * stderr],
                },
            }
        out[name] = {
            "description": "Each run's per-test-case view reduced by its own reducers, and their paired difference (SPEC 12.4)",
            "base": sides[0],
            "new": sides[1],
            "options": {"alpha": alpha, "seed": 1, "resamples": 0},
            "expect": {"per_test_case": expect},
        }
    return out


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    written = set()
    for name, spec in sorted(cases().items()):
        fixture = build(name, spec)
        path = OUT / f"{name}.json"
        path.write_text(json.dumps(fixture, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
        written.add(path.name)
    for name, fixture in sorted(comparability().items()):
        for side in ("base", "new"):
            fixture[side] = {k: v for k, v in fixture[side].items() if v is not None}
        path = OUT / f"{name}.json"
        path.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written.add(path.name)
    for name, fixture in sorted(per_test_case().items()):
        path = OUT / f"{name}.json"
        path.write_text(json.dumps(fixture, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
        written.add(path.name)
    stale = {p.name for p in OUT.glob("*.json")} - written
    for name in stale:
        (OUT / name).unlink()
    print(f"{len(written)} compare fixtures in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
