"""Validation speed and memory, as ratios to parsing the same bytes, measured in the same run.

Not a test: run ``./noxw -s bench`` (or this script with ``--sizes``/``--jsonl-mb``/``--large-mb`` to scale it
down). It generates seeded synthetic result sets of 1k, 10k and 100k results, a JSON Lines file of at least
1 GB and one result set document of at least 1 GB in a temporary folder, then prints, per size:

- full validation through the API (parse + schema + every hand-rolled rule, all findings collected), whole
  (``validate_json``) and read in pieces (``validate_file(..., stream_rows=True)``), as ratios to the parse the
  API itself does — orjson with the garbage collector paused, the practical limit — and, for reference, to
  ``json.loads`` as it runs by default and with the collector paused;
- the reference engine through the same API (``validate_json(..., engine="reference")``: the same parser, the same
  paused collector), so "x faster than reference" compares the engines alone;
- the whole ``evalschema validate`` process, reading whole and in pieces, against a process that only reads and
  ``json.loads`` the file, with the peak resident memory of each; ``check-jsonschema`` as a process against the
  same; every exit status is asserted (each generated document is valid: 0);
- the TypeScript SDK against ``JSON.parse``.

Every comparison takes the same number of samples on both sides (``--repeats``) and compares medians.

and the peak resident memory of ``evalschema validate`` on the JSON Lines stream and on the 1 GB document (and of
the TypeScript SDK's ``validateFile`` on that document).
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).parent))
import synthetic

from evalschema import validate_file, validate_json

ROOT = Path(__file__).resolve().parents[1]
CLI = Path(sys.executable).with_name("evalschema")


def median_seconds(action: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def process_seconds(command: list[str], repeats: int) -> tuple[float, int]:
    """Median wall time of a whole process, and its exit status (the same on every run, or this fails)."""
    times, statuses = [], set()
    for _ in range(repeats):
        start = time.perf_counter()
        statuses.add(subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode)
        times.append(time.perf_counter() - start)
    assert len(statuses) == 1, f"{command[:3]}: exit statuses {statuses} across runs"
    return statistics.median(times), statuses.pop()


def peak_rss_mib(command: list[str]) -> tuple[float, int]:
    """Peak resident memory of one child process, from its own high-water mark (VmHWM) sampled until it exits.

    Not ``ru_maxrss``: on Linux a child inherits the parent's resident size at fork in that figure, and this
    benchmark process holds large documents.
    """
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    status_file, peak_kib = Path(f"/proc/{proc.pid}/status"), 0
    while proc.poll() is None:
        try:
            for line in status_file.read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peak_kib = max(peak_kib, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    return peak_kib / 1024, proc.returncode


def paused(action: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        gc.disable()
        try:
            return action()
        finally:
            gc.enable()

    return run


def bench_document(path: Path, repeats: int, slow: bool) -> dict[str, object]:
    data = path.read_bytes()
    base = median_seconds(lambda: json.loads(data), repeats)
    base_paused = median_seconds(paused(lambda: json.loads(data)), repeats)
    base_orjson = median_seconds(paused(lambda: orjson.loads(data)), repeats)  # what validate_json parses with
    report = validate_json(data)
    assert report.valid, "the generated document must be valid"
    streamed_report, whole_report = validate_file(path, stream_rows=True), validate_file(path, stream_rows=False)
    assert streamed_report.to_dict() == whole_report.to_dict(), "streamed and whole reports differ"
    api = median_seconds(lambda: validate_json(data), repeats)
    streamed = median_seconds(lambda: validate_file(path, stream_rows=True), repeats)
    row: dict[str, object] = {
        "results": len(json.loads(data)["results"]),
        "MB": round(len(data) / 1e6, 1),
        "json.loads s": round(base, 3),
        "json.loads gc-paused s": round(base_paused, 3),
        "orjson gc-paused s": round(base_orjson, 3),
        "api vs orjson gc-paused": round(api / base_orjson, 2),
        "api vs json.loads": round(api / base, 2),
        "api vs json.loads gc-paused": round(api / base_paused, 2),
        "api streamed vs orjson gc-paused": round(streamed / base_orjson, 2),
        "api streamed vs json.loads": round(streamed / base, 2),
        "valid": report.valid,
    }
    reference = None
    if slow:
        assert validate_json(data, engine="reference").to_dict() == report.to_dict(), "the engines disagree"
        reference = median_seconds(lambda: validate_json(data, engine="reference"), repeats)
        row["reference vs orjson gc-paused"] = round(reference / base_orjson, 2)
    loads_only = [sys.executable, "-c", "import json,sys; json.loads(open(sys.argv[1],'rb').read())", str(path)]
    base_process, loads_status = process_seconds(loads_only, repeats)
    assert loads_status == 0, loads_status
    whole_command = [str(CLI), "validate", "--format", "json", "--stream", "never", str(path)]
    streamed_command = [str(CLI), "validate", "--format", "json", "--stream", "always", str(path)]
    cli, status = process_seconds(whole_command, repeats)
    cli_streamed, streamed_status = process_seconds(streamed_command, repeats)
    assert status == streamed_status == 0, (status, streamed_status)
    row["cli process"] = round(cli / base_process, 2)
    row["cli process streamed"] = round(cli_streamed / base_process, 2)
    row["cli exit"] = status
    row["cli peak RSS MiB"] = round(peak_rss_mib(whole_command)[0])
    row["cli streamed peak RSS MiB"] = round(peak_rss_mib(streamed_command)[0])
    checker = shutil.which("check-jsonschema") or str(Path(sys.executable).with_name("check-jsonschema"))
    if slow:
        schema = ROOT / "schemas" / "resultset.json"
        seconds, checker_status = process_seconds([checker, "--schemafile", str(schema), "--base-uri", schema.as_uri(), str(path)], repeats)
        assert checker_status == 0, f"check-jsonschema exited {checker_status} on a valid document"
        row["check-jsonschema process"] = round(seconds / base_process, 2)
        row["x faster than check-jsonschema"] = round(seconds / cli, 1)
    if reference is not None:
        row["x faster than reference"] = round(reference / api, 1)
    node, ts = shutil.which("node"), ROOT / "js" / "dist" / "index.js"
    if node and ts.exists():
        out = subprocess.run([node, str(ROOT / "benchmarks" / "ts_bench.mjs"), str(path), str(repeats)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        row["typescript vs JSON.parse"] = round(json.loads(out.stdout)["ratio"], 2)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--jsonl-mb", type=int, default=1024, help="size of the JSON Lines stream (0 to skip)")
    parser.add_argument("--large-mb", type=int, default=1024, help="size of the single large result set (0 to skip)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-slow", action="store_true", help="leave out the reference engine and check-jsonschema")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="evalschema-bench-") as tmp:
        folder = Path(tmp)
        print(
            f"# ratios to parsing the same bytes, medians of {args.repeats} samples each, measured in this run ({time.strftime('%Y-%m-%d %H:%M')})"
        )
        for size in args.sizes:
            path = synthetic.write_resultset(folder / f"results-{size}.json", size)
            print(json.dumps(bench_document(path, args.repeats, not args.skip_slow)), flush=True)
            path.unlink()
        if args.jsonl_mb:
            stream = folder / "stream.jsonl"
            with stream.open("wb") as handle:
                for line in synthetic.jsonl_lines(args.jsonl_mb * 1024 * 1024):
                    handle.write(line)
            size_mb = stream.stat().st_size / 1e6
            start = time.perf_counter()
            peak, status = peak_rss_mib([str(CLI), "validate", "--format", "json", str(stream)])
            seconds = time.perf_counter() - start
            assert status == 0, f"evalschema validate exited {status} on the valid JSON Lines stream"
            print(json.dumps({"jsonl MB": round(size_mb), "peak RSS MiB": round(peak), "seconds": round(seconds, 1), "exit": status}))
            stream.unlink()
        if args.large_mb:
            large = folder / "large.json"
            rows = synthetic.write_large_resultset(large, args.large_mb * 1024 * 1024)
            size_mb = large.stat().st_size / 1e6
            start = time.perf_counter()
            peak, status = peak_rss_mib([str(CLI), "validate", "--format", "json", str(large)])
            seconds = time.perf_counter() - start
            loads_only = [sys.executable, "-c", "import json,sys; json.loads(open(sys.argv[1],'rb').read())", str(large)]
            assert status == 0, f"evalschema validate exited {status} on the valid large result set"
            loads_peak, loads_status = peak_rss_mib(loads_only)
            assert loads_status == 0, loads_status
            row = {
                "one result set MB": round(size_mb),
                "rows": rows,
                "peak RSS MiB": round(peak),
                "seconds": round(seconds, 1),
                "exit": status,
                "json.loads process peak RSS MiB": round(loads_peak),
            }
            node, ts = shutil.which("node"), ROOT / "js" / "dist" / "index.js"
            if node and ts.exists():
                out = subprocess.run([node, str(ROOT / "benchmarks" / "ts_stream_bench.mjs"), str(large)], capture_output=True, text=True)
                assert out.returncode == 0, out.stderr[-2000:]
                measured = json.loads(out.stdout)
                row.update({"typescript peak RSS MiB": round(measured["max_rss_mib"]), "typescript seconds": round(measured["seconds"], 1)})
            print(json.dumps(row))


if __name__ == "__main__":
    main()
