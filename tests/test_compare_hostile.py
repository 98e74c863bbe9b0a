"""compare's statistics are defined for every valid input (issue 39): attempts beyond 64 bits, scores whose
differences and sums leave the double range, and an ``--alpha`` so small that ``1 - alpha / 2`` rounds to 1 give
a comparison (strict JSON; a number that would overflow is null) — never a traceback; ``--alpha`` outside (0, 1)
is a usage error."""

from __future__ import annotations

import copy
import json
import math
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evalschema.compare import stats

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


JS_CLI = ROOT / "js" / "dist" / "cli.js"


@pytest.fixture(params=["python", "typescript"])
def sdk(request: pytest.FixtureRequest) -> list[str]:
    """The command of each SDK that has ``compare`` (the TypeScript one needs ``npm run build`` in js/)."""
    if request.param == "python":
        return [sys.executable, "-m", "evalschema"]
    if shutil.which("node") is None or not JS_CLI.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    return ["node", str(JS_CLI)]


def _compare(
    tmp_path: Path, base: dict[str, Any], new: dict[str, Any], *options: str, command: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "base.json").write_text(json.dumps(base), "utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), "utf-8")
    argv = [
        *(command or [sys.executable, "-m", "evalschema"]),
        "compare",
        "--format",
        "json",
        *options,
        str(tmp_path / "base.json"),
        str(tmp_path / "new.json"),
    ]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def _with(change: Any) -> dict[str, Any]:
    document: dict[str, Any] = copy.deepcopy(EXAMPLE)
    for row in document["results"]:
        change(row)
    return document


def _ok(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), (done.returncode, done.stderr)
    report: dict[str, Any] = _strict(done.stdout)
    return report


@pytest.mark.parametrize("attempt", ["1e300", str(2**63), str(2**64 + 1)])
def test_attempts_beyond_64_bits_pair_and_stay_distinct(tmp_path: Path, attempt: str, sdk: list[str]) -> None:
    def huge(row: dict[str, Any]) -> None:
        if row["attempt"] == 2:
            row["attempt"] = "HUGE"

    text = json.dumps(_with(huge)).replace('"HUGE"', attempt)
    (tmp_path / "base.json").write_text(text, "utf-8")
    (tmp_path / "new.json").write_text(text, "utf-8")
    argv = [*sdk, "compare", "--format", "json", str(tmp_path / "base.json"), str(tmp_path / "new.json")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    report = _ok(done)
    assert report["pairs"]["paired"] == len(EXAMPLE["results"])  # attempt 2 and the huge one stay distinct
    assert report["pairs"]["duplicates"] == 0
    assert done.returncode == 0


def test_scores_at_the_edge_of_the_double_range_give_null_not_a_traceback(tmp_path: Path, sdk: list[str]) -> None:
    def high(row: dict[str, Any]) -> None:
        for g in row["grader_results"]:
            g["score"] = 1.7e308

    def low(row: dict[str, Any]) -> None:
        for g in row["grader_results"]:
            g["score"] = -1.7e308

    base, new = _with(high), _with(low)
    new["results"][0]["grader_results"][0]["score"] = 1.7e308  # +inf and -inf differences both: fsum refuses
    for options in (("--force",), ("--force", "--resamples", "0")):  # scores past 1 are not valid: compared by force
        report = _ok(_compare(tmp_path, base, new, *options, command=sdk))
        graders = {g["grader_id"]: g for g in report["graders"]}
        assert graders["correctness-judge"]["difference"] is None
        assert graders["correctness-judge"]["interval"] is None
        assert graders["correctness-judge"]["pairs"] > 0


def test_a_tiny_alpha_gives_a_finite_wide_interval(tmp_path: Path, sdk: list[str]) -> None:
    def flip(row: dict[str, Any]) -> None:
        row["passed"] = not row["passed"]

    report = _ok(_compare(tmp_path, EXAMPLE, _with(flip), "--alpha", "1e-300", command=sdk))
    low, high = report["pass_rate"]["interval"]
    assert -1.0 <= low <= high <= 1.0


@pytest.mark.parametrize("alpha", ["0", "1", "-0.5", "1.5", "nan", "inf", "1e-400"])
def test_alpha_outside_0_1_is_a_usage_error(tmp_path: Path, alpha: str, sdk: list[str]) -> None:
    done = _compare(tmp_path, EXAMPLE, EXAMPLE, "--alpha", alpha, command=sdk)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--alpha" in done.stderr


# --- the same extreme inputs through both SDKs' statistics ------------------------------------------------------
# JSON has no infinities: a non-finite number crosses as one of these strings, both ways, so that a NaN or an
# infinity on one side is seen (JSON.stringify would write it as null).
_NONFINITE = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}
_HUGE = 1.7e308
_ALPHAS = [0.05, 1e-10, 2.2e-16, 1.1e-16, 1e-17, 1e-300, 1e-323, 5e-324, 0.9999999999999999]
_SUMS = [
    [_HUGE, _HUGE, -_HUGE],  # the running sum overflows where the exact one does not
    [_HUGE, _HUGE, _HUGE],  # the exact sum overflows (Python: OverflowError in fsum)
    [math.inf, -math.inf, 0.5],  # -inf + inf (Python: ValueError in fsum)
    [-math.inf, 1.0, 2.0],  # a difference that overflowed on its own
    [1e308, -1e308, 1e-300, 3.0],
    [0.1] * 10,
    [1e16, 1.0, -1e16, 1.0],
]

STATS_SCRIPT = """
import * as stats from %s;
import { readFileSync } from "node:fs";
const special = { Infinity: Infinity, "-Infinity": -Infinity, NaN: NaN };
const decode = (v) => (typeof v === "string" && v in special ? special[v] : Array.isArray(v) ? v.map(decode) : v);
const encode = (v) =>
  typeof v === "number" && !Number.isFinite(v) ? String(v) : Array.isArray(v) ? v.map(encode)
  : v !== null && typeof v === "object" ? [v.p, v.method, v.statistic].map(encode) : v;
const out = JSON.parse(readFileSync(0, "utf8")).map(([name, args]) => encode(stats[name](...decode(args))));
process.stdout.write(JSON.stringify(out));
"""

# Python's statistics by the TypeScript name of their mirror
_PYTHON_NAMES: dict[str, Callable[..., Any]] = {
    "zValue": stats.z_value,
    "mean": stats.mean,
    "fsum": math.fsum,
    "finite": stats.finite,
    "wilson": stats.wilson,
    "newcombePaired": stats.newcombe_paired,
    "mcnemar": stats.mcnemar,
    "clusterNormal": stats.cluster_normal,
    "clusterBootstrap": stats.cluster_bootstrap,
}


def _decode(value: Any) -> Any:
    if isinstance(value, str) and value in _NONFINITE:
        return _NONFINITE[value]
    return [_decode(v) for v in value] if isinstance(value, list) else value


def _encode(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return [_encode(v) for v in value] if isinstance(value, (list, tuple)) else value


def _python_call(name: str, args: list[Any]) -> Any:
    try:
        return _encode(_PYTHON_NAMES[name](*_decode(args)))
    except (OverflowError, ValueError):  # only fsum itself raises (the statistics catch it): TypeScript gives NaN
        assert name == "fsum", (name, args)
        return "NaN"


def _calls() -> list[tuple[str, list[Any]]]:
    calls: list[tuple[str, list[Any]]] = [("zValue", [alpha]) for alpha in _ALPHAS]
    for values in _SUMS:
        encoded = _encode(values)
        calls += [("fsum", [encoded]), ("mean", [encoded, len(values)]), ("mean", [encoded, 0]), ("finite", [_encode(sum(values))])]
        calls.append(("clusterNormal", [encoded, [1] * len(values), stats.z_value(1e-300)]))
        calls.append(("clusterNormal", [encoded, [2, 0] + [1] * (len(values) - 2), 1.959963984540054]))
        for alpha in (0.05, 1e-300, 5e-324):
            calls.append(
                ("clusterBootstrap", [[[encoded, [1] * len(values)], [[1.0] * len(values), [1] * len(values)]], len(values), 40, 7, alpha])
            )
    for alpha in _ALPHAS:
        z = stats.z_value(alpha)
        calls += [("wilson", [x, 9, z]) for x in (0, 4, 9)]
        calls += [("newcombePaired", [a, b, c, d, z]) for a, b, c, d in ((3, 2, 1, 4), (0, 5, 0, 0), (10**6, 0, 10**6, 1))]
    calls += [("mcnemar", [b, c]) for b, c in ((0, 24), (12, 12), (10**15, 0), (2**52, 2**52 + 1), (3000, 0))]
    return calls


def _same(python: Any, typescript: Any) -> bool:
    """Equal, numbers within 1e-12 (relative; the closed forms), non-finite values spelled the same."""
    if isinstance(python, list):
        return isinstance(typescript, list) and len(python) == len(typescript) and all(map(_same, python, typescript))
    if isinstance(python, float) and isinstance(typescript, (int, float)) and not isinstance(typescript, bool):
        return math.isclose(python, typescript, rel_tol=1e-12, abs_tol=1e-300)
    return bool(python == typescript) and type(python) is type(typescript)


def test_both_sdks_statistics_agree_on_the_extreme_inputs(built_js: Path) -> None:
    """The statistics ``compare`` computes, called with the extreme inputs above in each SDK: the same numbers,
    the same nulls (an overflow is null in both), no NaN or infinity on either side."""
    calls = _calls()
    module = built_js.parent / "compare" / "compareStats.js"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", STATS_SCRIPT % json.dumps(module.as_uri())],
        input=json.dumps([[name, args] for name, args in calls]),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    typescript = json.loads(done.stdout)
    python = [_python_call(name, args) for name, args in calls]
    different = [(name, args, p, t) for (name, args), p, t in zip(calls, python, typescript) if not _same(p, t)]
    assert different == [], different[:10]
    statistics = [p for (name, _), p in zip(calls, python) if name != "fsum"]
    assert "NaN" not in json.dumps(statistics) and "Infinity" not in json.dumps(statistics)  # null, never a non-number


def test_an_alpha_of_the_smallest_double_gives_a_comparison(tmp_path: Path, sdk: list[str]) -> None:
    """alpha 5e-324 lies in (0, 1), but half of it rounds to 0, whose normal quantile is not defined."""
    report = _ok(_compare(tmp_path, EXAMPLE, EXAMPLE, "--alpha", "5e-324", "--resamples", "0", command=sdk))
    assert report["options"]["alpha"] == 5e-324
    assert report["pass_rate"]["interval"] is not None
