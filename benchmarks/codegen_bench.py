"""Time and peak memory of a full ``codegen generate`` against datamodel-code-generator alone, on the same schemas.

Usage: python benchmarks/codegen_bench.py [--schemas DIR ...] [--corpus] [--runs N]

Each measurement is a fresh child process (so that its peak resident memory is its own), the two sides
alternating. "Full generate" is ``load`` + IR + every target + writing the tree; "DCG alone" is the
``datamodel_code_generator.generate`` call the Python target makes (same options) on the prepared copy of the
folder that codegen gives it, written to disk by the parent beforehand — without codegen's loading, dialect upgrade,
IR, copy preparation, post-processing, TypeScript, Go, docs or writing. Times are the child's CPU seconds of that
work (interpreter start-up and the same imports on both sides excluded; CPU rather than wall time, so a shared machine's load counts less),
memory the child's peak resident set (the same imports on both sides: codegen's modules and DCG). Medians of N runs. The issue's target: full
generation within 1.5x DCG alone in time and memory on every corpus set (``--corpus``: every
``tests/codegen/corpus/<set>/schemas``).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _imports() -> None:
    """What either side imports, imported before either is timed (DCG's own import is ~0.4 s)."""
    import datamodel_code_generator  # noqa: F401

    from codegen.targets import targets

    targets()  # imports every target module (and Jinja2)


def child_full(schemas_dir: Path) -> dict[str, float]:
    from codegen.ir import build
    from codegen.load import load
    from codegen.write import render_all, write_tree

    _imports()

    with tempfile.TemporaryDirectory() as tmp:
        start, cpu = time.perf_counter(), time.process_time()
        schemas = load(schemas_dir)
        write_tree(render_all(build(schemas), schemas), Path(tmp) / "out")
        return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - start, "peak_mb": _peak_mb()}


def child_dcg(prepared: Path) -> dict[str, float]:
    from datamodel_code_generator import generate

    from codegen.targets.python import dcg_options

    _imports()
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start, cpu = time.perf_counter(), time.process_time()
        generate(prepared, output=Path(tmp) / "out", **dcg_options())
        return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - start, "peak_mb": _peak_mb()}


def prepare(schemas_dir: Path, folder: Path) -> None:
    from codegen.ir import build
    from codegen.load import load
    from codegen.targets.python import dcg_input

    schemas = load(schemas_dir)
    folder.mkdir()
    for name, document in dcg_input(schemas, build(schemas)).items():
        (folder / name).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _run(args: list[str]) -> dict[str, float]:
    proc = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemas", type=Path, nargs="+", default=[ROOT / "schemas"])
    parser.add_argument("--corpus", action="store_true", help="every tests/codegen/corpus/<set>/schemas")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--child", choices=("full", "dcg"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "full":
        print(json.dumps(child_full(args.schemas[0])))
        return 0
    if args.child == "dcg":
        print(json.dumps(child_dcg(args.schemas[0])))
        return 0
    sets = sorted((ROOT / "tests" / "codegen" / "corpus").glob("*/schemas")) if args.corpus else args.schemas
    print(f"codegen generate (all targets) vs datamodel-code-generator alone; CPU s and peak MB, medians of {args.runs} child processes")
    print(f"{'set':<28} {'generate s':>10} {'DCG s':>8} {'time x':>7} {'generate MB':>11} {'DCG MB':>8} {'memory x':>8}")
    for schemas_dir in sets:
        with tempfile.TemporaryDirectory() as tmp:
            prepared = Path(tmp) / "prepared"
            prepare(schemas_dir, prepared)
            full, dcg = [], []
            for _ in range(args.runs):
                full.append(_run(["--child", "full", "--schemas", str(schemas_dir)]))
                dcg.append(_run(["--child", "dcg", "--schemas", str(prepared)]))
        fc, dc = statistics.median(r["cpu"] for r in full), statistics.median(r["cpu"] for r in dcg)
        fm, dm = statistics.median(r["peak_mb"] for r in full), statistics.median(r["peak_mb"] for r in dcg)
        name = schemas_dir.parent.name if schemas_dir.name == "schemas" and schemas_dir.parent.parent.name == "corpus" else str(schemas_dir)
        print(f"{name:<28} {fc:>10.2f} {dc:>8.2f} {fc / dc:>6.2f}x {fm:>11.0f} {dm:>8.0f} {fm / dm:>7.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
