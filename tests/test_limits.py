"""The shared values (limits, sizes, kinds, telltales, version patterns, tolerances) are written once, in
spec/constants.json, generated into evalschema_models.constants and generated/typescript/constants.ts; both SDKs
must use those, never a copy of their own, and read the same environment variable the same way."""

from __future__ import annotations

import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tools import missing_tool

from evalschema import pipeline as streaming
from evalschema.cli import common as cli_common
from evalschema.core import limits
from evalschema.engine import schema_path
from evalschema.io import positions, stream
from evalschema.schemas import identify, registry
from evalschema_models import constants

summary_stage = importlib.import_module("evalschema.summary.stage")
ROOT = Path(__file__).resolve().parents[1]
SPEC = json.loads((ROOT / "spec" / "constants.json").read_text(encoding="utf-8"))["constants"]

# each value the Python SDK exposes, and the generated constant it must be
PYTHON_USES = {
    "MAX_INPUT_BYTES": limits.MAX_INPUT_BYTES,
    "MAX_INPUT_BYTES_CEILING": limits.MAX_INPUT_BYTES_CEILING,
    "MAX_FINDINGS": limits.MAX_FINDINGS,
    "MAX_VALUE_CHARS": limits.MAX_VALUE_CHARS,
    "YAML_NODE_LIMIT": limits.YAML_NODE_LIMIT,
    "INPUT_BYTES_VARIABLE": limits.INPUT_BYTES_VARIABLE,
    "MAX_DEPTH": positions.MAX_DEPTH,
    "STREAM_THRESHOLD": streaming.STREAM_THRESHOLD,
    "MAX_MEMBERS": stream.MAX_MEMBERS,
    "SUMMARY_TOLERANCE": summary_stage.SUMMARY_TOLERANCE,
    "KINDS": registry.KINDS,
    "KEYWORD_CODES": schema_path.KEYWORD_CODES,
}
# TypeScript: the module that exposes each value, and how it must get it
TYPESCRIPT_USES = {
    "core/limits.ts": ("MAX_INPUT_BYTES", "MAX_INPUT_BYTES_CEILING", "MAX_FINDINGS", "MAX_VALUE_CHARS", "INPUT_BYTES_VARIABLE"),
    "io/loader.ts": ("MAX_DEPTH",),
    "pipeline.ts": ("STREAM_THRESHOLD",),
    "io/stream.ts": ("MAX_MEMBERS",),
    "summary/mismatch.ts": ("SUMMARY_TOLERANCE", "NO_RESULTS"),
    "schemas/schemas.ts": ("KINDS",),
    "engine/schemaPath.ts": ("KEYWORD_CODES",),
    "cli/casesFile.ts": ("CROSS_CASE_CODES",),
    "schemas/identify.ts": ("KIND_TELLTALES", "SEMVER_PREFIX", "URI_VERSION"),
}


def _tuples(value: object) -> object:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name", sorted(SPEC))
def test_generated_python_constant_is_the_spec_value(name: str) -> None:
    from codegen.targets.catalogs import python_regex  # a regex constant is written in Python's syntax

    value = python_regex(SPEC[name]["value"]) if SPEC[name].get("regex") else SPEC[name]["value"]
    assert getattr(constants, name) == _tuples(value)


@pytest.mark.parametrize("name", sorted(PYTHON_USES))
def test_python_sdk_uses_the_generated_constant(name: str) -> None:
    """The SDK's value is the generated object itself (not an equal copy kept by hand)."""
    value = PYTHON_USES[name]
    assert value is getattr(constants, name) or (isinstance(value, int | float | str) and value == getattr(constants, name))


@pytest.mark.parametrize("module,name", [(m, n) for m, names in TYPESCRIPT_USES.items() for n in names])
def test_typescript_sdk_imports_the_generated_constant(module: str, name: str) -> None:
    text = (ROOT / "js" / "src" / module).read_text(encoding="utf-8")
    imports = re.findall(r'^(?:import|export) \{([^}]*)\} from "(?:\./|(?:\.\./)+)generated/constants\.js";$', text, re.MULTILINE)
    assert any(re.search(rf"\b{name}\b", names) for names in imports), f"js/src/{module} does not import {name} from generated/constants"
    assert not re.search(rf"^(?:export )?const {name}\b", text, re.MULTILINE), f"js/src/{module} defines its own {name}"


def test_python_sdk_defines_no_copy() -> None:
    """No module of the Python SDK assigns a literal to a name of the generated constants."""
    hits = []
    for path in sorted((ROOT / "evalschema").rglob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = re.match(r"^([A-Z_][A-Z0-9_]*)\s*(?::[^=]*)?=\s*(.+)$", line)
            if match and match.group(1).lstrip("_") in SPEC and "constants." not in match.group(2):
                hits.append(f"{path.relative_to(ROOT)}:{n}: {line}")
    assert not hits, "\n".join(hits)


def test_kind_detection_follows_the_telltales() -> None:
    """Each telltale, alone, detects its kind in both the table order and the SDK."""
    for kind, telltales in constants.KIND_TELLTALES.items():
        for name in telltales:
            assert identify.kind_from_shape({name: 1}) == kind


@pytest.mark.parametrize(
    "value,expected",
    [
        ("", limits.MAX_INPUT_BYTES),
        ("1000", 1000),
        (" 77 ", 77),
        ("0", limits.MAX_INPUT_BYTES),
        ("-5", limits.MAX_INPUT_BYTES),
        ("1e9", limits.MAX_INPUT_BYTES),
        ("lots", limits.MAX_INPUT_BYTES),
        ("9" * 16, limits.MAX_INPUT_BYTES),
        ("١٢٣", limits.MAX_INPUT_BYTES),
        ("9" * 15, limits.MAX_INPUT_BYTES_CEILING),
        (str(1 << 30), 1 << 30),
        (str((1 << 30) + 1), 1 << 30),
    ],
)
def test_the_variable_is_read_the_same_way(value: str, expected: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(limits.INPUT_BYTES_VARIABLE, value)
    assert limits.max_input_bytes() == expected
    node, built = shutil.which("node"), ROOT / "js" / "dist" / "core" / "limits.js"
    if node is None or not built.exists():
        missing_tool("node and js/dist (npm run build in js/) are needed to read the TypeScript limit")
    script = f"import('{built.as_uri()}').then(m => console.log(JSON.stringify(m.maxInputBytes())))"
    out = subprocess.run(
        [node, "-e", script], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", limits.INPUT_BYTES_VARIABLE: value}, check=True
    )
    assert json.loads(out.stdout) == expected


def test_shorten() -> None:
    assert limits.shorten("abc", 5) == "abc"
    assert limits.shorten("a" * 10, 4) == "aaaa… (6 more characters)"


def _capped_result_set(path: Path, rows: int) -> None:
    """A result set with a finding before its rows (``run_id``), one in each row (an unknown member; rows past
    10 sort before row 2 as pointers), and one after its rows (``created_at``): more findings than are listed."""
    row = {"test_case_id": "t", "grader_results": [], "passed": True, "surprise": 1}
    document = {
        "$schema": "https://evalschema.org/schema/1.2.0/resultset.json",
        "version": "1.1.0",
        "run_id": 7,
        "suite_id": "s",
        "results": [dict(row, test_case_id=f"t{i}") for i in range(rows)],
        "completed_at": "not a date",
    }
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")


def _listed(command: list[str]) -> tuple[int, list[tuple[int | None, str, str]], int]:
    run = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    (entry,) = json.loads(run.stdout)["files"]
    shown = [(f.get("line"), f["pointer"], f["code"]) for f in entry["errors"] + entry["warnings"]]
    return run.returncode, shown, entry.get("omitted", 0)


def test_the_finding_cap_keeps_the_first_findings_in_reading_order(tmp_path: Path, built_js: Path) -> None:
    """Past ``MAX_FINDINGS``, the CLIs list the findings a reader meets first (line by line) and count the rest —
    the same list whether the result set is streamed or read whole, and the same list from both CLIs."""
    path = tmp_path / "many.json"
    rows = 2 * limits.MAX_FINDINGS + 10  # more rows with findings than the streamed reader keeps: it trims them
    _capped_result_set(path, rows)
    found = 2 * rows + 3  # each row: UNKNOWN_FIELD and UNSCORED_RESULT_PASSED; the run: run_id, completed_at, started_at
    python = [sys.executable, "-m", "evalschema", "validate", "--format", "json", str(path), "--stream"]
    status, shown, omitted = _listed([*python, "always"])
    assert status == 1
    assert (len(shown), omitted) == (limits.MAX_FINDINGS, found - limits.MAX_FINDINGS)
    lines = [line for line, _, _ in shown if line is not None]
    assert len(lines) == len(shown) and lines == sorted(lines)
    last = limits.MAX_FINDINGS // 2 - 2  # the rows whose findings fill the list after the run's own two (line 1, line 4)
    assert shown[:2] == [(1, "/started_at", "REQUIRED_FIELD"), (4, "/run_id", "TYPE_MISMATCH")]
    assert shown[-1][1] == f"/results/{last}/surprise"
    assert _listed([*python, "never"]) == (status, shown, omitted)
    node = ["node", str(built_js), "validate", "--format", "json", str(path), "--stream"]
    assert _listed([*node, "always"]) == (status, shown, omitted)
    assert _listed([*node, "never"]) == (status, shown, omitted)


def test_constants_file_is_described_by_its_schema() -> None:
    import jsonschema

    schema = json.loads((ROOT / "spec" / "constants.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    document = json.loads((ROOT / "spec" / "constants.json").read_text(encoding="utf-8"))
    errors = [f"{e.json_path}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(document)]
    assert not errors, errors


def test_cli_reads_the_generated_read_error_codes() -> None:
    assert frozenset(constants.UNREADABLE_CODES) == cli_common.UNREADABLE_CODES
