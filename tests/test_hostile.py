"""The hostile-input corpus (issue #9): every bad file gets a clear answer, in bounded time and memory.

Each row of ``tests/hostile/cases.json`` is run through the ``evalschema`` console script as a subprocess (and,
for JSON files, through the TypeScript CLI ``js/dist/cli.js`` when it is built), and must give: the documented
exit status, no traceback, the expected codes in the JSON report, the line and column where the format has
them, no network access (a ``sitecustomize`` on ``PYTHONPATH`` records and refuses every connection and name
lookup), less than ``MEMORY_LIMIT`` of peak RSS and less than the row's ``seconds`` of wall time.

Big and binary inputs are generated here, in a temporary folder; small ones are files in ``tests/hostile/files``.
A row with ``bug`` is a known product bug: its test is a strict xfail (it fails loudly once fixed, so the
marker is removed with the fix). ``position_bug`` does the same for the line/column check alone.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import random
import re
import resource
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tools import missing_tool

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
EXAMPLES = ROOT / "spec" / "examples"
SCRIPT = Path(sys.executable).with_name("evalschema")
JS_CLI = ROOT / "js" / "dist" / "cli.js"
NODE = shutil.which("node")
TIME = Path("/usr/bin/time")
LEDGER = {rule["id"] for rule in json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]}
FILE_SCOPE = {"FILE_UNREADABLE", "INVALID_JSON", "INVALID_YAML", "DUPLICATE_KEY"}

MEMORY_LIMIT = 1536 * 1024 * 1024  # peak RSS per run
# RLIMIT_AS for every run, Python and node (stricter than the 4 GB ``ulimit -v``): a runaway read fails in
# the child instead of swapping, and must end with a documented exit status, not a signal
ADDRESS_SPACE = 3 * 1024 * 1024 * 1024
DEFAULT_SECONDS = 60

ALL_CASES: list[dict[str, Any]] = json.loads((HOSTILE / "cases.json").read_text(encoding="utf-8"))["cases"]
BY_NAME = {case["name"]: case for case in ALL_CASES}
# rows with "argv" run any command line (built by tests/hostile_inputs.py); the others run ``validate --format json``
CASES = [case for case in ALL_CASES if "argv" not in case]
BUILT = [case for case in ALL_CASES if "argv" in case]

SITECUSTOMIZE = """
import os, socket
_LOG = os.environ.get("EVALSCHEMA_NET_LOG")

def _refuse(what):
    def refuse(*args, **kwargs):
        if _LOG:
            with open(_LOG, "a", encoding="utf-8") as log:
                log.write(f"{what} {args[1:] if what.startswith('socket.') else args!r}\\n")
        raise OSError(f"hostile-input test: network access refused ({what})")
    return refuse

socket.socket.connect = _refuse("socket.connect")
socket.socket.connect_ex = _refuse("socket.connect_ex")
socket.create_connection = _refuse("create_connection")
socket.getaddrinfo = _refuse("getaddrinfo")
"""

NODE_NO_NETWORK = """
const fs = require("fs"), net = require("net"), dns = require("dns");
const log = process.env.EVALSCHEMA_NET_LOG;
function refuse(what) {
  return function () {
    if (log) fs.appendFileSync(log, what + "\\n");
    throw new Error("hostile-input test: network access refused (" + what + ")");
  };
}
net.Socket.prototype.connect = refuse("net.connect");
dns.lookup = refuse("dns.lookup");
dns.resolve = refuse("dns.resolve");
if (globalThis.fetch) globalThis.fetch = refuse("fetch");
"""


# --- inputs --------------------------------------------------------------------------------------------


def _example(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return document


def _nested(depth: int, leaf: str = "1", kind: str = "[") -> str:
    return ("[" * depth + "]" * depth) if kind == "[" else ('{"a":' * depth + leaf + "}" * depth)


def _generate(spec: dict[str, Any], folder: Path) -> Path:
    """Write a generated input into ``folder``; return its path."""
    how = spec["generate"]
    if how == "truncated_example":
        text = (EXAMPLES / "suite-qa-basic.json").read_text(encoding="utf-8")
        path, data = folder / "truncated.json", text[: len(text) // 2].encode()
    elif how == "bom_example":
        path, data = folder / "bom.json", b"\xef\xbb\xbf" + (EXAMPLES / "grader-llm-judge.json").read_bytes()
    elif how == "bigint_json":
        path, data = folder / "bigint.json", ('{\n  "id": "t",\n  "weight": ' + "9" * 5000 + "\n}\n").encode()
    elif how == "bigint_yaml":
        path, data = folder / "bigint.yaml", ("id: t\ninput: x\nscore: " + "9" * 5000 + "\n").encode()
    elif how == "deep_arrays":
        path, data = folder / "deep-arrays.json", _nested(spec["depth"]).encode()
    elif how == "deep_objects":
        path, data = folder / "deep-objects.json", _nested(spec["depth"], kind="{").encode()
    elif how == "deep_yaml":
        path, data = folder / "deep.yaml", _nested(spec["depth"]).encode()
    elif how == "deep_metadata":
        # a valid result set whose open metadata holds a deeply nested (syntactically valid) value
        document = _example("resultset-multi-attempt.json")
        document["metadata"] = {"deep": "__DEEP__"}
        if spec.get("invalid"):
            document["run_id"] = 7
        depth = spec["depth"] - 2  # the root object and metadata count as two levels
        text = json.dumps(document, indent=2).replace('"__DEEP__"', _nested(depth // 2, kind="{").replace("1", _nested(depth - depth // 2)))
        path, data = folder / f"deep-metadata-{spec['depth']}{'-invalid' if spec.get('invalid') else ''}.json", text.encode()
    elif how == "huge_string":
        document = _example("resultset-multi-attempt.json")
        document["results"][0]["actual_output"] = "__HUGE__"
        head, tail = json.dumps(document).split('"__HUGE__"')
        path = folder / "huge-string.json"
        with path.open("wb") as out:
            out.write(head.encode() + b'"')
            chunk = b"lorem ipsum " * 87382  # ~1 MiB
            for _ in range(spec["megabytes"]):
                out.write(chunk)
            out.write(b'"' + tail.encode())
        return path
    elif how == "many_graders":
        document = _example("suite-qa-basic.json")
        document["graders"] = [{"id": f"g{i}", "type": "contains", "params": {"substring": "EUR"}} for i in range(spec["count"])]
        for case in document["test_cases"]:
            case["graders"] = ["g0"]
        path, data = folder / "many-graders.json", json.dumps(document).encode()
    elif how == "many_results":
        document = _example("resultset-multi-attempt.json")
        template = document["results"][0]
        document["results"] = [dict(copy.deepcopy(template), attempt=i + 1) for i in range(spec["count"])]
        document.pop("summary", None)
        path, data = folder / "many-results.json", json.dumps(document).encode()
    elif how == "long_key":
        document = _example("testcase-rag-answer.json")
        document["k" * spec["length"]] = 1
        path, data = folder / "long-key.json", json.dumps(document).encode()
    elif how == "huge_version":
        document = _example("suite-qa-basic.json")
        document["version"] = "9" * 5000 + ".0.0"
        path, data = folder / "huge-version.json", json.dumps(document).encode()
    elif how == "huge_schema_version":
        document = _example("grader-llm-judge.json")
        document["$schema"] = "https://evalschema.org/schema/" + "9" * 5000 + ".0.0/grader.json"
        path, data = folder / "huge-schema-version.json", json.dumps(document).encode()
    elif how == "empty_key":
        document = _example("pack-legacy-fail-on-violation.json")
        document["prompts"] = {"": {"0": None}}
        path, data = folder / "empty-key.json", json.dumps(document).encode()
    elif how == "random_bytes":
        rng = random.Random(9)
        path, data = folder / "random.json", b"\xff\xfe" + bytes(rng.randrange(256) for _ in range(65536))
    elif how == "png":
        path, data = folder / "image.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    else:
        raise AssertionError(f"unknown generator {how!r}")
    path.write_bytes(data)
    return path


@dataclass
class Prepared:
    paths: list[str]
    args: list[str]
    cwd: Path
    stdin: bytes | None = None
    skip: str | None = None


def _prepare(case: dict[str, Any], folder: Path) -> Prepared:
    """The CLI arguments (after ``validate --format json``) for one case, creating its input in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    spec, extra = case["input"], list(case.get("args", []))
    if "file" in spec:
        source = HOSTILE / spec["file"]
        target = folder / source.name
        shutil.copyfile(source, target)
        return Prepared([str(target)], extra, folder)
    if "generate" in spec:
        return Prepared([str(_generate(spec, folder))], extra, folder)
    special = spec["special"]
    if special == "missing":
        return Prepared([str(folder / "no-such-file.json")], extra, folder)
    if special == "chmod000":
        target = folder / "locked.json"
        shutil.copyfile(EXAMPLES / "grader-llm-judge.json", target)
        target.chmod(0)
        try:
            target.read_bytes()
        except PermissionError:
            return Prepared([str(target)], extra, folder)
        return Prepared([str(target)], extra, folder, skip="running as root (or with CAP_DAC_OVERRIDE): chmod 000 does not stop reading")
    if special == "empty_glob":
        return Prepared([str(folder / "nothing-*.json")], extra, folder)
    if special == "dir_as_suite":
        (folder / "suite-dir").mkdir()
        return Prepared([str(EXAMPLES / "resultset-multi-attempt.json")], ["--suite", str(folder / "suite-dir"), *extra], folder)
    if special == "empty_folder":
        (folder / "empty").mkdir()
        (folder / "empty" / "notes.txt").write_text("not a document\n")
        return Prepared([str(folder / "empty")], extra, folder)
    if special == "folder_named_json":
        (folder / "looks-like.json").mkdir()
        return Prepared([str(folder / "looks-like.json")], extra, folder)
    if special == "dev_zero":
        if not Path("/dev/zero").exists():
            return Prepared([], extra, folder, skip="no /dev/zero")
        (folder / "results.json").symlink_to("/dev/zero")
        return Prepared([str(folder / "results.json")], extra, folder)
    if special == "fifo":
        if not hasattr(os, "mkfifo"):
            return Prepared([], extra, folder, skip="no FIFOs on this platform")
        os.mkfifo(folder / "pipe.json")
        return Prepared([str(folder / "pipe.json")], extra, folder)
    if special == "stdin":
        data = bytes.fromhex(spec["data_hex"].replace(" ", "")) if "data_hex" in spec else spec["data"].encode()
        return Prepared(["-"], extra, folder, stdin=data)
    if special == "mixed":
        return Prepared(
            [str(EXAMPLES / "grader-llm-judge.json"), str(folder / "gone.json"), str(EXAMPLES / "suite-qa-basic.json")], extra, folder
        )
    raise AssertionError(f"unknown special input {special!r}")


# --- running -------------------------------------------------------------------------------------------


@dataclass
class Run:
    status: int | None  # None: timed out (killed)
    stdout: str
    stderr: str
    seconds: float
    peak_rss: int | None  # bytes
    network: list[str]


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_measured(
    command: list[str],
    *,
    cwd: Path,
    work: Path,
    stdin: bytes | None = None,
    seconds: float = DEFAULT_SECONDS,
    env: dict[str, str] | None = None,
) -> Run:
    """Run ``command`` in its own process group with a timeout; measure wall time and peak RSS."""
    work.mkdir(parents=True, exist_ok=True)
    memory_file, net_log = work / "peak-rss", work / "network.log"
    net_log.write_text("")
    full_env = {**os.environ, **(env or {}), "EVALSCHEMA_NET_LOG": str(net_log), "NO_COLOR": "1"}
    prefix = [str(TIME), "-f", "%M", "-o", str(memory_file)] if TIME.exists() else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    process = subprocess.Popen(
        [*prefix, *command],
        cwd=cwd,
        env=full_env,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=_limit_memory,
    )
    try:
        out, err = process.communicate(stdin, timeout=seconds)
        status: int | None = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # our own process group: time(1) and the command under it
        out, err = process.communicate()
        status = None
    elapsed = time.monotonic() - start
    peak: int | None = None
    if prefix and status is not None:
        text = memory_file.read_text().strip().splitlines()
        if text and text[-1].isdigit():
            peak = int(text[-1]) * 1024
    if peak is None:
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        peak = after * 1024 if after > before else None  # only an upper bound once another child was larger
    return Run(status, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), elapsed, peak, net_log.read_text().splitlines())


@pytest.fixture(scope="module")
def sitecustomize(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sitecustomize")
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    (folder / "no-network.cjs").write_text(NODE_NO_NETWORK)
    return folder


def _python(case: dict[str, Any], root: Path, site: Path) -> tuple[Prepared, Run | None]:
    prepared = _prepare(case, root / case["name"] / "input")
    if prepared.skip:
        return prepared, None
    command = [str(SCRIPT), "validate", "--format", "json", *prepared.args, *prepared.paths]
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH", "")]))}
    run = run_measured(
        command,
        cwd=prepared.cwd,
        work=root / case["name"] / "py",
        stdin=prepared.stdin,
        seconds=case.get("seconds", DEFAULT_SECONDS),
        env=env,
    )
    return prepared, run


@pytest.fixture(scope="module")
def python_runs(tmp_path_factory: pytest.TempPathFactory, sitecustomize: Path) -> dict[str, tuple[Prepared, Run | None]]:
    """Every case through the Python CLI, a few at a time (each run is mostly interpreter start-up)."""
    assert SCRIPT.exists(), f"{SCRIPT} missing: install the package (./noxw builds .venv)"
    root = tmp_path_factory.mktemp("hostile")
    workers = max(2, min(4, os.cpu_count() or 2))
    with ThreadPoolExecutor(workers) as pool:
        futures = {case["name"]: pool.submit(_python, case, root, sitecustomize) for case in CASES}
        return {name: future.result() for name, future in futures.items()}


# --- checks --------------------------------------------------------------------------------------------


def _report(run: Run) -> dict[str, Any]:
    try:
        report: dict[str, Any] = json.loads(run.stdout)
        return report
    except json.JSONDecodeError:
        pytest.fail(f"no JSON report on stdout (status {run.status}); stderr:\n{run.stderr[-2000:]}")


# how node prints an uncaught error's stack: "    at f (file.js:1:2)", "    at node:internal/…"
NODE_STACK = re.compile(r"^\s+at .*(?:\.js:\d+|node:internal)", re.MULTILINE)


def _check_bounded(case: dict[str, Any], run: Run) -> None:
    assert run.status is not None, f"{case['name']}: still running after {case.get('seconds', DEFAULT_SECONDS)} s (killed)"
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout[:10000], run.stderr[-3000:]
    assert not NODE_STACK.search(run.stderr), run.stderr[-3000:]
    assert run.status >= 0, f"killed by signal {-run.status}"
    assert run.seconds < case.get("seconds", DEFAULT_SECONDS)
    if run.peak_rss is not None:
        limit = case.get("rss_mb", MEMORY_LIMIT >> 20) << 20
        assert run.peak_rss < limit, f"peak RSS {run.peak_rss / 2**20:.0f} MiB, limit {limit >> 20} MiB"
    assert run.network == [], f"tried to use the network: {run.network}"


def _check_report(case: dict[str, Any], run: Run, *, python: bool) -> None:
    assert run.status == case["exit"], f"exit {run.status}, expected {case['exit']}; stderr:\n{run.stderr[-2000:]}"
    if not case.get("report", True):
        assert run.stdout.strip() == ""
        assert case["stderr"] in run.stderr
        return
    report = _report(run)
    files = report["files"]
    codes = {e["code"] for f in files for e in f["errors"]}
    assert codes == set(case["codes"]), json.dumps(files, indent=1)[:3000]
    for entry in files:
        for finding in entry["errors"] + entry["warnings"]:
            assert finding["code"] in LEDGER
            assert finding["severity"] in ("error", "warning")
            assert finding["message"].strip(), finding
            assert finding["pointer"] == "" or finding["pointer"].startswith("/")
        if any(e["code"] in FILE_SCOPE for e in entry["errors"]):
            assert entry["valid"] is False and len(entry["errors"]) == 1, entry
        assert entry["valid"] == (not entry["errors"])
    if "pointers" in case:
        assert sorted(e["pointer"] for f in files for e in f["errors"]) == sorted(case["pointers"])
    unreadable = sum(1 for f in files if any(e["code"] in FILE_SCOPE for e in f["errors"]))
    summary = report["summary"]
    assert summary["files"] == len(files)
    assert summary["unreadable"] == unreadable
    assert summary["invalid"] == sum(1 for f in files if not f["valid"]) - unreadable
    assert summary["valid"] == sum(1 for f in files if f["valid"])
    if "entries" in case:
        assert len(files) == len(case["entries"])
        for entry, want in zip(files, case["entries"]):
            assert entry["valid"] is want["valid"], entry
            if "line" in want and python:  # the TypeScript CLI reads JSON files only
                assert entry.get("line") == want["line"]
            assert {e["code"] for e in entry["errors"]} == set(want.get("codes", []))
    elif case["input"].get("special") != "mixed":
        assert len(files) == 1


def _position_of(case: dict[str, Any], run: Run) -> tuple[int | None, int | None]:
    report = _report(run)
    for entry in report["files"]:
        for finding in entry["errors"]:
            if finding["code"] == case["codes"][0]:
                return finding.get("line"), finding.get("column")
    raise AssertionError(f"no {case['codes'][0]} finding")


def _xfail(reason: str | None) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def _param(case: dict[str, Any], reason: str | None) -> Any:
    return pytest.param(case["name"], id=case["name"], marks=_xfail(reason))


def test_corpus_is_large_enough() -> None:
    from hostile_inputs import BUILDERS

    assert len(ALL_CASES) >= 150
    assert sum(case.get("origin") == "issue 39" for case in ALL_CASES) >= 100, "issue 39: 100 cases across its classes"
    assert len({c["name"] for c in ALL_CASES}) == len(ALL_CASES)
    for case in ALL_CASES:
        assert set(case["codes"]) <= LEDGER, case["name"]
        assert set(case.get("js_codes", [])) <= LEDGER, case["name"]
        if "argv" in case:
            assert case["build"] in BUILDERS, case["name"]
            continue
        if "file" in case["input"]:
            assert (HOSTILE / case["input"]["file"]).is_file(), case["name"]
    committed = {p.relative_to(HOSTILE).as_posix() for p in (HOSTILE / "files").iterdir()}
    assert committed == {c["input"]["file"] for c in CASES if "file" in c["input"]}, "every committed input has a row"
    assert max(p.stat().st_size for p in (HOSTILE / "files").iterdir()) < 4096, "big inputs are generated, not committed"


@pytest.mark.slow
@pytest.mark.parametrize("name", [_param(c, c.get("bug")) for c in CASES])
def test_python_cli(name: str, python_runs: dict[str, tuple[Prepared, Run | None]]) -> None:
    case = BY_NAME[name]
    prepared, run = python_runs[name]
    if run is None:
        pytest.skip(prepared.skip or "not applicable")
    _check_bounded(case, run)
    _check_report(case, run, python=True)
    if name == "yaml-python-object-apply":
        assert not (prepared.cwd / "PWNED").exists(), "a YAML tag ran a command"


@pytest.mark.slow
@pytest.mark.parametrize("name", [_param(c, c.get("bug") or c.get("position_bug")) for c in CASES if "line" in c])
def test_python_cli_position(name: str, python_runs: dict[str, tuple[Prepared, Run | None]]) -> None:
    case = BY_NAME[name]
    prepared, run = python_runs[name]
    if run is None:
        pytest.skip(prepared.skip or "not applicable")
    assert run.status == case["exit"]
    assert _position_of(case, run) == (case["line"], case["column"])


# --- the same corpus read in pieces ---------------------------------------------------------------------

STREAMABLE = [c for c in CASES if "special" not in c["input"] or c["input"]["special"] in ("missing", "dev_zero", "fifo", "mixed")]


@pytest.fixture(scope="module")
def streamed_runs(tmp_path_factory: pytest.TempPathFactory, sitecustomize: Path) -> dict[str, tuple[Prepared, Run | None]]:
    """The file cases again with ``--stream always``: every JSON file is read in pieces where it can be."""
    root = tmp_path_factory.mktemp("hostile-streamed")

    def one(case: dict[str, Any]) -> tuple[Prepared, Run | None]:
        prepared = _prepare(case, root / case["name"] / "input")
        if prepared.skip:
            return prepared, None
        command = [str(SCRIPT), "validate", "--format", "json", "--stream", "always", *prepared.args, *prepared.paths]
        env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(sitecustomize), os.environ.get("PYTHONPATH", "")]))}
        return prepared, run_measured(
            command, cwd=prepared.cwd, work=root / case["name"] / "py", seconds=case.get("seconds", DEFAULT_SECONDS), env=env
        )

    with ThreadPoolExecutor(max(2, min(4, os.cpu_count() or 2))) as pool:
        futures = {case["name"]: pool.submit(one, case) for case in STREAMABLE}
        return {name: future.result() for name, future in futures.items()}


def _without_paths(report: dict[str, Any]) -> dict[str, Any]:
    return {**report, "files": [{k: v for k, v in entry.items() if k != "path"} for entry in report["files"]]}


@pytest.mark.slow
@pytest.mark.parametrize("name", [c["name"] for c in STREAMABLE])
def test_python_cli_streamed_reports_the_same(
    name: str, python_runs: dict[str, tuple[Prepared, Run | None]], streamed_runs: dict[str, tuple[Prepared, Run | None]]
) -> None:
    """Reading in pieces changes nothing a user sees: the same exit status and report (lines and columns
    included), within the same bounds."""
    case = BY_NAME[name]
    (prepared, whole), (_, streamed) = python_runs[name], streamed_runs[name]
    if whole is None or streamed is None:
        pytest.skip(prepared.skip or "not applicable")
    _check_bounded(case, streamed)
    assert streamed.status == whole.status
    assert _without_paths(_report(streamed)) == _without_paths(_report(whole))


# --- the same corpus through the TypeScript CLI ----------------------------------------------------------

# Rows whose bug is in the Python implementation only: the TypeScript CLI already behaves.
PYTHON_ONLY_BUGS = {
    "lone-surrogate-key",
    "deep-metadata-990-valid",
    "deep-metadata-500-valid",
    "deep-metadata-500-invalid",
    "version-huge-major",
    "schema-uri-huge-version",
    "empty-property-name",
}


def _js_applies(case: dict[str, Any]) -> bool:
    spec = case["input"]
    if case.get("js") is False or case.get("args") or ("special" in spec and spec["special"] not in ("missing", "chmod000")):
        return False
    if "file" in spec:
        return str(spec["file"]).endswith(".json")
    if "generate" in spec:
        return spec["generate"] not in ("bigint_yaml", "deep_yaml")
    return True


JS_CASES = [c for c in CASES if _js_applies(c)]


@pytest.fixture(scope="module")
def js_runs(tmp_path_factory: pytest.TempPathFactory, sitecustomize: Path) -> dict[str, tuple[Prepared, Run | None]]:
    if NODE is None or not JS_CLI.exists():
        missing_tool("the TypeScript CLI is not built (js/dist/cli.js) or node is missing")
    root = tmp_path_factory.mktemp("hostile-js")
    out: dict[str, tuple[Prepared, Run | None]] = {}
    for case in JS_CASES:
        prepared = _prepare(case, root / case["name"] / "input")
        if prepared.skip:
            out[case["name"]] = (prepared, None)
            continue
        command = [
            NODE,
            "--require",
            str(sitecustomize / "no-network.cjs"),
            "--max-old-space-size=1400",
            str(JS_CLI),
            "validate",
            "--format",
            "json",
            *prepared.paths,
        ]
        out[case["name"]] = (
            prepared,
            run_measured(
                command,
                cwd=prepared.cwd,
                work=root / case["name"] / "js",
                seconds=case.get("seconds", DEFAULT_SECONDS),
            ),
        )
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", [_param(c, None if c["name"] in PYTHON_ONLY_BUGS else c.get("bug")) for c in JS_CASES])
def test_typescript_cli(name: str, js_runs: dict[str, tuple[Prepared, Run | None]]) -> None:
    case = BY_NAME[name]
    prepared, run = js_runs[name]
    if run is None:
        pytest.skip(prepared.skip or "not applicable")
    _check_bounded(case, run)
    _check_report(case, run, python=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        _param(c, None if c["name"] in PYTHON_ONLY_BUGS else c.get("bug") or c.get("position_bug"))
        for c in JS_CASES
        if "line" in c and set(c["codes"]) <= FILE_SCOPE
    ],
)
def test_typescript_cli_position(name: str, js_runs: dict[str, tuple[Prepared, Run | None]]) -> None:
    case = BY_NAME[name]
    prepared, run = js_runs[name]
    if run is None:
        pytest.skip(prepared.skip or "not applicable")
    assert run.status == case["exit"]
    assert _position_of(case, run) == (case["line"], case["column"])


# --- rows that run any command line (tests/hostile_inputs.py builds their inputs) ----------------------------


def _js_ready() -> bool:
    return NODE is not None and JS_CLI.exists()


def _command_line(case: dict[str, Any], names: dict[str, Any]) -> list[str]:
    argv: list[str] = []
    for arg in case["argv"]:
        if arg == "{list}":
            argv.extend(names["list"])
        else:
            argv.append(arg.format(**{k: v for k, v in names.items() if isinstance(v, str)}))
    return argv


def _snapshot_inputs(names: dict[str, Any]) -> dict[str, bytes]:
    out = {}
    for key in ("in", "suite", "out"):
        path = Path(names[key]) if isinstance(names.get(key), str) else None
        if path is not None and len(str(path)) < 4096 and path.is_file() and not path.is_symlink() and path.stat().st_size < 64 << 20:
            out[key] = path.read_bytes()
    return out


def _run_built(case: dict[str, Any], root: Path, site: Path, js: bool) -> tuple[dict[str, Any], Run | None]:
    from hostile_inputs import BUILDERS

    folder = root / case["name"] / ("js" if js else "py")
    inputs = folder / "input"
    inputs.mkdir(parents=True)
    names = BUILDERS[case["build"]](inputs, case)
    if "skip" in names:
        return names, None
    argv = _command_line(case, names)
    if js:
        assert NODE is not None
        command = [NODE, "--require", str(site / "no-network.cjs"), "--max-old-space-size=1400", str(JS_CLI), *argv]
    else:
        command = [str(SCRIPT), *argv]
    if "wrap" in case:  # a shell around the command: closed or odd standard streams, pipes
        command = ["bash", "-c", case["wrap"].replace("{cmd}", shlex.join(command))]
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH", "")])), **case.get("env", {})}
    names["before"] = _snapshot_inputs(names)
    names["dev_null"] = os.stat("/dev/null").st_mode if os.path.exists("/dev/null") else None
    run = run_measured(
        command,
        cwd=inputs,
        work=folder / "w",
        stdin=names.get("stdin"),
        seconds=case.get("seconds", DEFAULT_SECONDS),
        env=env,
    )
    return names, run


def _built_runs(root: Path, site: Path, js: bool) -> dict[str, tuple[dict[str, Any], Run | None]]:
    rows = [c for c in BUILT if (c.get("js", False) if js else c.get("py", True))]
    with ThreadPoolExecutor(3) as pool:
        futures = {case["name"]: pool.submit(_run_built, case, root, site, js) for case in rows}
        return {name: future.result() for name, future in futures.items()}


@pytest.fixture(scope="module")
def built_python_runs(tmp_path_factory: pytest.TempPathFactory, sitecustomize: Path) -> dict[str, tuple[dict[str, Any], Run | None]]:
    assert SCRIPT.exists(), f"{SCRIPT} missing: install the package (./noxw builds .venv)"
    return _built_runs(tmp_path_factory.mktemp("hostile-built"), sitecustomize, js=False)


@pytest.fixture(scope="module")
def built_js_runs(tmp_path_factory: pytest.TempPathFactory, sitecustomize: Path) -> dict[str, tuple[dict[str, Any], Run | None]]:
    if not _js_ready():
        missing_tool("the TypeScript CLI is not built (js/dist/cli.js) or node is missing")
    return _built_runs(tmp_path_factory.mktemp("hostile-built-js"), sitecustomize, js=True)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _check_built(case: dict[str, Any], names: dict[str, Any], run: Run, *, js: bool) -> None:
    # "files": a report of that many entries (the report checks then hold for each, as for several paths)
    want = {
        **case,
        "input": {"special": "mixed"} if "files" in case else {},
        "exit": case.get("js_exit", case["exit"]) if js else case["exit"],
        "codes": case.get("js_codes", case["codes"]) if js else case["codes"],
        # V8 collects lazily: a row may give the TypeScript CLI a bound of its own (the streaming bound)
        **({"rss_mb": case["js_rss_mb"]} if js and "js_rss_mb" in case else {}),
    }
    _check_bounded(want, run)
    assert run.status == want["exit"], (
        f"exit {run.status}, expected {want['exit']}; stdout:\n{run.stdout[:1500]}\nstderr:\n{run.stderr[-2000:]}"
    )
    report = None
    if run.stdout.lstrip().startswith("{") and "wrap" not in case:
        report = json.loads(run.stdout, parse_constant=_no_constant)
    if isinstance(report, dict) and "files" in report:
        _check_report(want, run, python=not js)
        if "omitted" in case:
            assert [f.get("omitted", 0) for f in report["files"]] == [case["omitted"]]
        if "files" in case:
            assert len(report["files"]) == case["files"]
    else:
        found = set(re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", run.stdout + run.stderr)) & LEDGER
        assert found == set(want["codes"]), f"codes {sorted(found)}; stdout:\n{run.stdout[:1500]}\nstderr:\n{run.stderr[-1500:]}"
    for text in case.get("stdout_has", []):
        assert text in run.stdout, run.stdout[:2000]
    for text in case.get("stdout_lacks", []):
        assert text not in run.stdout, run.stdout[:2000]
    for text in case.get("stderr_has", []):
        assert text in run.stderr, run.stderr[-2000:]
    if case.get("strict_json"):
        json.loads(run.stdout, parse_constant=_no_constant)
    if case.get("one_line_each"):  # every line ours: nothing a document holds started a line of its own
        for line in run.stdout.splitlines():
            assert not line.startswith("::") or case.get("github"), line
            assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", line), repr(line)
        if case.get("github"):
            assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in run.stdout.splitlines()), run.stdout[:2000]
    for check in case.get("after", []):
        _after(check, names, case)


def _after(check: str, names: dict[str, Any], case: dict[str, Any]) -> None:
    before = names["before"]
    if check == "in_unchanged":
        assert Path(names["in"]).read_bytes() == before["in"]
    elif check == "out_unchanged":
        out = Path(names["out"])
        if "out" in before:
            assert out.read_bytes() == before["out"]
        else:
            assert not out.is_file() or out.is_symlink(), f"{out} was replaced by a regular file"
        if out.is_symlink():
            assert (out.parent / "real.html").read_text() == "keep me\n"
    elif check == "out_written":
        assert Path(names["out"]).read_text(encoding="utf-8").startswith("<!doctype html>")
    elif check == "dev_null_is_device":
        assert os.stat("/dev/null").st_mode == names["dev_null"] and stat.S_ISCHR(names["dev_null"])
    elif check == "link_kept":
        assert Path(names["in"]).is_symlink(), "the link was replaced by a regular file"
        assert Path(names["real"]).read_bytes() != (EXAMPLES / "pack-legacy-fail-on-violation.json").read_bytes(), "not migrated"
    elif check == "out_valid":  # an import that exits 0 wrote a suite and a result set that validate accepts
        from evalschema.interop import suite_path_for
        from evalschema.pipeline import validate_file

        suite_path = suite_path_for(Path(names["out"]))
        suite_report = validate_file(suite_path, "suite")
        assert suite_report.valid, suite_report.errors[:5]
        suite = json.loads(suite_path.read_text(encoding="utf-8"))
        report = validate_file(names["out"], "resultset", suite=suite)
        assert report.valid, report.errors[:5]
    elif check == "out_csv_neutralised":  # the cell the row set is written after a quote, never as it was
        import csv

        (_, value), *_ = case["set"]
        with open(names["out"], encoding="utf-8", newline="") as handle:
            cells = [cell for line in csv.reader(handle) for cell in line]
        assert "'" + value in cells and value not in cells, [c for c in cells if value.strip() in c]
    elif check == "no_missing_folder":
        assert not Path(names["out"]).parent.exists()
    else:
        raise AssertionError(f"unknown check {check!r}")


@pytest.mark.slow
@pytest.mark.parametrize("name", [_param(c, c.get("bug")) for c in BUILT if c.get("py", True)])
def test_python_cli_built(name: str, built_python_runs: dict[str, tuple[dict[str, Any], Run | None]]) -> None:
    names, run = built_python_runs[name]
    if run is None:
        pytest.skip(names["skip"])
    _check_built(BY_NAME[name], names, run, js=False)


@pytest.mark.slow
@pytest.mark.parametrize("name", [_param(c, c.get("js_bug")) for c in BUILT if c.get("js", False)])
def test_typescript_cli_built(name: str, built_js_runs: dict[str, tuple[dict[str, Any], Run | None]]) -> None:
    names, run = built_js_runs[name]
    if run is None:
        pytest.skip(names["skip"])
    _check_built(BY_NAME[name], names, run, js=True)


# --- wrong types at every level of every kind ------------------------------------------------------------

WRONG_VALUES: dict[str, Any] = {"null": None, "boolean": True, "number": 3.5, "string": "wrong", "array": [1], "object": {"x": 1}}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    names: dict[type, str] = {str: "string", list: "array", dict: "object"}
    return names[type(value)]


def _one_nested(value: Any, where: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The first scalar or container below ``value`` (depth-first), as a path: the "one nested value"."""
    if isinstance(value, dict) and value:
        key = sorted(value)[0]
        inner = _one_nested(value[key], (*where, key))
        return inner or (*where, key)
    if isinstance(value, list) and value:
        inner = _one_nested(value[0], (*where, 0))
        return inner or (*where, 0)
    return None


def _pointer(path: tuple[Any, ...]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in path)


def _set(document: Any, path: tuple[Any, ...], value: Any) -> None:
    for token in path[:-1]:
        document = document[token]
    document[path[-1]] = value


def wrong_type_variants() -> list[tuple[str, str, str, Any]]:
    """(file name, example, pointer, document): each top-level value and one nested value of every example,
    replaced with each JSON type it does not have."""
    variants = []
    for example in sorted(EXAMPLES.glob("*.json")):
        document = json.loads(example.read_text(encoding="utf-8"))
        paths = [(key,) for key in document] + [p for key in document if (p := _one_nested(document[key], (key,))) and len(p) > 1]
        for path in paths:
            current = document
            for token in path:
                current = current[token]
            for type_name, value in WRONG_VALUES.items():
                if type_name == _json_type(current):
                    continue
                variant = copy.deepcopy(document)
                _set(variant, path, copy.deepcopy(value))
                name = f"{example.stem}--{_pointer(path).strip('/').replace('/', '.')}--{type_name}.json"
                variants.append((name, example.name, _pointer(path), variant))
    return variants


@pytest.fixture(scope="module")
def wrong_types(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, str, str, Any]]]:
    folder = tmp_path_factory.mktemp("wrong-types")
    variants = wrong_type_variants()
    for name, _, _, document in variants:
        (folder / name).write_text(json.dumps(document, indent=2), encoding="utf-8")
    return folder, variants


@functools.cache
def _reference_validator(kind: str) -> Any:
    from schema_helpers import build_registry, load_schemas, make_validator

    return make_validator(kind, build_registry(load_schemas()))


def _reference_errors(kind: str, document: Any) -> list[str]:
    """Pointers of the plain Draft 2020-12 errors (python-jsonschema over schemas/, offline)."""
    return [_pointer(tuple(e.absolute_path)) for e in _reference_validator(kind).iter_errors(document)]


def _related(a: str, b: str) -> bool:
    return a == b or a.startswith(b + "/") or b.startswith(a + "/") or a == "" or b == ""


@pytest.mark.slow
def test_wrong_types_python(wrong_types: tuple[Path, list[tuple[str, str, str, Any]]], sitecustomize: Path) -> None:
    folder, variants = wrong_types
    assert len(variants) > 100
    env = {"PYTHONPATH": str(sitecustomize)}
    run = run_measured(
        [str(SCRIPT), "validate", "--format", "json", str(folder)], cwd=folder, work=folder.parent / "wt-py", env=env, seconds=120
    )
    _check_bounded({"name": "wrong-types"}, run)
    report = _report(run)
    # the variants of the example suite that keeps its test cases in a file name a file not copied here: their
    # TEST_CASES_FILE_UNREADABLE makes the run exit 2 (SPEC §3.4), and only that may
    followed = any(e["code"] == "TEST_CASES_FILE_UNREADABLE" for f in report["files"] for e in f["errors"])
    assert run.status in ((2,) if followed else (0, 1)), run.stderr[-3000:]
    by_name = {Path(f["path"]).name: f for f in report["files"]}
    assert len(by_name) == len(variants)
    any_invalid = False
    for name, example, where, document in variants:
        entry = by_name[name]
        kind = example.split("-")[0]
        codes = {e["code"] for e in entry["errors"]}
        assert not codes & FILE_SCOPE and codes <= LEDGER, name
        reference = _reference_errors(kind, document)
        if reference:
            any_invalid = True
            assert not entry["valid"], f"{name}: the schema rejects it ({reference}) but evalschema says valid"
            assert any(_related(e["pointer"], where) for e in entry["errors"]), (name, entry["errors"])
    assert any_invalid
    assert run.status == (2 if followed else 1 if any(not f["valid"] for f in report["files"]) else 0)


@pytest.mark.slow
def test_wrong_types_typescript_agrees(wrong_types: tuple[Path, list[tuple[str, str, str, Any]]], sitecustomize: Path) -> None:
    if NODE is None or not JS_CLI.exists():
        missing_tool("the TypeScript CLI is not built (js/dist/cli.js) or node is missing")
    folder, variants = wrong_types
    paths = [str(folder / name) for name, *_ in variants]
    py = run_measured(
        [str(SCRIPT), "validate", "--format", "json", *paths],
        cwd=folder,
        work=folder.parent / "wt-py2",
        env={"PYTHONPATH": str(sitecustomize)},
        seconds=120,
    )
    js = run_measured(
        [NODE, "--require", str(sitecustomize / "no-network.cjs"), str(JS_CLI), "validate", "--format", "json", *paths],
        cwd=folder,
        work=folder.parent / "wt-js",
        seconds=120,
    )
    _check_bounded({"name": "wrong-types-js"}, js)
    assert js.status == py.status
    python_files = {Path(f["path"]).name: f for f in _report(py)["files"]}
    disagreements = []
    for entry in _report(js)["files"]:
        name = Path(entry["path"]).name
        mine = sorted((e["code"], e["pointer"]) for e in python_files[name]["errors"])
        theirs = sorted((e["code"], e["pointer"]) for e in entry["errors"])
        if mine != theirs:
            disagreements.append(f"{name}: python {mine} typescript {theirs}")
    assert not disagreements, "\n".join(disagreements[:20])


# --- the harness itself ----------------------------------------------------------------------------------


def test_the_subprocess_network_recorder_works(sitecustomize: Path, tmp_path: Path) -> None:
    """The sitecustomize the corpus runs under really records and refuses a lookup and a connection."""
    code = (
        "import socket\nfor f in (lambda: socket.getaddrinfo('example.com', 443), lambda: socket.create_connection(('127.0.0.1', 9))):\n"
        "    try: f()\n    except OSError: pass\n"
    )
    run = run_measured([sys.executable, "-c", code], cwd=tmp_path, work=tmp_path / "w", env={"PYTHONPATH": str(sitecustomize)})
    assert run.status == 0, run.stderr
    assert len(run.network) == 2, run.network


def test_validate_lone_surrogates() -> None:
    """A JSON text may escape a lone surrogate ("\\ud800"); Python keeps it in the str. Validation must not crash."""
    import evalschema

    grader = {"id": "g", "type": "contains", "params": {"substring": "a"}}
    for document in (
        {"id": "t", "input": "\ud800", "graders": [grader]},
        {"id": "\ud800", "input": "x", "graders": [grader]},
        {"id": "t", "input": "x", "graders": [grader], "\udc00": 1},
        {"id": "t", "input": "x", "graders": [dict(grader, params="\ud800")]},
    ):
        report = evalschema.validate(document, "testcase")
        assert {f.code for f in report.errors} <= LEDGER


# --- nothing lost: atomic writes, check/diff never write, confined output paths -------------------------------


def _snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(folder).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.rglob("*")) if p.is_file()}


def _leftovers(parent: Path, name: str) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith(f".{name}."))


def test_codegen_write_failure_leaves_the_previous_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen import write

    out = tmp_path / "generated"
    (out / "python").mkdir(parents=True)
    (out / "python" / "models.py").write_bytes(b"old models\n")
    (out / "docs.md").write_bytes(b"old docs\n")
    before = _snapshot(out)
    tree = {f"python/m{i}.py": f"new {i}\n".encode() for i in range(10)} | {"docs.md": b"new docs\n"}
    calls = {"n": 0}
    real = write.write_file

    def failing(path: Path, content: bytes) -> None:
        calls["n"] += 1
        if calls["n"] > 4:
            raise OSError(28, "No space left on device")
        real(path, content)

    monkeypatch.setattr(write, "write_file", failing)
    with pytest.raises(OSError):
        write.write_tree(tree, out)
    assert _snapshot(out) == before
    assert _leftovers(tmp_path, "generated") == []
    monkeypatch.setattr(write, "write_file", real)
    write.write_tree(tree, out)
    assert {k: v for k, (v, _) in _snapshot(out).items()} == tree
    assert _leftovers(tmp_path, "generated") == []


def test_codegen_generate_failure_through_main_leaves_the_previous_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codegen import write
    from codegen.__main__ import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "generated"
    assert main(["generate", "--out", str(out)]) == 0
    before = _snapshot(out)
    calls = {"n": 0}
    real = write.write_file

    def failing(path: Path, content: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 7:
            raise OSError(5, "Input/output error")
        real(path, content)

    monkeypatch.setattr(write, "write_file", failing)
    try:
        status = main(["generate", "--out", str(out)])
    except OSError:
        status = None  # raising is acceptable in-process; the files are what matter
    assert status in (None, 2)
    assert _snapshot(out) == before
    assert _leftovers(tmp_path, "generated") == []


@pytest.fixture(scope="module")
def reference_tree(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What ``codegen generate`` writes from the repository's schemas (rendered once)."""
    from codegen.write import read_tree

    out = tmp_path_factory.mktemp("reference") / "generated"
    subprocess.run([sys.executable, "-m", "codegen", "generate", "--out", str(out)], cwd=ROOT, check=True, capture_output=True, timeout=120)
    return read_tree(out)


def _previous_tree(out: Path, reference: dict[str, bytes]) -> dict[str, bytes]:
    """A different earlier tree in ``out``: every file changed, plus one the new tree does not have."""
    from codegen.write import read_tree

    for rel, content in reference.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(b"previous " + content)
    (out / "stale-extra.txt").write_bytes(b"only in the previous tree\n")
    return read_tree(out)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.05, 0.3, 0.6, 0.9, 1.2, 1.6, 2.0])
def test_codegen_killed_mid_generate_is_old_or_new_never_mixed(delay: float, tmp_path: Path, reference_tree: dict[str, bytes]) -> None:
    from codegen.write import read_tree

    new = reference_tree
    out = tmp_path / "out"
    old = _previous_tree(out, reference_tree)
    process = subprocess.Popen(
        [sys.executable, "-m", "codegen", "generate", "--out", str(out)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    assert out.is_dir(), f"killed after {delay}s: {out} is gone (leftovers: {_leftovers(tmp_path, 'out')})"
    assert read_tree(out) in (old, new), f"killed after {delay}s: a mixed tree"


def test_codegen_killed_between_the_two_renames(tmp_path: Path, reference_tree: dict[str, bytes]) -> None:
    """Killed between its two renames, codegen leaves the previous tree aside; the next run puts it back."""
    from codegen.write import read_tree

    out = tmp_path / "out"
    old = _previous_tree(out, reference_tree)
    script = (
        "import os, signal, sys\n"
        "import codegen.write as w\n"
        "real = os.replace\n"
        "calls = []\n"
        "def replace(a, b):\n"
        "    real(a, b)\n"
        "    calls.append(b)\n"
        "    if len(calls) == 1: os.kill(os.getpid(), signal.SIGKILL)\n"
        "w.os.replace = replace\n"
        "from codegen.__main__ import main\n"
        f"sys.exit(main(['generate', '--out', {str(out)!r}]))\n"
    )
    process = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=120)
    assert process.returncode == -signal.SIGKILL
    assert not out.exists() and _leftovers(tmp_path, "out"), "the kill landed between the renames"
    from codegen.write import _recover

    _recover(out)
    assert out.is_dir() and read_tree(out) == old


def _pack(tmp_path: Path) -> Path:
    source = EXAMPLES / "pack-legacy-fail-on-violation.json"
    target = tmp_path / "pack.json"
    shutil.copyfile(source, target)
    return target


def test_migrate_failing_replace_leaves_the_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evalschema import migrate

    pack = _pack(tmp_path)
    before = _snapshot(tmp_path)

    def failing(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing)
    try:
        status = migrate.run([pack], check=False, write=lambda text: None)
    except OSError:
        status = None
    assert status in (None, 2)
    assert _snapshot(tmp_path) == before, "the pack changed, or a temporary file was left beside it"


def test_migrate_failing_write_leaves_the_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evalschema import migrate

    pack = _pack(tmp_path)
    before = _snapshot(tmp_path)

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    try:
        migrate.run([pack], check=False, write=lambda text: None)
    except OSError:
        pass
    assert _snapshot(tmp_path) == before


@pytest.mark.slow
def test_migrate_check_never_writes(tmp_path: Path) -> None:
    pack = _pack(tmp_path)
    before = _snapshot(tmp_path)
    run = run_measured([str(SCRIPT), "migrate", "--check", str(pack)], cwd=tmp_path, work=tmp_path.parent / f"{tmp_path.name}-w")
    assert run.status == 1, run.stderr
    assert _snapshot(tmp_path) == before


def test_codegen_check_never_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from codegen.__main__ import main

    monkeypatch.chdir(ROOT)
    out = tmp_path / "generated"
    assert main(["generate", "--out", str(out)]) == 0
    first = sorted(p for p in out.rglob("*") if p.is_file())[0]
    first.write_bytes(b"stale\n")
    (out / "extra.txt").write_text("extra\n")
    (out / "python").rename(out / "python-moved")
    before, listing = _snapshot(tmp_path), sorted(p.name for p in tmp_path.iterdir())
    time.sleep(0.01)
    assert main(["check", "--out", str(out)]) == 1
    assert _snapshot(tmp_path) == before and sorted(p.name for p in tmp_path.iterdir()) == listing
    repo_before = _snapshot(ROOT / "generated")
    assert main(["check"]) == 0  # generated/ is up to date (the tests session checks it first)
    assert _snapshot(ROOT / "generated") == repo_before
    capsys.readouterr()


def test_diff_never_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from codegen.diff import diff

    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(ROOT / "schemas", old)
    shutil.copytree(ROOT / "schemas", new)
    target = sorted(new.glob("*.json"))[0]
    schema = json.loads(target.read_text())
    schema["description"] = "changed " + str(schema.get("description", ""))
    target.write_text(json.dumps(schema, indent=2))
    before = _snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)
    diff(old, new)
    import codegen.__main__ as entry
    from evalschema.cli import main as evalschema_main

    # a description changed: a patch, nothing breaking, so both commands exit 0
    assert entry.main(["diff", str(old), str(new), "--format", "json"]) == 0
    assert evalschema_main(["diff", str(old), str(new)]) == 0
    assert _snapshot(tmp_path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "old"]
    capsys.readouterr()


@pytest.mark.parametrize(
    "rel", ["../x", "../../etc/passwd", "/abs/x", "/", "a/../../x", "a/..", "..", "a\\..\\x", "C:\\x", "\\x", "", ".", "a//"]
)
def test_output_paths_cannot_escape(rel: str, tmp_path: Path) -> None:
    from codegen.write import UnsafePath, _safe, write_tree

    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("previous\n")
    try:
        safe = _safe(rel)
    except UnsafePath:
        safe = None
    if safe is not None:  # normalised to a path inside (e.g. "a//" -> "a"): it must really be inside
        assert not Path(safe).is_absolute() and ".." not in Path(safe).parts and "\\" not in safe
        return
    before = _snapshot(tmp_path)
    with pytest.raises(UnsafePath):
        write_tree({rel: b"escaped\n", "ok.txt": b"ok\n"}, out)
    assert _snapshot(tmp_path) == before
    assert _leftovers(tmp_path, "out") == []


def test_layout_cannot_escape_through_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from codegen.__main__ import main

    config = tmp_path / "pyproject.toml"
    config.write_text(
        f'[tool.codegen]\nschemas = "{(ROOT / "schemas").as_posix()}"\nout = "out"\nlayout = {{ python = "../../escaped" }}\n'
    )
    status = main(["generate", "--config", str(config)])
    assert status == 2
    assert "escapes" in capsys.readouterr().err
    assert not (tmp_path.parent / "escaped").exists() and not (tmp_path / "out").exists()


def test_migrate_says_exactly_which_packs_it_rewrote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two packs, the second cannot be written (as a read-only folder would, even for root): the first is rewritten
    and said to be; the second is unchanged and said to be; nothing claims that "nothing was changed"."""
    import evalschema.migrate as migrate_module
    from evalschema import migrate
    from evalschema.io.atomic import write_atomic as real

    first, second = tmp_path / "a" / "pack.json", tmp_path / "b" / "pack.json"
    for pack in (first, second):
        pack.parent.mkdir()
        shutil.copyfile(EXAMPLES / "pack-legacy-fail-on-violation.json", pack)
    original = second.read_bytes()

    def refuse_b(path: Path, data: bytes) -> None:
        if path.parent.name == "b":
            raise PermissionError(13, "Permission denied")
        real(path, data)

    monkeypatch.setattr(migrate_module, "write_atomic", refuse_b)
    said: list[str] = []
    assert migrate.run([first, second], check=False, write=said.append) == 2
    assert first.read_bytes() != (EXAMPLES / "pack-legacy-fail-on-violation.json").read_bytes()
    assert second.read_bytes() == original
    assert f"evalschema migrate: {second}: cannot write: Permission denied; the file is unchanged\n" in said
    assert said[-1] == f"evalschema migrate: rewritten: {first}; every other file is unchanged\n"
    assert not any("nothing was changed" in line for line in said)
