"""promptfoo import keeps promptfoo's numbers: its verdicts (weights, test threshold, defaultTest, named metrics,
tests without assertions, provider errors), repeats as attempts, one grader per assertion type or named metric, the
.json and .jsonl outputs, suites that pass `validate --strict`, and a streamed read in bounded memory.

Every expected number is read from promptfoo's own output (its `stats` and per-prompt `metrics`), never typed here.
`test_real_promptfoo_shapes` runs promptfoo 0.123.1 itself (offline: a local provider); the other tests read the
output of that same run, committed in tests/interop/data/promptfoo/ (provenance: tests/interop/README.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from evalschema.cli import main
from evalschema.interop import import_results
from evalschema.interop.promptfoo import METRIC_PREFIX, VERDICT

HERE = Path(__file__).parent / "interop"
DATA = HERE / "data" / "promptfoo"
SHAPES = HERE / "promptfoo_shapes"
REPEAT = 2  # the run's --repeat (also in the tool's own runtimeOptions, which the test reads)


def _summarize(resultset: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["summarize", "--format", "json", str(resultset)]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["valid"] is True
    summary: dict[str, Any] = entry["summary"]
    return summary


def _strict(resultset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = resultset.with_name(resultset.name.replace(".resultset.json", ".suite.json"))
    capsys.readouterr()
    status = main(["validate", "--strict", "--suite", str(suite), str(resultset)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert main(["validate", "--strict", str(suite)]) == 0, capsys.readouterr().out


def check_against_promptfoo(tool: dict[str, Any], resultset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`summarize` of the import reproduces every headline number promptfoo reports for the run (one prompt and
    one provider): its test counts, assertion counts, summed score and named-metric averages."""
    body = tool["results"]
    stats = body["stats"]
    (prompt,) = body["prompts"]
    metrics = prompt["metrics"]
    summary = _summarize(resultset, capsys)
    graders = summary["by_grader"]
    assert (summary["passed"], summary["failed"], summary["errored"]) == (stats["successes"], stats["failures"], stats["errors"])
    assert (summary["passed"], summary["failed"], summary["errored"]) == (
        metrics["testPassCount"],
        metrics["testFailCount"],
        metrics["testErrorCount"],
    )
    assertions = [g for name, g in graders.items() if name != VERDICT]
    assert sum(g["passed"] for g in assertions) == metrics["assertPassCount"]
    assert sum(g["failed"] for g in assertions) == metrics["assertFailCount"]
    verdict = graders[VERDICT]
    # promptfoo's `score` sums the rows' scores (an errored row scores 0); the verdict grader's mean is per scored row
    assert verdict["avg_score"] * (verdict["passed"] + verdict["failed"]) == pytest.approx(metrics["score"], abs=1e-9)
    for name, total in metrics["namedScores"].items():
        # promptfoo's named metric: the weighted sum over its assertions by their summed weights (weights are 1 here)
        expected = total / metrics["namedScoreWeights"][name]
        assert graders[METRIC_PREFIX + name]["avg_score"] == pytest.approx(expected, abs=1e-9)
    tests = len(tool["config"]["tests"])
    repeat = tool.get("runtimeOptions", {}).get("repeat", 1)
    assert summary["total"] == tests * repeat
    rows = orjson.loads(resultset.read_bytes())["results"]
    assert len({r["test_case_id"] for r in rows}) == tests  # repeats are attempts of one test case
    assert sorted({r["attempt"] for r in rows}) == list(range(1, repeat + 1))


@pytest.mark.parametrize("name", ["shapes-results.json", "shapes-results.jsonl"])
def test_shapes_reproduce_promptfoo(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = orjson.loads((DATA / "shapes-results.json").read_bytes())  # the .jsonl of the same run has no header
    out = tmp_path / "pf.resultset.json"
    import_results("promptfoo", [DATA / name], out)
    check_against_promptfoo(tool, out, capsys)
    _strict(out, capsys)


def test_one_grader_per_assertion_type_or_metric(tmp_path: Path) -> None:
    out = tmp_path / "pf.resultset.json"
    import_results("promptfoo", [DATA / "shapes-results.json"], out)
    tool = orjson.loads((DATA / "shapes-results.json").read_bytes())
    kinds = {VERDICT}
    for test in tool["config"]["tests"] + [tool["config"]["defaultTest"]]:
        for assertion in test.get("assert", []):
            kinds.add(METRIC_PREFIX + assertion["metric"] if "metric" in assertion else assertion["type"])
    suite = orjson.loads(out.with_name("pf.suite.json").read_bytes())
    assert sorted(g["id"] for g in suite["graders"]) == sorted(kinds)


def test_verdict_is_promptfoos_own(tmp_path: Path) -> None:
    """Row by row, `passed` is promptfoo's `success` — a threshold test passes with a failed assertion, and fails
    with most passing — and an errored row (failureReason 2) is errored."""
    out = tmp_path / "pf.resultset.json"
    import_results("promptfoo", [DATA / "shapes-results.json"], out)
    tool = orjson.loads((DATA / "shapes-results.json").read_bytes())["results"]["results"]
    rows = orjson.loads(out.read_bytes())["results"]
    assert [r["passed"] for r in rows] == [t["success"] for t in tool]
    assert ["error" in r for r in rows] == [t["failureReason"] == 2 for t in tool]
    mixed = [r for r in rows if r["passed"] and not all(g["passed"] for g in r["grader_results"])]
    assert mixed, "the run must hold a threshold test that passes with a failed assertion"


def test_loss_report_is_aggregated(tmp_path: Path) -> None:
    """One loss entry per kind of loss, however many rows share it."""
    tool = orjson.loads((DATA / "shapes-results.json").read_bytes())
    tool["results"]["results"] = tool["results"]["results"] * 50
    big = tmp_path / "big.json"
    big.write_bytes(orjson.dumps(tool))
    small = import_results("promptfoo", [DATA / "shapes-results.json"], tmp_path / "a.resultset.json").loss
    many = import_results("promptfoo", [big], tmp_path / "b.resultset.json").loss
    assert len(many.entries) == len(small.entries)
    assert len(many.text().splitlines()) == len(small.text().splitlines())


@pytest.mark.slow
def test_streamed_in_bounded_memory(tmp_path: Path) -> None:
    """A results file of ~60 MB imports in a child process whose peak memory stays far below the file's size
    (it was read whole before: 1.06 GB for 96 MB)."""
    tool = orjson.loads((DATA / "shapes-results.json").read_bytes())
    rows = tool["results"]["results"]
    copies = []
    for i in range(60_000 // len(rows) + 1):
        for row in rows:
            # distinct tests (as a large eval has): each copy its own test case
            copies.append(
                {**row, "testIdx": row["testIdx"] + i * len(rows), "vars": {"n": i}, "testCase": {**row["testCase"], "vars": {"n": i}}}
            )
    tool["results"]["results"] = copies
    big = tmp_path / "big.json"
    big.write_bytes(orjson.dumps(tool))
    size = big.stat().st_size
    assert size > 50 * 2**20
    # the peak of the child's own memory (VmHWM): ru_maxrss would count the parent's, which the child starts with on
    # Linux (the high-water mark before exec is kept)
    code = (
        "import re, sys; from pathlib import Path; from evalschema.interop import import_results; "
        "import_results('promptfoo', [Path(sys.argv[1])], Path(sys.argv[2])); "
        "print(re.search(r'VmHWM:\\s*(\\d+)', Path('/proc/self/status').read_text())[1])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(big), str(tmp_path / "big.resultset.json")], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    peak = int(done.stdout.split()[-1]) * 1024  # kB
    assert peak < 128 * 2**20, f"peak {peak / 2**20:.0f} MiB for a {size / 2**20:.0f} MiB input"


def _promptfoo_bin() -> Path:
    from test_interop import _promptfoo

    return _promptfoo()


@pytest.mark.slow
def test_real_promptfoo_shapes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """promptfoo 0.123.1 itself, offline (a local provider), --repeat 2, writing .json and .jsonl: the import of
    each reproduces the tool's own numbers, read from the tool's own output."""
    bin_dir = _promptfoo_bin()
    for name in ("promptfooconfig.yaml", "provider.js"):
        shutil.copy(SHAPES / name, tmp_path / name)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / ".promptfoo"),
        "HOME": str(tmp_path),
    }
    command = [str(bin_dir / "promptfoo"), "eval", "-c", "promptfooconfig.yaml", "--no-cache", "--no-progress-bar"]
    command += ["--repeat", str(REPEAT), "-o", "results.json", "-o", "results.jsonl"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 100), done.stderr[-2000:]  # 100: some test failed, as designed
    tool = orjson.loads((tmp_path / "results.json").read_bytes())
    assert tool["runtimeOptions"]["repeat"] == REPEAT
    for name in ("results.json", "results.jsonl"):
        out = tmp_path / f"{name}.resultset.json"
        import_results("promptfoo", [tmp_path / name], out)
        check_against_promptfoo(tool, out, capsys)
        _strict(out, capsys)
