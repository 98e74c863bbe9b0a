"""Names that are also JavaScript's own property names (``__proto__``, ``constructor``, ``toString``,
``hasOwnProperty``) are ids like any other (issue 39): the TypeScript SDK reports what the Python SDK reports for
documents whose grader ids, test case ids, prompt names and ``by_grader`` keys are such names — every finding,
``summarize``'s text and JSON, and the comparison document of ``compare()``.

The documents are the conformance fixtures with their ids renamed, consistently in values and keys (so a fixture
that was valid stays valid, and one that was not fails the same rule).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import yaml

from evalschema.compare import Options, compare

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "spec" / "conformance"
NAMES = ("__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__")
ID_FIELDS = {"id", "grader_id", "test_case_id"}
ID_MAPS = {"by_grader", "prompts", "graders"}


def _ids(value: Any, found: list[str]) -> None:
    """Every id a document names: id fields, the keys of maps keyed by id, a test case's list of grader ids."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ID_FIELDS and isinstance(item, str):
                found.append(item)
            if key in ID_MAPS and isinstance(item, dict):
                found.extend(item)
            if key == "graders" and isinstance(item, list):
                found.extend(x for x in item if isinstance(x, str))
            _ids(item, found)
    elif isinstance(value, list):
        for item in value:
            _ids(item, found)


def _renamed(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {names.get(k, k): _renamed(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, names) for v in value]
    return names.get(value, value) if isinstance(value, str) else value


def _renaming(*documents: Any) -> dict[str, str]:
    found: list[str] = []
    for document in documents:
        _ids(document, found)
    distinct = list(dict.fromkeys(found))
    return {old: NAMES[i % len(NAMES)] + (str(i) if i >= len(NAMES) else "") for i, old in enumerate(distinct)}


def _run(command: list[str], cwd: Path) -> tuple[int, str, str]:
    out = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})
    return out.returncode, out.stdout, out.stderr


@pytest.fixture(scope="module")
def renamed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[tuple[str | None, str | None], list[str]]]:
    """Every conformance fixture that names an id, renamed, grouped by (kind, suite file) for one run per group."""
    folder = tmp_path_factory.mktemp("proto_ids")
    groups: dict[tuple[str | None, str | None], list[str]] = defaultdict(list)
    for path in sorted(CONFORMANCE.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        names = _renaming(case["document"], case.get("suite"))
        if not names:
            continue
        (folder / path.name).write_text(json.dumps(_renamed(case["document"], names), indent=1), encoding="utf-8")
        suite = None
        if "suite" in case:
            suite = f"{path.stem}.suite.json"
            (folder / suite).write_text(json.dumps(_renamed(case["suite"], names), indent=1), encoding="utf-8")
        groups[(case["kind"], suite)].append(path.name)
    assert sum(map(len, groups.values())) >= 200, "too few renamed fixtures: this test would prove little"
    return folder, groups


@pytest.mark.parametrize("stream", ["never", "always"])
def test_validate_agrees_on_proto_like_ids(
    stream: str, renamed: tuple[Path, dict[tuple[str | None, str | None], list[str]]], built_js: Path
) -> None:
    folder, groups = renamed
    disagreements = []
    for (kind, suite), paths in groups.items():
        args = [
            "validate",
            "--format",
            "json",
            "--stream",
            stream,
            *(["--kind", kind] if kind else []),
            *(["--suite", suite] if suite else []),
            *paths,
        ]
        python = _run([sys.executable, "-m", "evalschema", *args], folder)
        typescript = _run(["node", str(built_js), *args], folder)
        assert python[1], f"the Python command printed nothing for {paths}: {python[2]}"
        if (typescript[0], json.loads(typescript[1])) != (python[0], json.loads(python[1])):
            disagreements.append((kind, suite, python[1], typescript[1]))
    assert disagreements == []


def test_yaml_and_json_lines_agree_on_proto_like_ids(
    renamed: tuple[Path, dict[tuple[str | None, str | None], list[str]]], built_js: Path
) -> None:
    """The same documents read by the YAML reader and as JSON Lines (where a key is made by another reader)."""
    folder, groups = renamed
    disagreements = []
    for (kind, _), paths in groups.items():
        copies = []
        for name in paths:
            document = json.loads((folder / name).read_text(encoding="utf-8"))
            stem = name.removesuffix(".json")
            (folder / f"{stem}.yaml").write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
            (folder / f"{stem}.jsonl").write_text(json.dumps(document) + "\n", encoding="utf-8")
            copies += [f"{stem}.yaml", f"{stem}.jsonl"]
        args = ["validate", "--format", "json", *(["--kind", kind] if kind else []), *copies]
        python = _run([sys.executable, "-m", "evalschema", *args], folder)
        typescript = _run(["node", str(built_js), *args], folder)
        if (typescript[0], json.loads(typescript[1])) != (python[0], json.loads(python[1])):
            disagreements.append((kind, python[1], typescript[1]))
    assert disagreements == []


def _proto_resultset() -> dict[str, Any]:
    case = json.loads((CONFORMANCE / "summary_mismatch__correct_summary.json").read_text(encoding="utf-8"))
    document: dict[str, Any] = _renamed(case["document"], _renaming(case["document"]))
    return document


def test_the_renamed_result_set_has_proto_like_graders() -> None:
    document = _proto_resultset()
    assert set(document["summary"]["by_grader"]) <= set(NAMES) and "__proto__" in document["summary"]["by_grader"]


@pytest.mark.parametrize("args", [[], ["--format", "json"], ["--stream", "always"], ["--format", "json", "--stream", "always"]])
def test_summarize_agrees_on_proto_like_ids(args: list[str], tmp_path: Path, built_js: Path) -> None:
    (tmp_path / "rs.json").write_text(json.dumps(_proto_resultset(), indent=1), encoding="utf-8")
    (tmp_path / "rs.jsonl").write_text(json.dumps(_proto_resultset()) + "\n", encoding="utf-8")
    python = _run([sys.executable, "-m", "evalschema", "summarize", *args, "rs.json", "rs.jsonl"], tmp_path)
    typescript = _run(["node", str(built_js), "summarize", *args, "rs.json", "rs.jsonl"], tmp_path)
    assert python[0] == 0 and "__proto__" in python[1]
    assert (typescript[0], typescript[1], typescript[2]) == python


COMPARE_SCRIPT = """
import { compare } from %s;
import { readFileSync } from "node:fs";
const [base, next] = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(compare(base, next, { seed: 7, resamples: 50 })));
"""


def _close(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and set(actual) == set(expected) and all(_close(actual[k], expected[k]) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(actual) == len(expected) and all(map(_close, actual, expected))
    if isinstance(expected, float) and isinstance(actual, (int, float)) and not isinstance(actual, bool):
        return math.isclose(actual, expected, rel_tol=0, abs_tol=1e-9)
    return bool(actual == expected) and type(actual) is type(expected)


def test_compare_agrees_on_proto_like_ids(built_js: Path) -> None:
    """Grader ids in the rows and in the ``graders`` provenance map, changed between the runs."""
    base = _proto_resultset()
    new = json.loads(json.dumps(base))
    base["graders"] = {"__proto__": {"type": "exact_match", "version": "1"}, "toString": {"type": "regex"}}
    new["graders"] = {"__proto__": {"type": "exact_match", "version": "2"}, "hasOwnProperty": {"type": "regex"}}
    new["results"][0]["passed"] = False
    new["results"][0]["grader_results"][0]["score"] = 0.5
    index = built_js.parent / "index.js"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", COMPARE_SCRIPT % json.dumps(index.as_uri())],
        input=json.dumps([base, new]),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    python = json.loads(json.dumps(compare(base, new, Options(seed=7, resamples=50))))
    assert {"__proto__", "constructor", "toString", "hasOwnProperty"} <= set(python["base"]["graders"]) | set(python["new"]["graders"])
    assert _close(json.loads(done.stdout), python), (done.stdout, python)
