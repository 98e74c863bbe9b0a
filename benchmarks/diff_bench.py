"""Time ``codegen diff`` over the corpus of real schema histories against the diff before witnesses, same run.

Usage: python benchmarks/diff_bench.py [--runs N] [--profile FILE]

The corpus is the one ``tests/codegen/test_diff_histories.py`` checks (origins in
``tests/codegen/histories/README.md``): CycloneDX 1.4→1.5, AsyncAPI 2.5.0→2.6.0 in both bundles and 2.0.0→2.1.0, Biome
2.0.6→2.1.0, the JSON Schema meta-schemas draft-04→…→2020-12 (from ``jsonschema-specifications``), and this
repository's releases 1.0.0→1.1.0→1.2.0. The AsyncAPI 1.x pairs the test checks too (added later) are left out, so
that ratios stay comparable with the ones measured before them.

"Before witnesses" is what ``diff`` did when issue 42 was filed: load both folders, build their IRs and
classify the changes (``load_folder`` + ``build`` + ``diff_irs``), without proving anything. "Full" is
``codegen.diff.diff``: the same plus the witness search (:func:`codegen.diff.prove`). Both are measured in CPU
time (the witness budgets are CPU time too), alternating, N times; the medians of the corpus totals are
compared. The issue's target: full within 2x before witnesses.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import importlib.resources
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jsonschema_specifications  # type: ignore[import-untyped,unused-ignore]  # noqa: E402

from codegen.diff import diff, diff_irs, load_folder  # noqa: E402
from codegen.ir import build  # noqa: E402

HISTORIES = ROOT / "tests" / "codegen" / "histories"
RELEASES = ROOT / "spec" / "releases"
TODAY = dt.date(2026, 12, 1)
META_DRAFTS = ("draft4", "draft6", "draft7", "draft201909", "draft202012")


def _meta_folder(into: Path, draft: str) -> Path:
    """The meta-schema of ``draft`` and its vocabularies as a schema folder (as the corpus test builds it)."""
    source = importlib.resources.files(jsonschema_specifications) / "schemas" / draft
    folder = into / draft
    folder.mkdir()
    (folder / "schema.json").write_text((source / "metaschema.json").read_text(encoding="utf-8"), encoding="utf-8")
    vocabularies = source / "vocabularies"
    if vocabularies.is_dir():
        for vocabulary in vocabularies.iterdir():
            (folder / f"{vocabulary.name}.json").write_text(vocabulary.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def corpus(into: Path) -> list[tuple[str, Path, Path]]:
    pairs = [
        ("cyclonedx 1.4->1.5", HISTORIES / "cyclonedx_1_4", HISTORIES / "cyclonedx_1_5"),
        ("asyncapi 2.5.0->2.6.0", HISTORIES / "asyncapi_2.5.0", HISTORIES / "asyncapi_2.6.0"),
        ("asyncapi 2.5.0->2.6.0 without $id", HISTORIES / "asyncapi_2.5.0_without_id", HISTORIES / "asyncapi_2.6.0_without_id"),
        ("asyncapi 2.0.0->2.1.0 without $id", HISTORIES / "asyncapi_2.0.0_without_id", HISTORIES / "asyncapi_2.1.0_without_id"),
        ("biome 2.0.6->2.1.0", HISTORIES / "biome_2.0.6", HISTORIES / "biome_2.1.0"),
    ]
    meta = {draft: _meta_folder(into, draft) for draft in META_DRAFTS}
    pairs += [(f"meta-schema {a}->{b}", meta[a], meta[b]) for a, b in itertools.pairwise(META_DRAFTS)]
    pairs += [(f"ours {a}->{b}", RELEASES / a, RELEASES / b) for a, b in itertools.pairwise(("1.0.0", "1.1.0", "1.2.0"))]
    return pairs


def before_witnesses(old: Path, new: Path) -> None:
    diff_irs(build(load_folder(old)), build(load_folder(new)), TODAY)


def full(old: Path, new: Path) -> None:
    diff(old, new, TODAY)


def cpu(work: object, old: Path, new: Path) -> float:
    start = time.process_time()
    work(old, new)  # type: ignore[operator]
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", type=Path, help="write a cProfile of one full run over the corpus here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pairs = corpus(Path(tmp))
        for _, old, new in pairs:  # warm-up (imports, caches) for both sides
            before_witnesses(old, new)
            full(old, new)
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            for _, old, new in pairs:
                full(old, new)
            profile.disable()
            profile.dump_stats(args.profile)
        per_pair: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name, _, _ in pairs}
        totals: tuple[list[float], list[float]] = ([], [])
        for _ in range(args.runs):
            run = ([0.0], [0.0])
            for name, old, new in pairs:
                b, f = cpu(before_witnesses, old, new), cpu(full, old, new)
                per_pair[name][0].append(b)
                per_pair[name][1].append(f)
                run[0][0] += b
                run[1][0] += f
            totals[0].append(run[0][0])
            totals[1].append(run[1][0])
    print(f"corpus: {len(pairs)} consecutive pairs, runs: {args.runs} (CPU seconds, medians)")
    width = max(len(name) for name in per_pair)
    for name, (before, after) in per_pair.items():
        mb, mf = statistics.median(before), statistics.median(after)
        print(f"  {name:<{width}}  before witnesses {mb:7.3f}  full {mf:7.3f}  ratio {mf / mb:5.2f}x")
    mb, mf = statistics.median(totals[0]), statistics.median(totals[1])
    print(f"corpus before witnesses: median {mb:.2f} s")
    print(f"corpus full diff:        median {mf:.2f} s")
    print(f"ratio full / before witnesses: {mf / mb:.2f}x (target: 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
