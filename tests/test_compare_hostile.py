"""compare's statistics are defined for every valid input (issue 39): attempts beyond 64 bits, scores whose
differences and sums leave the double range, and an ``--alpha`` so small that ``1 - alpha / 2`` rounds to 1 give
a comparison (strict JSON; a number that would overflow is null) — never a traceback; ``--alpha`` outside (0, 1)
is a usage error."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8"))


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _compare(tmp_path: Path, base: dict[str, Any], new: dict[str, Any], *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "base.json").write_text(json.dumps(base), "utf-8")
    (tmp_path / "new.json").write_text(json.dumps(new), "utf-8")
    argv = [
        sys.executable,
        "-m",
        "evalschema",
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
def test_attempts_beyond_64_bits_pair_and_stay_distinct(tmp_path: Path, attempt: str) -> None:
    def huge(row: dict[str, Any]) -> None:
        if row["attempt"] == 2:
            row["attempt"] = "HUGE"

    text = json.dumps(_with(huge)).replace('"HUGE"', attempt)
    (tmp_path / "base.json").write_text(text, "utf-8")
    (tmp_path / "new.json").write_text(text, "utf-8")
    argv = [sys.executable, "-m", "evalschema", "compare", "--format", "json", str(tmp_path / "base.json"), str(tmp_path / "new.json")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    report = _ok(done)
    assert report["pairs"]["paired"] == len(EXAMPLE["results"])  # attempt 2 and the huge one stay distinct
    assert report["pairs"]["duplicates"] == 0
    assert done.returncode == 0


def test_scores_at_the_edge_of_the_double_range_give_null_not_a_traceback(tmp_path: Path) -> None:
    def high(row: dict[str, Any]) -> None:
        for g in row["grader_results"]:
            g["score"] = 1.7e308

    def low(row: dict[str, Any]) -> None:
        for g in row["grader_results"]:
            g["score"] = -1.7e308

    base, new = _with(high), _with(low)
    new["results"][0]["grader_results"][0]["score"] = 1.7e308  # +inf and -inf differences both: fsum refuses
    for options in (("--force",), ("--force", "--resamples", "0")):  # scores past 1 are not valid: compared by force
        report = _ok(_compare(tmp_path, base, new, *options))
        graders = {g["grader_id"]: g for g in report["graders"]}
        assert graders["correctness-judge"]["difference"] is None
        assert graders["correctness-judge"]["interval"] is None
        assert graders["correctness-judge"]["pairs"] > 0


def test_a_tiny_alpha_gives_a_finite_wide_interval(tmp_path: Path) -> None:
    def flip(row: dict[str, Any]) -> None:
        row["passed"] = not row["passed"]

    report = _ok(_compare(tmp_path, EXAMPLE, _with(flip), "--alpha", "1e-300"))
    low, high = report["pass_rate"]["interval"]
    assert -1.0 <= low <= high <= 1.0


@pytest.mark.parametrize("alpha", ["0", "1", "-0.5", "1.5", "nan", "inf", "1e-400"])
def test_alpha_outside_0_1_is_a_usage_error(tmp_path: Path, alpha: str) -> None:
    done = _compare(tmp_path, EXAMPLE, EXAMPLE, "--alpha", alpha)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--alpha" in done.stderr
