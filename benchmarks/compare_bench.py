"""``evalschema compare`` on two large result sets: time as a ratio to validating the same two files, and peak
memory, measured in the same run.

Not a test: run ``./noxw -s bench_compare`` (``-- --rows 100000`` for a smaller one). It writes two seeded result
sets of ``--rows`` rows each (default 1,000,000; 3 attempts per test case, 3–7 graders per row): NEW is BASE with
about 10 % of its rows drawn again, so outcomes flip both ways as between two real runs. Then it times, as whole
processes, ``evalschema validate BASE NEW`` (both read in pieces) and ``evalschema compare BASE NEW --format json``
(default bootstrap settings), and samples each process's peak resident memory. The targets (issue 19): compare
within 2× the time of validating, under 400 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import synthetic
from validation_bench import CLI, peak_rss_mib


def write_pair(base: Path, new: Path, rows: int, attempts: int = 3) -> None:
    """Two result sets of ``rows`` rows, written row by row: NEW repeats BASE's row 90 % of the time."""
    rng, other, pick = random.Random(20261130), random.Random(19), random.Random(7)
    with base.open("w", encoding="utf-8") as b, new.open("w", encoding="utf-8") as n:
        for handle, run in ((b, "base"), (n, "new")):
            head = json.dumps(
                {**synthetic.header(f"bench-{run}"), "version": "1.2.0", "$schema": "https://evalschema.org/schema/1.2.0/resultset.json"},
                separators=(",", ":"),
            )
            handle.write(head[:-1] + ',"results":[')
        for index in range(rows):
            row = synthetic.result(rng, index, attempts)
            again = synthetic.result(other, index, attempts)  # drawn every time, so both generators stay in step
            sep = "," if index else ""
            b.write(sep + json.dumps(row, separators=(",", ":")))
            n.write(sep + json.dumps(row if pick.random() < 0.9 else again, separators=(",", ":")))
        b.write("]}")
        n.write("]}")


def timed(command: list[str]) -> tuple[float, float, int]:
    start = time.perf_counter()
    peak, status = peak_rss_mib(command)
    return time.perf_counter() - start, peak, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    parser.add_argument("--reuse", action="store_true", help="with --keep: use the files already there (same --rows)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        base, new = folder / "base.json", folder / "new.json"
        start = time.perf_counter()
        if not (args.reuse and base.exists() and new.exists()):
            write_pair(base, new, args.rows)
        size = (base.stat().st_size + new.stat().st_size) / 2**20
        print(f"2 x {args.rows:,} rows ({size:,.0f} MiB), written in {time.perf_counter() - start:.0f} s")
        validate_s, validate_mib, status = timed([str(CLI), "validate", "--stream", "always", "--format", "json", str(base), str(new)])
        print(f"validate BASE NEW   {validate_s:8.1f} s  peak {validate_mib:6.0f} MiB  (exit {status})")
        compare_s, compare_mib, status = timed([str(CLI), "compare", "--format", "json", str(base), str(new)])
        print(f"compare BASE NEW    {compare_s:8.1f} s  peak {compare_mib:6.0f} MiB  (exit {status})")
        ratio = compare_s / validate_s
        print(f"compare / validate  {ratio:8.2f}x  (target < 2x); peak {compare_mib:.0f} MiB (target < 400 MB = {400e6 / 2**20:.0f} MiB)")


if __name__ == "__main__":
    main()
