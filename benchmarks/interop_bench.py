"""Peak memory of ``evalschema import`` on large inputs: an lm-eval samples file and an Inspect ``.eval`` archive.

Not a test: run ``python benchmarks/interop_bench.py`` (by default ``--lm-eval-mb 1024 --inspect-samples 10000
--inspect-pad-kb 90``: about 1 GiB each; smaller numbers for a quick look). It builds the inputs in a temporary
folder from the real tool outputs in ``tests/interop/data/`` — the lm-eval samples file by repeating its lines with
new ``doc_id``s until it is ``--lm-eval-mb`` MiB; the ``.eval`` archive by copying the real mockllm log's samples
under new ids (header, summaries and sample entries, as Inspect writes them), each entry padded with
incompressible transcript text — then runs ``evalschema import`` on each in its own process and prints the input
size, the rows written, the wall time and the process's peak resident memory (``ru_maxrss`` of the child). The
goal (issue 20): under 300 MB for a 1 GB input.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "interop" / "data"
CLI = Path(sys.executable).with_name("evalschema")
LIMIT_MB = 300


def lm_eval_input(folder: Path, megabytes: int) -> list[Path]:
    results = next((DATA / "lm_eval").glob("results_*.json"))
    samples = next((DATA / "lm_eval").glob("samples_*.jsonl"))
    lines = [json.loads(line) for line in samples.read_text().splitlines() if line.strip()]
    (folder / results.name).write_bytes(results.read_bytes())
    target = folder / samples.name
    written, doc_id = 0, 0
    with target.open("w", encoding="utf-8") as out:
        while written < megabytes << 20:
            for line in lines:
                line = {**line, "doc_id": doc_id}
                text = json.dumps(line) + "\n"
                out.write(text)
                written += len(text.encode())
                doc_id += 1
    return [folder / results.name, target]


def inspect_input(folder: Path, copies: int, pad_kb: int) -> list[Path]:
    import zipfile_zstd  # type: ignore[import-untyped]  # noqa: F401  # Inspect writes zstd entries

    source = DATA / "inspect_ai" / "tiny-mockllm.eval"
    with zipfile.ZipFile(source) as archive:
        entries = {i.filename: archive.read(i) for i in archive.infolist()}
    header = json.loads(entries["header.json"])
    samples = {name: json.loads(body) for name, body in entries.items() if name.startswith("samples/")}
    summaries = json.loads(entries["summaries.json"])
    target = folder / "large.eval"
    ids: list[str] = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        new_summaries: list[dict[str, Any]] = []
        for copy in range(copies):
            for sample in samples.values():
                new_id = f"{sample['id']}-{copy}"
                if sample["epoch"] == 1:
                    ids.append(new_id)
                # incompressible text in the transcript (which the import drops): a realistic size per sample
                padding = [{"role": "user", "content": os.urandom(pad_kb * 512).hex(), "source": "input"}] if pad_kb else []
                body = {**sample, "id": new_id, "messages": [*sample.get("messages", []), *padding]}
                out.writestr(f"samples/{new_id}_epoch_{sample['epoch']}.json", json.dumps(body))
            new_summaries.extend({**s, "id": f"{s['id']}-{copy}"} for s in summaries)
        header["eval"]["dataset"]["sample_ids"] = ids
        header["eval"]["dataset"]["samples"] = len(ids)
        out.writestr("summaries.json", json.dumps(new_summaries))
        out.writestr("reductions.json", entries["reductions.json"])
        out.writestr("_journal/start.json", entries["_journal/start.json"])
        out.writestr("header.json", json.dumps(header))
    return [target]


def measure(label: str, fmt: str, inputs: list[Path], folder: Path) -> None:
    out = folder / f"{fmt}.resultset.json"
    size = sum(p.stat().st_size for p in inputs)
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(
        [str(CLI), "import", "--from", fmt, *map(str, inputs), "-o", str(out), "--format", "json"], capture_output=True, text=True
    )
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # KiB on Linux
    if done.returncode != 0:
        print(f"{label}: failed ({done.returncode}): {done.stderr[-500:]}")
        return
    rows = json.loads(done.stdout)["summary"]["total"]
    note = "" if peak_mb > before / 1024 else " (peak of an earlier child: run one input at a time)"
    verdict = "ok" if peak_mb < LIMIT_MB else f"OVER {LIMIT_MB} MB"
    print(
        f"{label}: input {size / 2**20:,.0f} MiB, {rows:,} rows, output {out.stat().st_size / 2**20:,.0f} MiB, "
        f"{elapsed:,.1f} s, peak RSS {peak_mb:,.0f} MB [{verdict}]{note}"
    )
    out.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lm-eval-mb", type=int, default=1024, help="size of the generated lm-eval samples file (0: skip)")
    parser.add_argument(
        "--inspect-samples", type=int, default=10000, help="samples in the generated .eval archive, 2 epochs each (0: skip)"
    )
    parser.add_argument("--inspect-pad-kb", type=int, default=90, help="incompressible transcript text added to each sample entry, in KiB")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        if args.lm_eval_mb:
            measure("lm_eval samples", "lm_eval", lm_eval_input(folder, args.lm_eval_mb), folder)
        if args.inspect_samples:
            copies = max(1, args.inspect_samples // 4)
            measure("inspect_ai .eval", "inspect_ai", inspect_input(folder, copies, args.inspect_pad_kb), folder)


if __name__ == "__main__":
    main()
