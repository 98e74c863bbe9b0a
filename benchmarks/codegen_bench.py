"""Time a full ``codegen generate`` against datamodel-code-generator alone, on the same schemas, same run.

Usage: python benchmarks/codegen_bench.py [--schemas DIR] [--runs N]

Both sides run in-process (no interpreter start-up counted); each is timed N times and the medians are
compared. "DCG alone" is the DCG call the Python target makes (same options, same copied input), without
codegen's loading, IR, post-processing, TypeScript, docs or writing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen.ir import build  # noqa: E402
from codegen.load import load  # noqa: E402
from codegen.targets.python import run_dcg  # noqa: E402
from codegen.write import render_all, write_tree  # noqa: E402


def full_generate(schemas_dir: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        schemas = load(schemas_dir)
        write_tree(render_all(build(schemas), schemas), Path(tmp) / "out")


def dcg_alone(schemas_dir: Path) -> None:
    schemas = load(schemas_dir)  # only to get the file list; excluded from the timing below
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_dcg(schemas, Path(tmp), metadata=False)
        dcg_alone.elapsed = time.perf_counter() - start  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--schemas", type=Path, default=Path("schemas"))
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    full_generate(args.schemas)  # warm-up (imports, caches) for both sides
    dcg_alone(args.schemas)
    full, dcg = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        full_generate(args.schemas)
        full.append(time.perf_counter() - start)
        dcg_alone(args.schemas)
        dcg.append(dcg_alone.elapsed)  # type: ignore[attr-defined]
    mf, md = statistics.median(full), statistics.median(dcg)
    print(f"schemas: {args.schemas} ({len(list(args.schemas.glob('*.json')))} files), runs: {args.runs}")
    print(f"codegen generate (all targets): median {mf * 1000:.1f} ms")
    print(f"datamodel-code-generator alone: median {md * 1000:.1f} ms")
    print(f"ratio generate / DCG alone:     {mf / md:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
