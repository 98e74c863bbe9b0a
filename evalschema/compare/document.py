"""The comparison document (``schemas/comparison.json``) built from a ``Comparer``'s tables (SPEC §12)."""

from __future__ import annotations

from typing import Any

from evalschema_models import rules as codes
from evalschema_models.constants import COMPARED_GRADER_FIELDS

from ..core.findings import pointer
from ..core.messages import render
from ..schemas.registry import spec_version
from . import stats
from .cases import ValuesMissed, grader_fields
from .core import FLIP_ORDER, PROVENANCE, Comparer, Options, power

GRADER_FIELDS = COMPARED_GRADER_FIELDS


def _finding(code: str, where: str, message: str, strict: bool) -> dict[str, Any]:
    return {"code": code, "severity": "error" if strict else "warning", "pointer": where, "message": message}


def _grader_provenance(comparer: Comparer, side: int) -> dict[str, dict[str, Any]]:
    """Each grader's provenance: the result set's ``graders`` entry, its ``type`` else the type its results carry."""
    declared = comparer.envelopes[side].get("graders")
    out: dict[str, dict[str, Any]] = {}
    if isinstance(declared, dict):
        for grader_id, entry in declared.items():
            if isinstance(entry, dict):
                out[grader_id] = {f: entry[f] for f in GRADER_FIELDS if isinstance(entry.get(f), str)}
    for grader_id, kind in comparer.grader_types[side].items():
        out.setdefault(grader_id, {}).setdefault("type", kind)
    return out


def comparability(comparer: Comparer, strict: bool) -> list[dict[str, Any]]:
    """Every difference that makes the two runs not comparable (SPEC §12.6), in a fixed order."""
    base, new = comparer.envelopes
    found: list[dict[str, Any]] = []
    if base.get("suite_id") != new.get("suite_id"):
        message = render(codes.COMPARE_SUITE_MISMATCH, base=base.get("suite_id"), new=new.get("suite_id"))
        found.append(_finding(codes.COMPARE_SUITE_MISMATCH, "/suite_id", message, strict))
    digests = (base.get("suite_digest"), new.get("suite_digest"))
    if None not in digests and digests[0] != digests[1]:
        message = render(codes.COMPARE_SUITE_DIGEST_MISMATCH, base=digests[0], new=digests[1])
        found.append(_finding(codes.COMPARE_SUITE_DIGEST_MISMATCH, "/suite_digest", message, strict))
    expected = comparer.options.suite_digest
    if expected is not None:
        for name, digest in zip(("base", "new"), digests):
            if digest is not None and digest != expected:
                message = render(codes.COMPARE_SUITE_DIGEST_MISMATCH, "given", side=name, value=digest, expected=expected)
                found.append(_finding(codes.COMPARE_SUITE_DIGEST_MISMATCH, "/suite_digest", message, strict))
    graders = (_grader_provenance(comparer, 0), _grader_provenance(comparer, 1))
    for grader_id in sorted(set(graders[0]) | set(graders[1])):
        if grader_id not in graders[0] or grader_id not in graders[1]:
            side = "new" if grader_id in graders[1] else "base"
            message = render(codes.COMPARE_GRADER_CHANGED, "only_in", name=grader_id, side=side)
            found.append(_finding(codes.COMPARE_GRADER_CHANGED, pointer("graders", grader_id), message, strict))
            continue
        for field in GRADER_FIELDS:
            before, after = graders[0][grader_id].get(field), graders[1][grader_id].get(field)
            if before != after:
                message = render(codes.COMPARE_GRADER_CHANGED, name=grader_id, field=field, base=before, new=after)
                found.append(_finding(codes.COMPARE_GRADER_CHANGED, pointer("graders", grader_id, field), message, strict))
    only_base = comparer.base_rows - sum(comparer.base_matched)
    only_new = len(comparer.new_only)
    if only_base or only_new:
        message = render(codes.COMPARE_TEST_CASES_DIFFER, base=only_base, new=only_new)
        found.append(_finding(codes.COMPARE_TEST_CASES_DIFFER, "/results", message, strict))
    return found


def _rate(x: int, n: int, z: float) -> dict[str, Any]:
    interval = stats.wilson(x, n, z)
    return {"passed": x, "scored": n, "rate": x / n if n else None, "interval": list(interval) if interval else None}


def _units(comparer: Comparer, canonical: bool) -> list[int]:
    """The slots of the test cases with a pair (the bootstrap's units); in the canonical order (their ids' UTF-8
    bytes, ascending) when ``canonical``."""
    paired = comparer.case_paired
    if not canonical:
        return [slot for slot, flag in enumerate(paired) if flag]
    return [slot for key, slot in sorted(comparer.cases.items()) if paired[slot]]


def build(comparer: Comparer) -> dict[str, Any]:
    options = comparer.options
    z = stats.z_value(options.alpha)
    a, b, c, d = comparer.table
    n = a + b + c + d
    p_value, method, statistic = stats.mcnemar(b, c)
    difference = (c - b) / n if n else None
    paired = stats.newcombe_paired(a, b, c, d, z)

    # per-test-case metrics: the pass difference, then each grader's score difference
    n_cases = sum(comparer.case_paired)
    grader_ids = sorted(comparer.grader_counts.columns)
    if options.grader is not None:
        grader_ids = [g for g in grader_ids if g == options.grader]
    bootstrap = options.resamples > 0 and n_cases * options.resamples <= stats.DRAW_BUDGET and n_cases > 0
    order = _units(comparer, canonical=bootstrap)
    metrics: list[tuple[list[float], list[int]]] = [
        ([float(comparer.case_pass_sum[i]) for i in order], [comparer.case_pairs[i] for i in order])
    ]
    for grader_id in grader_ids:
        sum_column = comparer.grader_sums.column(grader_id, len(comparer.case_pairs))
        count_column = comparer.grader_counts.column(grader_id, len(comparer.case_pairs))
        metrics.append(([sum_column[i] for i in order], [count_column[i] for i in order]))
    if bootstrap:
        intervals = stats.cluster_bootstrap(metrics, n_cases, options.resamples, options.seed, options.alpha)
        interval_method = "paired_bootstrap"
    else:
        intervals = [stats.cluster_normal(sums, counts, z) for sums, counts in metrics]
        interval_method = "cluster_normal"

    graders = []
    declared = (comparer.envelopes[0].get("graders"), comparer.envelopes[1].get("graders"))  # each run's reducers
    for grader_id, (differences, counts), interval in zip(grader_ids, metrics[1:], intervals[1:]):
        pairs = sum(counts)
        base_total, new_total = comparer.grader_totals[grader_id]
        graders.append(
            {
                "grader_id": grader_id,
                "pairs": pairs,
                "test_cases": sum(1 for count in counts if count),
                "base_mean": stats.finite(base_total / pairs) if pairs else None,
                "new_mean": stats.finite(new_total / pairs) if pairs else None,
                "difference": stats.mean(differences, pairs),
                "interval": list(interval) if interval else None,
                "method": interval_method,
                **grader_fields(comparer.case_values, declared, grader_id, z),
            }
        )

    significant = n > 0 and p_value < options.alpha
    reasons = []
    if difference is not None and difference < 0:
        if significant:
            reasons.append("significant_drop")
        if options.max_drop is not None and -difference > options.max_drop:
            reasons.append("drop_exceeds_max")
    if n == 0:
        outcome = "no_data"
    elif significant and difference is not None and difference != 0:
        outcome = "regression" if difference < 0 else "improvement"
    else:
        outcome = "no_significant_change"

    findings = comparability(comparer, options.strict)
    flips = sorted(
        comparer.flips, key=lambda f: (CHANGE_RANK[f["change"]], f["test_case_id"].encode("utf-8", "surrogatepass"), f["attempt"])
    )
    return {
        "version": spec_version(),
        "base": _run(comparer, 0),
        "new": _run(comparer, 1),
        "options": options.to_dict(),
        "comparable": not findings,
        "findings": findings,
        "pairs": {
            "base_rows": comparer.base_rows,
            "new_rows": comparer.new_rows,
            "paired": sum(comparer.base_matched),
            "only_in_base": comparer.base_rows - sum(comparer.base_matched),
            "only_in_new": len(comparer.new_only),
            "duplicates": comparer.duplicates,
            "ignored_rows": comparer.ignored,
            "comparable": n,
            "excluded_errored": comparer.excluded["errored"],
            "excluded_unscored": comparer.excluded["unscored"],
            "test_cases": n_cases,
        },
        "changes": dict(comparer.changes),
        "pass_rate": {
            "base": _rate(a + b, n, z),
            "new": _rate(a + c, n, z),
            "difference": difference,
            "interval": list(paired) if paired else None,
            "interval_method": "newcombe_hybrid_score",
            "clustered_interval": list(intervals[0]) if intervals[0] else None,
            "clustered_method": interval_method,
        },
        "mcnemar": {
            "both_passed": a,
            "base_only": b,
            "new_only": c,
            "neither": d,
            "discordant": b + c,
            "method": method,
            "statistic": statistic,
            "p_value": p_value,
        },
        "power": power(n, options.alpha),
        "graders": graders,
        "attempts": {"base": comparer.attempt_statistics(0), "new": comparer.attempt_statistics(1)},
        "verdict": {"outcome": outcome, "significant": significant, "gate_failed": bool(reasons), "gate_reasons": reasons},
        "flips": flips,
    }


def _ranks() -> dict[str, int]:
    return {name: rank for rank, name in enumerate(FLIP_ORDER)}


CHANGE_RANK = _ranks()


def _run(comparer: Comparer, side: int) -> dict[str, Any]:
    envelope = comparer.envelopes[side]
    out = {name: envelope[name] for name in PROVENANCE if name in envelope and name != "graders"}
    out["graders"] = _grader_provenance(comparer, side)
    if comparer.labels[side] is not None:
        out["path"] = comparer.labels[side]
    return out


def compare(base: dict[str, Any], new: dict[str, Any], options: Options | None = None) -> dict[str, Any]:
    """The comparison document of two result sets held in memory (SPEC §12); its schema is
    ``schemas/comparison.json``."""
    for keep_all in (False, True):
        comparer = Comparer(options or Options(), keep_all)
        try:
            for side, document in enumerate((base, new)):
                if not isinstance(document, dict):
                    raise TypeError("a result set is a JSON object")
                comparer.envelopes[side].update({k: v for k, v in document.items() if k != "results"})
                rows = document.get("results")
                add = comparer.add_base if side == 0 else comparer.add_new
                for row in rows if isinstance(rows, list) else ():
                    add(row)
        except ValuesMissed:
            continue  # an `attempt` after rows whose values were skipped: again, keeping every value
        return build(comparer)
    raise AssertionError("a comparison keeping every value never starts over")
