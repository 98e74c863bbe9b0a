"""Peak memory of ``evalschema import`` on large inputs: an lm-eval samples file and an Inspect ``.eval`` archive.

Not a test: run ``python benchmarks/interop_bench.py`` (by default ``--lm-eval-mb 1024 --inspect-samples 10000
--inspect-pad-kb 90``: about 1 GiB each; smaller numbers for a quick look). It builds the inputs in a temporary
folder from the real tool outputs in ``tests/interop/data/`` — the lm-eval samples file by repeating its lines with
new ``doc_id``s until it is ``--lm-eval-mb`` MiB; the ``.eval`` archive by copying the real mockllm log's samples
under new ids (header, summaries and sample entries, as Inspect writes them), each entry padded with
incompressible transcript text — then runs ``evalschema import`` on each in its own process and prints the input
size, the rows written, the time and the process's own peak resident memory (``wait4``), then reads the same input
with the tool's own reader in a process of its own (Inspect's ``read_eval_log_samples``; for lm-eval, which has no
reader of its samples files, the standard library's ``json`` a line at a time) and prints the CPU ratio between
them. The goal (issue 40): the import's peak at most 150 MiB for a 1 GB input. ``./noxw -s bench_interop`` runs it;
exit status 1 when an import fails or passes the memory goal.
"""

from __future__ import annotations

import argparse
import json
import os
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
LIMIT_MB = 150  # MiB: issue 40 (1 GB of lm-eval samples, a 1 GB Inspect log)


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


# the tool's own reader of the same input, in a process of its own: what a user of the tool pays to read it at all
TOOL_READERS = {
    # Inspect's streaming reader: every sample of every epoch, one at a time (read_eval_log would hold them all)
    "inspect_ai": (
        "from inspect_ai.log import read_eval_log_samples\n"
        "import sys\n"
        "n = sum(1 for _ in read_eval_log_samples(sys.argv[1], all_samples_required=False))\n"
        "print(n)\n"
    ),
    # lm-eval has no reader of its samples files (JSON Lines it writes with json.dumps): the standard library reading
    # every line is what its users, and Every Eval Ever's converter, do
    "lm_eval": (
        "import json, sys\nwith open(sys.argv[-1], encoding='utf-8') as f:\n    n = sum(1 for line in f if json.loads(line))\nprint(n)\n"
    ),
}


def run_child(command: list[str]) -> tuple[int, str, str, float, float, float]:
    """(status, stdout, stderr, wall s, CPU s, peak RSS MiB) of one process, its own peak (``wait4``), not the largest
    child's so far."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        child = subprocess.Popen(command, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        elapsed = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        return (
            child.returncode,
            out.read().decode(),
            err.read().decode(),
            elapsed,
            usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024,  # KiB on Linux
        )


def measure(label: str, fmt: str, inputs: list[Path], folder: Path) -> bool:
    """Import ``inputs``, then read them with the tool's own reader; print one table row. False when the import
    failed or went over the memory goal."""
    out = folder / f"{fmt}.resultset.json"
    size = sum(p.stat().st_size for p in inputs)
    status, stdout, stderr, wall, cpu, peak = run_child(
        [str(CLI), "import", "--from", fmt, *map(str, inputs), "-o", str(out), "--format", "json"]
    )
    if status != 0:
        print(f"| {label} | failed ({status}): {stderr[-300:]!r} |")
        return False
    rows = json.loads(stdout)["summary"]["total"]
    written = out.stat().st_size
    out.unlink()
    tool_status, _, tool_err, _, tool_cpu, tool_peak = run_child([sys.executable, "-c", TOOL_READERS[fmt], *map(str, inputs)])
    if tool_status != 0:
        print(f"| {label} | the tool's reader failed ({tool_status}): {tool_err[-300:]!r} |")
        return False
    verdict = "ok" if peak <= LIMIT_MB else f"OVER {LIMIT_MB} MiB"
    print(
        f"| {label} | {size / 2**20:,.0f} | {rows:,} | {written / 2**20:,.0f} | {wall:,.1f} | {cpu:,.1f} | {tool_cpu:,.1f} | "
        f"{cpu / tool_cpu:.2f} | {peak:,.0f} | {tool_peak:,.0f} | {verdict} |"
    )
    return peak <= LIMIT_MB


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lm-eval-mb", type=int, default=1024, help="size of the generated lm-eval samples file (0: skip)")
    parser.add_argument(
        "--inspect-samples", type=int, default=10000, help="samples in the generated .eval archive, 2 epochs each (0: skip)"
    )
    parser.add_argument("--inspect-pad-kb", type=int, default=90, help="incompressible transcript text added to each sample entry, in KiB")
    args = parser.parse_args()
    print(f"memory goal: peak RSS of the import <= {LIMIT_MB} MiB (issue 40); CPU ratio: the import / the tool's own reader")
    print(
        "| input | MiB | rows | output MiB | import wall s | import CPU s | tool reader CPU s | x tool reader | import peak MiB | tool reader peak MiB | memory |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    ok = True
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        if args.lm_eval_mb:
            ok &= measure("lm_eval samples", "lm_eval", lm_eval_input(folder, args.lm_eval_mb), folder)
        if args.inspect_samples:
            copies = max(1, args.inspect_samples // 4)
            ok &= measure("inspect_ai .eval", "inspect_ai", inspect_input(folder, copies, args.inspect_pad_kb), folder)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
