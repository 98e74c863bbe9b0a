"""The README's ``./noxw -s bench_limit`` runs: ``benchmarks/limit_bench.py`` on the smallest case (one small
document, both SDKs against their limit processes) exits 0 and prints its table with a ratio in every row.
Speed itself is never asserted here: benchmarks print ratios, tests do not time anything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_limit_benchmark_runs_on_the_small_document(built_js: Path) -> None:
    run = subprocess.run(
        # no sizes and no row shapes: the small document only (the shapes are 100k rows each by default)
        [sys.executable, str(ROOT / "benchmarks" / "limit_bench.py"), "--sizes", "--shape-rows", "0"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    header, _rule, *rows = [line for line in run.stdout.splitlines() if line.startswith("|")]
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    assert columns[:2] == ["work", "s"] and "x limit" in columns
    assert rows and all(row.split("|")[1].strip().startswith("small") for row in rows)
    for row in rows:
        cells = dict(zip(columns, (cell.strip() for cell in row.strip("|").split("|")), strict=True))
        assert float(cells["x limit"]) > 0 and float(cells["x limit, paired"]) > 0, row
    works = [row.split("|")[1].strip() for row in rows]
    assert "small: ts validate(JSON.parse) in process" in works and "small: ts validateFile streamed (process)" in works, works


def test_every_median_is_of_the_measured_runs_only() -> None:
    """Each side's first run is unmeasured (it warms the page cache): its wall time, CPU time and peak are all
    left out, so every median is of exactly ``repeats`` runs."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import limit_bench

    side = limit_bench.Side("pass", [sys.executable, "-c", "pass"])
    limit_bench.measure([side], 3)
    assert (len(side.seconds), len(side.cpu), len(side.peaks), len(side.held)) == (3, 3, 3, 3)


def test_the_paired_ratio_is_the_median_of_each_rounds_ratio() -> None:
    """Each run over the limit's run of the same round (2, 1 and 5 here): 2, where the ratio of the medians is 1.5."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import limit_bench

    side, limit = limit_bench.Side("side", []), limit_bench.Side("limit", [])
    side.seconds, limit.seconds = [2.0, 3.0, 10.0], [1.0, 3.0, 2.0]
    assert side.paired(limit) == 2.0
    assert side.median / limit.median == 1.5


def test_a_side_with_a_child_process_reports_what_both_held_at_once() -> None:
    """Their proportional set sizes summed: something, and less than the sum of their peaks, which counts the pages
    a forked child shares with its parent twice. One process alone reports none (its peak says it)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import limit_bench

    forks = "import os, time\npid = os.fork()\ntime.sleep(0.3)\nos._exit(0) if pid == 0 else os.waitpid(pid, 0)"
    both, alone = limit_bench.Side("fork", [sys.executable, "-c", forks]), limit_bench.Side("alone", [sys.executable, "-c", "pass"])
    limit_bench.measure([both, alone], 1)
    assert 0 < both.held[0] < both.peaks[0]
    assert alone.held == [0]


def test_interop_benchmark_runs_on_small_inputs() -> None:
    """``./noxw -s bench_interop`` on small inputs: both imports and both tool readers run, each row has its ratio."""
    run = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "interop_bench.py"),
            "--lm-eval-mb",
            "1",
            "--inspect-samples",
            "8",
            "--inspect-pad-kb",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    header, _rule, *rows = [line for line in run.stdout.splitlines() if line.startswith("|")]
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    cells = [dict(zip(columns, (cell.strip() for cell in row.strip("|").split("|")), strict=True)) for row in rows]
    assert [c["input"] for c in cells] == ["lm_eval samples", "inspect_ai .eval"]
    for row in cells:
        assert float(row["x tool reader"]) > 0 and row["memory"] == "ok", row


def test_the_typed_floor_finds_what_json_loads_finds(tmp_path: Path) -> None:
    """``typed_floor.py`` times real work: its three row rules and its summary's sums, on the typed objects, give
    the figures computed here from ``json.loads`` -- on a valid shape (no rule broken) and on one with each of the
    three rules broken once."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import json

    import limit_bench

    path = limit_bench.write_shape(tmp_path / "shape.json", "many attempts", 60)
    document = json.loads(path.read_bytes())
    rows = document["results"]
    unscored = next(row for row in rows if row.get("error") is None)
    unscored["grader_results"], unscored["passed"] = [], True  # UNSCORED_RESULT_PASSED
    scored = next(row for row in rows if row is not unscored and row["grader_results"])
    scored["grader_results"][0].update(score=None, passed=True)  # NULL_SCORE_PASSED
    scored["passed"] = False  # and only that, should it have been the row's one score
    rows.append(next(dict(row) for row in rows if row is not unscored and row is not scored))  # DUPLICATE_ATTEMPT
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))

    def run(file: Path, mode: str) -> object:
        done = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "typed_floor.py"), str(file), mode, "--print"],
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    assert run(path, "rules") == 0
    assert run(broken, "rules") == 3
    expected: dict[str, list[float]] = {"": [sum(1 for row in rows if row["passed"])]}
    for row in rows:
        for result in row["grader_results"]:
            figures = expected.setdefault(result["grader_id"], [0, 0, 0.0, 0.0])
            figures[0] += 1
            figures[1] += 1 if result["passed"] else 0
            if result["score"] is not None:
                figures[2] += result["score"]
                figures[3] += result["score"] ** 2
    assert run(broken, "sums") == expected
