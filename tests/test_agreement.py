"""Cross-language agreement: the TypeScript SDK (``js/``, its ``evalschema-js`` CLI) and the Python SDK give the same
findings — the same sets of (code, pointer) for errors and for warnings — and the same reference summaries.

Documents: every conformance fixture, every example, a few thousand deterministic mutants of the valid ones, and
a handful of files that cannot be read or parsed. They are written to a temporary directory and checked by one
``node js/dist/cli.js`` run per batch (not per file), and by the Python SDK through the same loading path.
"""

from __future__ import annotations

import copy
import json
import math
import os
import random
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from schema_helpers import value_paths

from evalschema.casesfile import follow
from evalschema.loader import load_path
from evalschema.findings import Report
from evalschema.summary import summarize
from evalschema.validate import validate

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js"
CLI = JS / "dist" / "cli.js"
MUTANTS = 3000
BATCH = 400
SEED = 20261130

REPLACEMENTS: list[Any] = [
    None, True, False, -3, -1, 0, 1, 2, 3, -1.5, 0.25, 0.5, 1.5, 2.5,
    "", "x", "(", "[a-", "2026-13-01", "2026-02-29", "2024-02-29", "2026-11-30T09:15:00Z", "2026-11-30T09:15:00",
    "2026-11-30 09:15:00Z", "1.1.0", "v1.2.3", "2.0.0", "1.2.0", "{output}", "Rate {input} please",
    "contains", "regex", "llm_judge", "custom", "code", "json_path", "regex_match", "timeout",
    "https://evalschema.org/schema/2.0.0/resultset.json", "https://evalschema.org/schema/1.2.0/grader.json",
    "https://example.com/schema.json",
    [], [1], ["x"], {}, {"unexpected": 1}, {"id": "g1"},
]  # fmt: skip
ADDED_KEYS = [
    "extra", "passed", "score", "attempt", "id", "error", "type", "params", "pattern", "version", "$schema",
    "fail_on_violation", "invalidates_result", "handler", "test_cases_file", "summary",
]  # fmt: skip

BROKEN_FILES: dict[str, bytes] = {
    "empty": b"",
    "blank": b"  \n ",
    "truncated_object": b'{\n  "id": "x",\n  "type": ',
    "missing_value": b'{\n  "id": "x",\n  "type": }',
    "trailing_comma_object": b'{"id": "x",}',
    "trailing_comma_array": b'{"results": [1, 2,]}',
    "missing_colon": b'{"id" "x"}',
    "missing_comma": b'{"id": "x" "type": "y"}',
    "single_quotes": b"{'id': 'x'}",
    "extra_data": b'{"id": "x"} {}',
    "bad_escape": b'{"id": "a\\qb"}',
    "bad_unicode_escape": b'{"id": "\\u12G4"}',
    "control_char": b'{"id": "a\tb"}',
    "unterminated": b'{"id": "abc',
    "nan": b'{"weight": NaN}',
    "infinity": b'{"weight": -Infinity}',
    "leading_zero": b'{"weight": 01}',
    "bare_minus": b'{"weight": -}',
    "duplicate_key": b'{"id": "x", "id": "y"}',
    "nested_duplicate": b'{"a": {"k": 1, "k": 2}, "b": }',
    "duplicate_after_error": b'{"k": 1, "k": 2, "b": }',
    "bom": b'\xef\xbb\xbf{"id": "x"}',
    "latin1": b'{\n"id": "caf\xe9"}',
    "latin1_after_utf8": b'{"a": "\xc3\xa9\xc3\xa9",\n "id": "caf\xe9"}',
    "non_ascii_column": b'{"id": "\xc3\xa9\xc3\xa9", "x": }',
    "not_object": b"[1, 2, 3]",
    "float_overflow": b'{"weight": 1e400}',
    "integer_beyond_double": b'{"weight": ' + b"9" * 400 + b"}",
    "integer_309_digits_beyond_double": b'{"weight": ' + b"9" * 309 + b"}",
    "integer_309_digits_within_double": b'{"weight": 1' + b"0" * 308 + b"}",
    "latin1_same_line_after_utf8": b'{"a": "\xc3\xa9\xc3\xa9", "id": "caf\xe9"}',
    "string_document": b'"just a string"',
}


def _node() -> str | None:
    return shutil.which("node")


def _stale() -> bool:
    if not CLI.exists():
        return True
    built = CLI.stat().st_mtime
    sources = [*JS.glob("src/*.ts"), *(ROOT / "generated" / "typescript").glob("*.ts"), *(ROOT / "schemas").glob("*.json")]
    return any(p.stat().st_mtime > built for p in sources)


@pytest.fixture(scope="module")
def cli() -> Path:
    """``js/dist/cli.js``, built first if ``js/node_modules`` exists and the build is missing or stale."""
    if _node() is None:
        pytest.skip("node is not installed: the TypeScript SDK cannot run")
    if _stale():
        if not (JS / "node_modules").is_dir() or shutil.which("npm") is None:
            pytest.skip("js/dist/cli.js is missing or stale and js/node_modules is absent: run `npm ci && npm run build` in js/")
        subprocess.run(["npm", "run", "build"], cwd=JS, check=True, capture_output=True)
    if not CLI.exists():
        pytest.skip("js/dist/cli.js is absent: run `npm ci && npm run build` in js/")
    return CLI


# --- the corpus --------------------------------------------------------------------------------------------


def _mutate(rng: random.Random, document: Any) -> Any:
    document = copy.deepcopy(document)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(value_paths(document))
        if not path:
            continue
        parent = document
        for step in path[:-1]:
            parent = parent[step]
        action = rng.choice(["replace", "replace", "delete", "add"])
        if action == "replace":
            parent[path[-1]] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent[path[-1]], dict):
            parent[path[-1]][rng.choice(ADDED_KEYS)] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif isinstance(parent[path[-1]], list):
            parent[path[-1]].append(copy.deepcopy(rng.choice(parent[path[-1]] or REPLACEMENTS)))
    return document


Case = dict[str, Any]  # name, document, kind, strict, allow_unknown, suite


def _corpus() -> list[Case]:
    cases: list[Case] = []
    for path in sorted((ROOT / "spec" / "conformance").glob("*.json")):
        fixture = json.loads(path.read_text())
        options = fixture.get("options", {})
        cases.append(
            {
                "name": f"fixture:{path.stem}",
                "document": fixture["document"],
                "kind": fixture["kind"],
                "strict": bool(options.get("strict")),
                "allow_unknown": bool(options.get("allow_unknown")),
                "suite": fixture.get("suite"),
            }
        )
    for path in sorted((ROOT / "spec" / "examples").glob("*.json")):
        cases.append({"name": f"example:{path.stem}", "document": json.loads(path.read_text()), "kind": None, "strict": False, "allow_unknown": False, "suite": None})
    seeds = [c for c in cases if isinstance(c["document"], dict)]
    rng = random.Random(SEED)
    for number in range(MUTANTS):
        seed = rng.choice(seeds)
        cases.append(
            {
                "name": f"mutant:{number}:{seed['name']}",
                "document": _mutate(rng, seed["document"]),
                "kind": seed["kind"] if rng.random() < 0.5 else None,
                "strict": rng.random() < 0.1,
                "allow_unknown": rng.random() < 0.2,
                "suite": seed["suite"],
            }
        )
    return cases


# --- running both SDKs -------------------------------------------------------------------------------------


def _pairs(findings: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return sorted({(f["code"], f["pointer"]) for f in findings})


def _answer(entry: dict[str, Any]) -> dict[str, Any]:
    """What must agree: kind, validity, unreadable, the (code, pointer) sets, and where a load problem is."""
    where = [(f.get("line"), f.get("column")) for f in entry["errors"] if entry["unreadable"]]
    return {
        "kind": entry["kind"],
        "valid": entry["valid"],
        "unreadable": entry["unreadable"],
        "errors": _pairs(entry["errors"]),
        "warnings": _pairs(entry["warnings"]),
        "load_position": where,
    }


def _python_entry(path: Path, kind: str | None, strict: bool, allow_unknown: bool, suite: Any) -> dict[str, Any]:
    """What ``evalschema validate --format json`` reports for one file (the same steps as evalschema/cli.py)."""
    loaded: Any = load_path(path)
    if not hasattr(loaded, "problem"):  # the loader yields one document per entry (JSON Lines): a .json file has one
        (loaded,) = list(loaded)
    if loaded.problem is not None:
        return {"unreadable": True, **Report.build(kind, [loaded.problem], strict=False).to_dict()}
    report = validate(loaded.document, kind, strict=strict, allow_unknown=allow_unknown, suite=suite)
    if report.kind == "suite":  # the CLI follows a suite's test_cases_file (none is beside these files)
        cases = follow(loaded.document, path, strict=strict, allow_unknown=allow_unknown)
        assert not cases.lines, "the corpus has no test cases files"
        if cases.problem is not None:
            report = Report.build(report.kind, [*report.findings, cases.problem], strict=strict)
    return {"unreadable": False, **report.to_dict()}


def _run_js(cli: Path, args: list[str]) -> Any:
    out = subprocess.run(["node", str(cli), *args], capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1, 2), f"evalschema-js crashed ({out.returncode}):\n{out.stderr}"
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"evalschema-js printed no JSON (exit {out.returncode}):\n{out.stderr[-4000:]}")


def _show(document: Any) -> str:
    text = json.dumps(document, indent=1, ensure_ascii=False) if not isinstance(document, bytes) else repr(document)
    return text if len(text) < 6000 else text[:6000] + "…"


def test_typescript_and_python_agree(cli: Path, tmp_path: Path) -> None:
    cases = _corpus()
    groups: dict[tuple[Any, ...], list[tuple[Case, bytes]]] = defaultdict(list)
    for case in cases:
        key = (case["kind"], case["strict"], case["allow_unknown"], json.dumps(case["suite"], sort_keys=True))
        groups[key].append((case, json.dumps(case["document"]).encode()))
    for name, data in BROKEN_FILES.items():
        groups[(None, False, False, "null")].append(({"name": f"broken:{name}", "document": data}, data))

    compared = 0
    disagreements: list[str] = []
    resultsets: list[tuple[Path, Case]] = []
    for group_number, ((kind, strict, allow_unknown, suite_text), members) in enumerate(sorted(groups.items(), key=lambda kv: repr(kv[0]))):
        suite = json.loads(suite_text)
        directory = tmp_path / f"group{group_number}"
        directory.mkdir()
        flags: list[str] = []
        if kind is not None:
            flags += ["--kind", kind]
        if strict:
            flags.append("--strict")
        if allow_unknown:
            flags.append("--allow-unknown")
        if suite is not None:
            suite_path = directory / "suite.json"
            suite_path.write_text(json.dumps(suite))
            flags += ["--suite", str(suite_path)]
        for start in range(0, len(members), BATCH):
            batch = members[start : start + BATCH]
            paths = []
            for index, (case, data) in enumerate(batch, start):
                path = directory / f"doc{index:05d}.json"
                path.write_bytes(data)
                paths.append(path)
                if isinstance(case["document"], dict) and ("results" in case["document"] or "run_id" in case["document"]):
                    resultsets.append((path, case))
            report = _run_js(cli, ["validate", "--format", "json", *flags, *map(str, paths)])
            assert len(report["files"]) == len(paths)
            for (case, _), path, js_entry in zip(batch, paths, report["files"]):
                assert js_entry["path"] == str(path)
                python = _answer(_python_entry(path, kind, strict, allow_unknown, suite))
                typescript = _answer(js_entry)
                compared += 1
                if python != typescript:
                    disagreements.append(
                        f"--- {case['name']} (kind={kind}, strict={strict}, allow_unknown={allow_unknown}, suite={suite is not None})\n"
                        f"document: {_show(case['document'])}\npython:     {python}\ntypescript: {typescript}"
                    )

    # the reference summary, for every result set (mutants included)
    summaries = 0
    for start in range(0, len(resultsets), BATCH):
        batch = resultsets[start : start + BATCH]
        out = {item["path"]: item["summary"] for item in _run_js(cli, ["summarize", "--force", "--format", "json", *(str(p) for p, _ in batch)])}
        for path, case in batch:
            expected = summarize(case["document"]).to_dict()
            summaries += 1
            if not _same_numbers(out.get(str(path)), expected):
                disagreements.append(f"--- summary of {case['name']}\ndocument: {_show(case['document'])}\npython:     {expected}\ntypescript: {out.get(str(path))}")

    message = f"{compared} documents compared, {summaries} summaries compared, {len(disagreements)} disagreement(s)"
    print(f"\n{message}")
    assert compared >= MUTANTS + 200, message
    assert not disagreements, message + "\n" + "\n".join(disagreements[:20])


def _same_numbers(actual: Any, expected: Any) -> bool:
    """Equal JSON values; numbers compare exactly up to float formatting (2 vs 2.0), within 1e-12 relative."""
    if isinstance(expected, bool) or isinstance(actual, bool) or expected is None or actual is None:
        return actual is expected or actual == expected and type(actual) is type(expected)
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-15)
    if isinstance(expected, dict) and isinstance(actual, dict):
        return actual.keys() == expected.keys() and all(_same_numbers(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(_same_numbers(a, e) for a, e in zip(actual, expected))
    return bool(actual == expected)


if os.environ.get("EVALSCHEMA_AGREEMENT_MUTANTS"):
    MUTANTS = int(os.environ["EVALSCHEMA_AGREEMENT_MUTANTS"])
