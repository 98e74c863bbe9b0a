"""Speed at the limit (issue 22): whole ``evalschema validate`` processes against the practical limit, from one run.

Not a test: ``./noxw -s bench_limit`` (part of ``./noxw -s bench``). The limit is a process that only reads the
file and calls ``orjson.loads`` with the garbage collector off — what any validator must at least do. For each size
(one small document, then result sets of 1k, 10k and 100k results, and with ``--large-mb`` one result set of that
many MiB) the sides run alternately, ``--repeats`` times each (9 unless told; at least 5; the large size
``--large-repeats`` times, 5 unless told, as each of its runs takes half a minute; in one Node process
``IN_PROCESS_REPEATS`` times at least, as those take a second), and the table gives medians of wall and
CPU time, the peak resident memory of each side (its high-water mark, VmHWM, sampled until it exits; with a child
process, the sum of both, and what both held at once, their proportional set sizes summed) and the ratios: of the
medians, and paired (the median of each round's ratio to the limit's run in that round, which a slow spell of the
machine moves less):

- ``evalschema validate`` as users run it (a large result set streams) and with ``--stream never`` / ``always``;
  at 100k and the large size also ``-j 2`` (one process for one file since issue 38 removed the helper process), whose CPU
  time and peak count both processes;
- the limit process, and ``json.loads`` as a process (the standard library, collector on), for reference;
- for the small document, ``python -c pass`` (start-up alone);
- TypeScript: ``validate(JSON.parse(text))`` against ``JSON.parse(text)`` in one Node process
  (``benchmarks/ts_bench.mjs``), and ``validateFile`` streamed as a whole ``node`` process against a ``node``
  process that reads the file and ``JSON.parse``\\ s it, with both peaks. ``JSON.parse`` cannot take a 1 GiB string,
  so at that size the TypeScript row reports the streamed time and peak alone.

Issue 44 adds a second limit, a process that decodes the file into the generated msgspec types
(``evalschema_msgspec``, collector off: types, enums, bounds, required and closed objects checked while parsing),
to every row (``x typed limit``), and four row shapes (``--shape-rows``, 100k unless told; ``SHAPES``: one grader
per row; seven graders with reasons and constraint violations; long outputs; ten attempts per test case), where
``evalschema validate``, check-jsonschema (``--no-check-jsonschema`` leaves it out: at 100k a run of it takes
minutes) and the jsonschema-rs engine alone (read, ``orjson.loads``, ``is_valid`` against the bundled schema) are
each timed against both limits, ``--shape-repeats`` alternating rounds (5 unless told). Two floors are timed
beside them (``typed_floor.py``): the typed decode followed by three row rules in Python, and by a summary's sums
alone -- the least that any fast pass checking on the typed objects in Python adds to the typed limit.

Every process must exit 0 (every generated document is valid): any other status stops the benchmark with the
command and its stderr, so a broken side can never pass for a fast one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import synthetic

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
CLI = str(Path(sys.executable).with_name("evalschema"))
NODE = shutil.which("node")
TS_CLI = ROOT / "js" / json.loads((ROOT / "js" / "package.json").read_text())["bin"]["evalschema-js"]

LIMIT = [PYTHON, "-c", "import gc, sys, orjson; gc.disable(); orjson.loads(open(sys.argv[1], 'rb').read())"]
# The other limit (issue 44): decoding the file into the generated msgspec types (evalschema_msgspec), which check
# types, enums, bounds, required and closed objects while they parse, collector off
TYPED_LIMIT = [
    PYTHON,
    "-c",
    "import gc, sys, msgspec; gc.disable(); from evalschema_msgspec import ROOTS; "
    "msgspec.json.decode(open(sys.argv[1], 'rb').read(), type=ROOTS['resultset.json'])",
]
# the result set's schema as one file (codegen's bundle), for the validators that take a schema file
BUNDLED = ROOT / "generated" / "schemas" / "resultset.json"
CHECK_JSONSCHEMA = [str(Path(sys.executable).with_name("check-jsonschema")), "--schemafile", str(BUNDLED)]
# the jsonschema-rs engine alone: read, orjson.loads (collector off), is_valid against the bundled schema
ENGINE_ALONE = [
    PYTHON,
    "-c",
    "import gc, json, sys, orjson, jsonschema_rs; gc.disable(); "
    f"v = jsonschema_rs.validator_for(json.load(open({str(BUNDLED)!r})), validate_formats=True); "
    "sys.exit(0 if v.is_valid(orjson.loads(open(sys.argv[1], 'rb').read())) else 1)",
]
# What the least Python work on the typed objects adds to that decode (benchmarks/typed_floor.py): three row
# rules, or only a summary's sums -- the floor under any fast pass that checks the rest in Python
FLOOR = [PYTHON, str(ROOT / "benchmarks" / "typed_floor.py")]
JSON_LOADS = [PYTHON, "-c", "import json, sys; json.loads(open(sys.argv[1], 'rb').read())"]
PASS = [PYTHON, "-c", "pass"]
NODE_PARSE = ["-e", "JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'))"]
# ts_bench.mjs's rounds: a second each at 100k, and V8's collections land on some of them (README)
IN_PROCESS_REPEATS = 11


# Every side runs with bytecode caching allowed, as an installed package runs (pip compiles it): a shell that sets
# PYTHONDONTWRITEBYTECODE would otherwise make each evalschema run compile its modules from source.
CHILD_ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


class SideFailed(SystemExit):
    pass


def _high_water_kib(pid: int) -> int:
    """A process's own peak RSS so far (VmHWM), 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):  # it ended between the listing and the read
        pass
    return 0


def _proportional_kib(pid: int) -> int:
    """A process's proportional set size now (Pss: each page it shares counted as its share), 0 if it is gone."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        return []


@dataclass
class Side:
    name: str
    command: list[str]
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    peaks: list[float] = field(default_factory=list)
    held: list[float] = field(default_factory=list)

    def run(self) -> None:
        """One run: wall time from spawn to exit; CPU time (user + system, the process's and its children's, from
        ``wait4``); peak RSS: the process's own high-water mark (VmHWM) plus each child process's, sampled every
        5 ms — a sum of peaks, so never less than the most the processes held at once. With a child process, also
        what they held at once: the largest sum of their proportional set sizes sampled (a forked helper shares
        the interpreter's pages with this process, which the sum of peaks counts twice; a sample can miss a
        spike that lasts less than 5 ms)."""
        start = time.perf_counter()
        proc = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CHILD_ENV)
        peaks_kib: dict[int, int] = {}
        held_kib = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            processes = (proc.pid, *_children(proc.pid))
            for each in processes:
                peaks_kib[each] = max(peaks_kib.get(each, 0), _high_water_kib(each))
            if len(processes) > 1:  # (read only then: the kernel walks the pages to count it)
                held_kib = max(held_kib, sum(_proportional_kib(each) for each in processes))
            time.sleep(0.005)
        self.seconds.append(time.perf_counter() - start)
        proc.returncode = os.waitstatus_to_exitcode(status)
        stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if proc.returncode != 0:
            raise SideFailed(f"{self.name}: exit {proc.returncode}: {' '.join(self.command)}\n{stderr[-2000:]}")
        self.cpu.append(usage.ru_utime + usage.ru_stime)
        self.peaks.append(sum(peaks_kib.values()) / 1024)
        self.held.append(held_kib / 1024)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)

    @property
    def peak(self) -> float:
        return max(self.peaks)

    def paired(self, limit: Side) -> float:
        """The median over rounds of this side's time over the limit's in the same round: where the machine's speed
        drifts from one spell to the next (as shared machines' does), each ratio compares runs seconds apart."""
        return statistics.median(mine / theirs for mine, theirs in zip(self.seconds, limit.seconds, strict=True))


def measure(sides: list[Side], repeats: int) -> None:
    for side in sides:  # one unmeasured run each: the page cache holds the file for every side alike
        side.run()
        side.seconds.clear()
        side.cpu.clear()
        side.peaks.clear()
        side.held.clear()
    for _ in range(repeats):
        for side in sides:  # alternately, so a slow spell of the shared machine lands on every side
            side.run()


def python_rows(label: str, path: Path, repeats: int, large: bool) -> list[dict[str, object]]:
    file = str(path)
    limit, loads = Side("limit", [*LIMIT, file]), Side("json.loads", [*JSON_LOADS, file])
    typed = Side("msgspec typed limit", [*TYPED_LIMIT, file])
    default = Side("validate", [CLI, "validate", "--format", "json", file])
    never = Side("validate --stream never", [CLI, "validate", "--format", "json", "--stream", "never", file])
    always = Side("validate --stream always", [CLI, "validate", "--format", "json", "--stream", "always", file])
    helped = Side("validate -j 2", [CLI, "validate", "--format", "json", "-j", "2", file])
    sides = [limit, loads, typed, default, always, helped] if large else [limit, loads, typed, default, never, always]
    if label == "100k":
        sides.append(helped)
    start_up = Side("python -c pass", PASS) if label == "small" else None
    measure([*sides, *([start_up] if start_up else [])], repeats)
    rows = []
    for side in sides[3:]:
        row: dict[str, object] = {
            "work": f"{label}: {side.name}",
            "s": round(side.median, 3),
            "peak MiB": round(side.peak),
            "limit s": round(limit.median, 3),
            "limit peak MiB": round(limit.peak),
            "x limit": round(side.median / limit.median, 2),
            "x limit, paired": round(side.paired(limit), 2),
            "x json.loads": round(side.median / loads.median, 2),
            "cpu s": round(side.cpu_median, 3),
            "cpu x limit": round(side.cpu_median / limit.cpu_median, 2),
            "typed limit s": round(typed.median, 3),
            "typed limit peak MiB": round(typed.peak),
            "x typed limit": round(side.median / typed.median, 2),
            "x typed, paired": round(side.paired(typed), 2),
            "cpu x typed": round(side.cpu_median / typed.cpu_median, 2),
        }
        if max(side.held) > 0:
            row["held at once MiB"] = round(max(side.held))
        if start_up is not None:
            row["x python -c pass"] = round(side.median / start_up.median, 2)
            row["python -c pass s"] = round(start_up.median, 3)
        rows.append(row)
    return rows


def typescript_rows(label: str, path: Path, repeats: int, large: bool) -> list[dict[str, object]]:
    if NODE is None or not TS_CLI.exists():
        raise SideFailed(f"the TypeScript SDK is not built ({TS_CLI}): run `npm run build --prefix js`")
    file = str(path)
    streamed = Side("ts validateFile streamed", [NODE, str(ROOT / "benchmarks" / "ts_stream_bench.mjs"), file, "stream"])
    if large:  # JSON.parse cannot hold a string this long: the streamed time and peak alone
        measure([streamed], repeats)
        return [{"work": f"{label}: {streamed.name}", "s": round(streamed.median, 3), "peak MiB": round(streamed.peak)}]
    parse = Side("node JSON.parse", [NODE, *NODE_PARSE, file])
    measure([parse, streamed], repeats)
    rounds = str(max(repeats, IN_PROCESS_REPEATS))
    api = subprocess.run([NODE, str(ROOT / "benchmarks" / "ts_bench.mjs"), file, rounds], capture_output=True, text=True)
    if api.returncode != 0:
        raise SideFailed(f"ts_bench.mjs: exit {api.returncode}\n{api.stderr[-2000:]}")
    in_process = json.loads(api.stdout)
    return [
        {
            "work": f"{label}: ts validate(JSON.parse) in process",
            "s": round(in_process["validate_ms"] / 1000, 4),
            "limit s": round(in_process["json_parse_ms"] / 1000, 4),
            "x limit": round(in_process["ratio"], 2),
            "x limit, paired": round(in_process["paired_ratio"], 2),
        },
        {
            "work": f"{label}: {streamed.name} (process)",
            "s": round(streamed.median, 3),
            "peak MiB": round(streamed.peak),
            "limit s": round(parse.median, 3),
            "limit peak MiB": round(parse.peak),
            "x limit": round(streamed.median / parse.median, 2),
            "x limit, paired": round(streamed.paired(parse), 2),
        },
    ]


def shape_rows(label: str, path: Path, repeats: int, with_check_jsonschema: bool) -> list[dict[str, object]]:
    """One row shape: ``evalschema validate`` (as users run it), check-jsonschema and the jsonschema-rs engine alone,
    each against both limits — the typed msgspec decode and ``orjson.loads`` — alternating whole processes."""
    file = str(path)
    typed, limit = Side("msgspec typed limit", [*TYPED_LIMIT, file]), Side("orjson limit", [*LIMIT, file])
    default = Side("validate", [CLI, "validate", "--format", "json", file])
    engine = Side("jsonschema-rs alone", [*ENGINE_ALONE, file])
    rules = Side("floor: typed decode + 3 row rules in Python", [*FLOOR, file, "rules"])
    sums = Side("floor: typed decode + a summary's sums in Python", [*FLOOR, file, "sums"])
    sides = [typed, limit, default, engine, rules, sums]
    if with_check_jsonschema:
        sides.append(Side("check-jsonschema", [*CHECK_JSONSCHEMA, file]))
    measure(sides, repeats)
    rows = []
    for side in sides[2:]:
        rows.append(
            {
                "work": f"{label}: {side.name}",
                "s": round(side.median, 3),
                "peak MiB": round(side.peak),
                "typed limit s": round(typed.median, 3),
                "x typed limit": round(side.median / typed.median, 2),
                "x typed, paired": round(side.paired(typed), 2),
                "limit s": round(limit.median, 3),
                "x limit": round(side.median / limit.median, 2),
                "x limit, paired": round(side.paired(limit), 2),
                "cpu s": round(side.cpu_median, 3),
                "cpu x typed": round(side.cpu_median / typed.cpu_median, 2),
                "cpu x limit": round(side.cpu_median / limit.cpu_median, 2),
            }
        )
    rows.append(
        {
            "work": f"{label}: (msgspec typed limit ÷ orjson limit)",
            "s": round(typed.median, 3),
            "peak MiB": round(typed.peak),
            "limit s": round(limit.median, 3),
            "x limit": round(typed.median / limit.median, 2),
            "x limit, paired": round(typed.paired(limit), 2),
            "cpu s": round(typed.cpu_median, 3),
            "cpu x limit": round(typed.cpu_median / limit.cpu_median, 2),
        }
    )
    return rows


def _shape(rng: random.Random, index: int, shape: str) -> dict[str, Any]:
    """A valid row of ``shape``, from the synthetic row of that index (its errored rows kept as they are)."""
    attempts = 10 if shape == "many attempts" else 1
    row = synthetic.result(rng, index, attempts)
    if row.get("error") is not None:
        return row
    if shape == "one grader":
        row["grader_results"] = row["grader_results"][:1]
        row.pop("constraint_violations", None)
    elif shape == "seven graders":
        row["grader_results"] = [
            {"grader_id": grader_id, "type": kind, "score": 0.75, "passed": True, "reason": f"{kind}: the answer cites the logs"}
            for grader_id, kind in synthetic.GRADERS
        ]
        invalidates = index % 2 == 0
        row["constraint_violations"] = [
            {
                "id": "rbac_scope",
                "type": "authorization",
                "detail": "read outside the granted scope",
                "grader_id": "exact",
                "invalidates_result": invalidates,
            },
            {"id": "pii_leak", "type": "privacy", "detail": "an e-mail address in the output", "invalidates_result": False},
        ]
        row["passed"] = not invalidates
        return row
    elif shape == "long outputs":
        row["actual_output"] = " ".join(rng.choice(synthetic.WORDS) for _ in range(300))
    if row.get("constraint_violations"):
        row["passed"] = row["passed"] and not any(v["invalidates_result"] for v in row["constraint_violations"])
    else:
        row["passed"] = all(g["passed"] for g in row["grader_results"] if g["score"] is not None) and any(
            g["score"] is not None for g in row["grader_results"]
        )
    return row


SHAPES = ("one grader", "seven graders", "long outputs", "many attempts")


def write_shape(path: Path, shape: str, count: int) -> Path:
    rng = random.Random(20261207)
    document = {**synthetic.header(f"shape-{count}"), "results": [_shape(rng, i, shape) for i in range(count)]}
    path.write_bytes(json.dumps(document, separators=(",", ":")).encode())
    return path


COLUMNS = [
    "work",
    "s",
    "peak MiB",
    "held at once MiB",
    "limit s",
    "limit peak MiB",
    "x limit",
    "x limit, paired",
    "x json.loads",
    "cpu s",
    "cpu x limit",
    "x python -c pass",
    "typed limit s",
    "typed limit peak MiB",
    "x typed limit",
    "x typed, paired",
    "cpu x typed",
]
SHAPE_COLUMNS = [
    "work",
    "s",
    "peak MiB",
    "typed limit s",
    "x typed limit",
    "x typed, paired",
    "limit s",
    "x limit",
    "x limit, paired",
    "cpu s",
    "cpu x typed",
    "cpu x limit",
]


def table(rows: list[dict[str, object]], columns: list[str] = COLUMNS) -> str:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row.get(column, "")) for column in columns) + " |" for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000], help="results per result set")
    parser.add_argument("--large-mb", type=int, default=0, help="also one result set of this many MiB (1024 for 1 GiB)")
    parser.add_argument("--repeats", type=int, default=9, help="runs a side (at least 5)")
    parser.add_argument("--large-repeats", type=int, default=5, help="runs a side at the large size (at least 5)")
    parser.add_argument("--no-typescript", action="store_true")
    parser.add_argument("--shape-rows", type=int, default=100_000, help="results per result set of each row shape (0: none)")
    parser.add_argument("--shape-repeats", type=int, default=5, help="runs a side for the row shapes (at least 3)")
    parser.add_argument("--no-check-jsonschema", action="store_true", help="leave check-jsonschema out of the row shapes")
    parser.add_argument("--only-shapes", action="store_true", help="only the row shapes")
    args = parser.parse_args()
    repeats, large_repeats = max(args.repeats, 5), max(args.large_repeats, 5)
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="evalschema-limit-") as tmp:
        folder = Path(tmp)
        small = folder / "small.resultset.json"
        small.write_bytes((ROOT / "spec" / "examples" / "resultset-multi-attempt.json").read_bytes())
        cases: list[tuple[str, Path, bool]] = [("small", small, False)]
        for size in args.sizes:
            cases.append(
                (f"{size // 1000}k" if size % 1000 == 0 else str(size), synthetic.write_resultset(folder / f"r{size}.json", size), False)
            )
        if args.large_mb:
            one_large = folder / "large.json"
            synthetic.write_large_resultset(one_large, args.large_mb << 20)
            cases.append((f"{args.large_mb} MiB", one_large, True))
        runs = f"{repeats}" + (f" ({large_repeats} at {args.large_mb} MiB)" if args.large_mb else "")
        in_process = f"; TypeScript in process: {max(repeats, IN_PROCESS_REPEATS)}" if not args.no_typescript else ""
        if args.shape_rows:
            runs += f"; row shapes: {max(args.shape_repeats, 3)}"
        print(
            f"# medians of {runs} alternating runs per side{in_process}; measured in this run ({time.strftime('%Y-%m-%d %H:%M')})",
            flush=True,
        )
        shaped: list[dict[str, object]] = []
        if args.shape_rows:
            label_rows = f"{args.shape_rows // 1000}k" if args.shape_rows % 1000 == 0 else str(args.shape_rows)
            for shape in SHAPES:
                path = write_shape(folder / f"shape-{shape.replace(' ', '-')}.json", shape, args.shape_rows)
                size = path.stat().st_size / 1e6
                shaped += shape_rows(
                    f"{label_rows} {shape} ({size:.0f} MB)", path, max(args.shape_repeats, 3), not args.no_check_jsonschema
                )
                path.unlink()
                print(json.dumps(shaped[-2]), file=sys.stderr, flush=True)
        for label, path, large in [] if args.only_shapes else cases:
            rows += python_rows(label, path, large_repeats if large else repeats, large)
            if not args.no_typescript:
                rows += typescript_rows(label, path, large_repeats if large else repeats, large)
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    if shaped:
        print(table(shaped, SHAPE_COLUMNS))
        print()
    if rows:
        print(table(rows))


if __name__ == "__main__":
    main()
