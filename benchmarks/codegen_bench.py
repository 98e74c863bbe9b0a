"""Time a full ``codegen generate`` against datamodel-code-generator alone, on the same schemas, same run.

Usage: python benchmarks/codegen_bench.py [--schemas DIR] [--runs N]

Both sides run in-process (no interpreter start-up counted); each is timed N times and the medians are
compared. "DCG alone" is the ``datamodel_code_generator.generate`` call the Python target makes (same options,
same prepared copy of the folder), without codegen's loading, dialect upgrade, IR, copy preparation,
post-processing, TypeScript, Go, docs or writing. The issue's target: full generation within 1.5x DCG alone,
measured on the largest corpus set (``--schemas tests/codegen/corpus/renovate/schemas``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from codegen.ir import build
from codegen.load import load
from codegen.targets.python import dcg_input, dcg_options
from codegen.write import render_all, write_tree


def full_generate(schemas_dir: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        schemas = load(schemas_dir)
        write_tree(render_all(build(schemas), schemas), Path(tmp) / "out")


def dcg_alone(schemas_dir: Path) -> None:
    import json
    import warnings

    from datamodel_code_generator import generate

    schemas = load(schemas_dir)  # loading and preparing DCG's input are excluded from the timing below
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "schemas"
        src.mkdir()
        for name, document in dcg_input(schemas, build(schemas)).items():
            (src / name).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            generate(src, output=Path(tmp) / "out", **dcg_options())
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
