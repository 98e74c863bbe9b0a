"""Results at scale (issue 21), ratios from one run: a large result set to Parquet (time, peak memory of the
process, size against the JSON), and ``validate -j 2`` against ``-j 1`` on a large JSON Lines file and on a folder
of result sets. Each command runs as its own process (``python -m evalschema``), as a user would run it.

``python benchmarks/scale_bench.py`` runs the full sizes (1 GB JSON, 1 GB JSON Lines, 200 result sets);
``--json-mb 100 --jsonl-mb 100`` a smaller one. Last, the same folder on ``evalschema.cli.distributed`` with two local
Dask worker processes, against ``-j 2``.

On a shared machine the other work takes CPU time too: ``-j 1`` and ``-j 2`` run alternately ``--repeat`` times and
the medians are compared; each line also gives the CPU time (user + system, workers included) and the load average,
so a ratio the machine cannot show can be told from overhead of the pool (CPU time of ``-j 2`` against ``-j 1``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import jsonl_lines, write_large_resultset, write_resultset


def _run(*argv: str) -> tuple[float, int, float]:
    """Seconds, peak resident memory (bytes) and CPU seconds (user + system, its own processes included) of
    ``python -m evalschema ARGV`` in a fresh process."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "evalschema", *argv], stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode not in (0, 1):
            err.seek(0)
            raise SystemExit(f"evalschema {' '.join(argv)} failed ({child.returncode}): {err.read().decode()[-400:]}")
    return seconds, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def _load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def _jobs(label: str, target: Path, repeat: int) -> float:
    """``validate -j 1`` and ``-j 2`` on ``target``, alternately, ``repeat`` times; prints medians; the -j 2 time."""
    times: dict[str, list[float]] = {"1": [], "2": []}
    cpu: dict[str, list[float]] = {"1": [], "2": []}
    for _ in range(repeat):
        for jobs in ("1", "2"):
            seconds, _, used = _run("validate", "--format", "json", "-j", jobs, str(target))
            times[jobs].append(seconds)
            cpu[jobs].append(used)
    one, two = statistics.median(times["1"]), statistics.median(times["2"])
    print(
        f"validate {label}: -j 1 {one:.1f} s (CPU {statistics.median(cpu['1']):.1f} s), -j 2 {two:.1f} s "
        f"(CPU {statistics.median(cpu['2']):.1f} s): {one / two:.2f}x; medians of {repeat}; {_load()}"
    )
    return two


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json-mb", type=int, default=1024)
    parser.add_argument("--jsonl-mb", type=int, default=1024)
    parser.add_argument("--sets", type=int, default=200, help="result sets in the folder")
    parser.add_argument("--rows-per-set", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="runs of -j 1 and -j 2, alternately")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="evalschema-scale-"))
    print(f"{os.cpu_count()} CPU(s); data in {work}; {_load()}")

    big = work / "big.resultset.json"
    rows = write_large_resultset(big, args.json_mb << 20)
    seconds, peak, used = _run("export", "--to", "parquet", "-o", str(work / "big.parquet"), str(big))
    ratio = _size(work / "big.parquet") / big.stat().st_size
    per_gb = seconds / (big.stat().st_size / 2**30)
    print(
        f"export --to parquet: {big.stat().st_size / 2**20:.0f} MiB, {rows:,} rows: {seconds:.1f} s ({per_gb:.0f} s/GiB; "
        f"CPU {used:.1f} s), peak {peak / 2**20:.0f} MiB; Parquet = {ratio:.1%} of the JSON; {_load()}"
    )
    big.unlink()

    lines = work / "many.jsonl"
    with lines.open("wb") as handle:
        for line in jsonl_lines(args.jsonl_mb << 20):
            handle.write(line)
    _jobs(f"JSON Lines ({lines.stat().st_size / 2**20:.0f} MiB)", lines, args.repeat)
    lines.unlink()

    folder = work / "sets"
    folder.mkdir()
    for index in range(args.sets):
        write_resultset(folder / f"run{index:04}.resultset.json", args.rows_per_set)
    two = _jobs(f"a folder of {args.sets} result sets ({_size(folder) / 2**20:.0f} MiB)", folder, args.repeat)
    # the engine validates and summarizes: the same work as summarize -j 2 (which validates each result set too)
    engines, summaries = [], []
    for _ in range(args.repeat):
        engines.append(_distributed(folder))
        summaries.append(_run("summarize", "--format", "json", "-j", "2", str(folder))[0])
    engine, summarized = statistics.median(engines), statistics.median(summaries)
    print(
        f"evalschema.cli.distributed (validate and summarize), 2 local Dask workers, same folder: {engine:.1f} s: "
        f"{engine / summarized:.2f}x the time of summarize -j 2 ({summarized:.1f} s), {engine / two:.2f}x validate -j 2; {_load()}"
    )


def _distributed(folder: Path) -> float:
    """Seconds for evalschema.cli.distributed on a 2-process LocalCluster (starting the cluster not counted)."""
    from distributed import Client, LocalCluster

    from evalschema.cli import distributed

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)  # type: ignore[no-untyped-call]
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        client.run(lambda: __import__("evalschema.cli"))  # workers import the validator before the clock starts
        start = time.perf_counter()
        distributed.validate_and_summarize(client, [str(folder)])
        return time.perf_counter() - start


if __name__ == "__main__":
    main()
