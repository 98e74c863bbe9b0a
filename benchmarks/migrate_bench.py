"""``evalschema migrate`` on a large YAML pack: time as a ratio to a plain ruamel round trip (load and dump) of the
same file, and peak memory of each, measured in the same run.

Not a test: run ``./noxw -s bench_migrate`` (``-- --prompts 500 --runs 1`` for a quicker one). It writes a pack of
``--prompts`` prompts (default 2,000): the two prompts of the golden file ``tests/data/migrate/pack-comments.yaml``
(validators with comments, ``fail_on_violation``, flow lists) repeated under new names. Then it runs, as whole
processes and alternately, ``evalschema migrate PACK`` on a fresh copy and a Python process that loads the same
copy with ruamel's round-trip ``YAML()`` and dumps it to a file, and samples each process's peak resident memory.
The target (issue 39): migrate within 1.2x of the round trip. It was quadratic (250 prompts 87 s) while every
prompt that gained evals parsed the whole file again.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from validation_bench import CLI, peak_rss_mib

GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "data" / "migrate" / "pack-comments.yaml"

ROUND_TRIP = """
import sys
from ruamel.yaml import YAML
yaml = YAML()
with open(sys.argv[1], encoding="utf-8") as source:
    document = yaml.load(source)
with open(sys.argv[2], "w", encoding="utf-8") as out:
    yaml.dump(document, out)
"""


def write_pack(path: Path, prompts: int) -> None:
    """The golden pack's two prompts, repeated under new names until there are ``prompts`` of them."""
    text = GOLDEN.read_text(encoding="utf-8")
    head, rest = text.split("prompts:\n", 1)
    body = rest.split("\n# Owned", 1)[0] + "\n"
    with path.open("w", encoding="utf-8") as out:
        out.write(head + "prompts:\n")
        for i in range(prompts // 2):
            out.write(
                body.replace("  support:\n    id: support", f"  support{i}:\n    id: support{i}").replace(
                    "  billing:\n    id: billing", f"  billing{i}:\n    id: billing{i}"
                )
            )


def timed(command: list[str]) -> tuple[float, float]:
    """Wall time and peak resident memory (MiB) of one process, which must succeed."""
    start = time.perf_counter()
    peak, status = peak_rss_mib(command)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{command[:3]} exited {status}")
    return seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each side, alternating (the medians are compared)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="migrate-bench-") as folder:
        pack = Path(folder) / "pack.yaml"
        write_pack(pack, args.prompts)
        print(f"pack: {args.prompts:,} prompts, {pack.stat().st_size / 2**20:.1f} MiB")
        sides: dict[str, list[tuple[float, float]]] = {"migrate": [], "round trip": []}
        for run in range(args.runs):
            copy = Path(folder) / f"copy-{run}.yaml"
            shutil.copyfile(pack, copy)
            sides["migrate"].append(timed([str(CLI), "migrate", str(copy)]))
            sides["round trip"].append(timed([sys.executable, "-c", ROUND_TRIP, str(pack), str(Path(folder) / "dumped.yaml")]))
        for name, results in sides.items():
            seconds = statistics.median(s for s, _ in results)
            peak = max(p for _, p in results)
            print(f"{name:>10}: {seconds:6.2f} s (median of {len(results)}), peak {peak:6.1f} MiB")
        ratio = statistics.median(s for s, _ in sides["migrate"]) / statistics.median(s for s, _ in sides["round trip"])
        print(f"migrate / round trip: {ratio:.2f}x (target <= 1.2x)")


if __name__ == "__main__":
    main()
