"""``evalschema-js compare`` writes what ``evalschema compare`` writes, byte for byte (issue 43, TypeScript CLI):
the same text, JSON and Markdown on standard output and the same exit status, over the same inputs — a
regression the gate catches, three pairs that cannot show one (the power line), no pairs at all, result sets
that are not valid (refused, or compared under ``--force``), runs that are not comparable (``--strict``), a
suite digest, each run's per-test-case view with its own reducers, a newer major version (refused even under ``--force``), flips of every kind, attempts, a hostile
test case id, YAML, and a file that cannot be read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENVELOPE = {"version": "1.2.0", "suite_id": "qa", "started_at": "2026-11-30T00:00:00Z"}
HOSTILE = "a|b `code` <script>x</script> **x** [l](http://e) @team\x1b[31m\u202e::error::"


def _row(case: str, outcome: str, attempt: int | None = None, score: float | None = None) -> dict[str, Any]:
    passed = outcome == "passed"
    value = (1.0 if passed else 0.0) if score is None else score
    row: dict[str, Any] = {
        "test_case_id": case,
        "passed": passed,
        "grader_results": [
            {"grader_id": "exact", "type": "exact_match", "score": value, "passed": passed},
            {"grader_id": "judge", "type": "llm_judge", "score": 0.5 if passed else 0.25, "passed": passed},
        ],
    }
    if attempt is not None:
        row["attempt"] = attempt
    if outcome == "errored":
        row["error"] = {"type": "timeout", "message": "took too long"}
    if outcome == "invalidated":
        row["constraint_violations"] = [{"id": "pii_leak", "invalidates_result": True}]
    return row


def _run(run_id: str, rows: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {**ENVELOPE, "run_id": run_id, **extra, "results": rows}


def _inputs(folder: Path) -> None:
    def put(name: str, document: Any) -> None:
        (folder / name).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")

    # a significant regression: 10 pairs, 9 pass → 2 pass
    put("reg-base.json", _run("b", [_row(f"case-{i}", "passed" if i < 9 else "failed") for i in range(10)]))
    put("reg-new.json", _run("n", [_row(f"case-{i}", "passed" if i < 2 else "failed") for i in range(10)]))
    # three pairs, 100 % → 33 %: no change can be significant
    put("three-base.json", _run("b", [_row(f"t{i}", "passed") for i in range(3)]))
    put("three-new.json", _run("n", [_row("t0", "passed"), _row("t1", "failed"), _row("t2", "failed")]))
    # no pair at all
    put("none-new.json", _run("n", [_row("other", "passed")]))
    # every kind of flip, attempts, a hostile id, another suite and a changed grader
    mixed_base = [
        _row("flip-err", "passed", 1),
        _row("flip-inv", "passed", 1),
        _row("flip-up", "failed", 1),
        _row("flip-back", "errored", 1),
        _row(HOSTILE, "passed", 1),
        _row("steady", "passed", 1),
        _row("steady", "failed", 2),
        _row("only-base", "passed", 1),
    ]
    mixed_new = [
        _row("flip-err", "errored", 1),
        _row("flip-inv", "invalidated", 1),
        _row("flip-up", "passed", 1, score=0.75),
        _row("flip-back", "passed", 1),
        _row(HOSTILE, "failed", 1),
        _row("steady", "passed", 1),
        _row("steady", "passed", 2),
        _row("only-new", "failed", 1),
    ]
    put("mixed-base.json", _run("b", mixed_base, suite_digest="sha256:" + "a" * 64))
    put("mixed-new.json", _run("n", mixed_new, suite_id="qa-2", graders={"judge": {"type": "llm_judge", "judge_model": "m2"}}))

    # the per-test-case view (spec 1.4.0): uneven attempts, scores of no short binary form, raw values on a 1-10
    # scale, an errored attempt, and each run's own reducer for each grader
    def reduced(run_id: str, cases: dict[str, list[float | None]], reducers: dict[str, Any]) -> dict[str, Any]:
        rows = []
        for case, scores in cases.items():
            for attempt, value in enumerate(scores, 1):
                row = _row(case, "errored" if value is None else "passed" if value >= 0.5 else "failed", attempt, value)
                for result in row["grader_results"]:
                    result["raw_score"] = 1 + 9 * result["score"]
                rows.append(row)
        graders = {
            g: {"type": kind, "reducer": r} for (g, kind), r in zip((("exact", "exact_match"), ("judge", "llm_judge")), reducers.values())
        }
        return _run(run_id, rows, graders=graders)

    put(
        "reduce-base.json",
        reduced(
            "b",
            {"r1": [0.1, 0.7, None], "r2": [1 / 3, 0.2], "r3": [0.9], "r4": [0.3, 0.3, 0.6]},
            {"e": {"method": "median"}, "j": {"method": "mean"}},
        ),
    )
    put(
        "reduce-new.json",
        reduced(
            "n",
            {"r1": [0.7, 0.7], "r2": [2 / 3, None, 0.15], "r3": [0.05, 0.95], "r5": [0.4]},
            {"e": {"method": "pass_at", "k": 2, "threshold": 6.5}, "j": {"method": "mode"}},
        ),
    )
    # not valid: a row whose passed is not a boolean
    bad = _run("x", [_row("case-0", "passed"), _row("case-1", "failed")])
    bad["results"][0]["passed"] = "yes"
    put("bad.json", bad)
    put("future.json", {**_run("f", [_row("case-0", "passed")]), "version": "2.0.0"})  # decided before its rows
    (folder / "reg-new.yaml").write_text(json.dumps(json.loads((folder / "reg-new.json").read_text())), encoding="utf-8")
    put("suite.json", {"version": "1.2.0", "id": "qa", "graders": [], "test_cases": []})
    (folder / "broken.json").write_text('{"version": "1.2.0", "results": [', encoding="utf-8")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compare-agreement")
    _inputs(folder)
    return folder


CASES = [
    ["reg-base.json", "reg-new.json"],
    ["reg-base.json", "reg-new.json", "--fail-on-regression"],
    ["reg-base.json", "reg-new.json", "--fail-on-regression", "--alpha", "0.001"],
    ["reg-base.json", "reg-new.json", "--resamples", "0", "--alpha", "0.2"],
    ["three-base.json", "three-new.json", "--fail-on-regression"],
    ["three-base.json", "three-new.json", "--fail-on-regression", "--max-drop", "0.5"],
    ["three-base.json", "none-new.json"],
    ["mixed-base.json", "mixed-new.json"],
    ["mixed-base.json", "mixed-new.json", "--strict"],
    ["mixed-base.json", "mixed-new.json", "--grader", "judge", "--seed", "7", "--resamples", "500"],
    ["mixed-base.json", "mixed-new.json", "--suite", "suite.json"],
    ["reduce-base.json", "reduce-new.json"],
    ["reduce-base.json", "reduce-new.json", "--resamples", "0", "--alpha", "0.1"],
    ["bad.json", "reg-new.json"],
    ["bad.json", "reg-new.json", "--force"],
    ["reg-base.json", "bad.json", "--force", "--fail-on-regression"],
    ["future.json", "reg-new.json", "--force"],
    ["reg-base.json", "reg-new.yaml"],
    ["reg-base.json", "missing.json"],
    ["broken.json", "reg-new.json"],
    ["reg-base.json", "reg-new.json", "--alpha", "1.5"],
]


def _both(args: list[str], cwd: Path, built_js: Path) -> tuple[tuple[int, bytes, bytes], tuple[int, bytes, bytes]]:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}
    out = []
    for command in ([sys.executable, "-m", "evalschema", "compare", *args], ["node", str(built_js), "compare", *args]):
        done = subprocess.run(command, cwd=cwd, capture_output=True, check=False, env=env, timeout=120)
        out.append((done.returncode, done.stdout, done.stderr))
    return out[0], out[1]


def _after_name(stderr: bytes) -> list[bytes]:
    """Each line of standard error without the command's name (``evalschema:``, ``evalschema-js:``)."""
    return [line.split(b": ", 1)[-1] for line in stderr.splitlines() if not line.startswith((b"usage:", b" "))]


@pytest.mark.parametrize("form", ["text", "json", "markdown"])
@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_typescript_compare_writes_what_python_writes(args: list[str], form: str, inputs: Path, built_js: Path) -> None:
    python, typescript = _both([*args, "--format", form], inputs, built_js)
    assert python[1] or python[2], "the Python command printed nothing: this test would prove nothing"
    assert typescript[1] == python[1]
    assert typescript[0] == python[0]
    if python[0] != 2 or b"usage:" not in python[2]:  # argparse's usage text differs; the refusal does not
        assert _after_name(typescript[2]) == _after_name(python[2])


def test_the_cases_reach_every_outcome(inputs: Path) -> None:
    """The inputs above are what they claim: every exit status, the gate failing and passing, both power lines."""
    statuses, text = set(), b""
    for args in CASES:
        done = subprocess.run([sys.executable, "-m", "evalschema", "compare", *args], cwd=inputs, capture_output=True, check=False)
        statuses.add(done.returncode)
        text += done.stdout
    assert statuses == {0, 1, 2}
    for needle in (
        b"gate: fails",
        b"power: no change can be significant",
        b"power: with 10 pairs",
        b"nothing to compare",
        b"flipped (",
        b"attempts: flip rate",
        b"per test case (median \xe2\x86\x92 pass_at): mean",
        b"; paired over 3 test cases: ",
    ):
        assert needle in text, needle
