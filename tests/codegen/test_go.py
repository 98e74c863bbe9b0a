"""The committed Go output (generated/go): go vet, gofmt, and every valid conformance fixture round-trips.

Each fixture of spec/conformance with ``expect.valid: true`` is decoded into the root type of its kind's schema
file by the generated ``roundtrip_test.go`` and encoded again; the two JSON values must be equal (member order
aside). Go comes from Debian's golang-go (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from codegen_helpers import REPO
from tools import missing_tool

from evalschema.schemas.identify import identify

GO = REPO / "generated" / "go"


@pytest.fixture(autouse=True)
def _go_is_installed() -> None:
    if shutil.which("go") is None:
        missing_tool("go not installed (.ci/run installs golang-go)")


def go_env(tmp_path: Path) -> dict[str, str]:
    # offline and outside any workspace: the package imports the standard library only
    return {**os.environ, "GOWORK": "off", "GOPROXY": "off", "GOFLAGS": "", "GOTOOLCHAIN": "local"}


def valid_fixtures() -> list[tuple[str, str, dict[str, object]]]:
    out = []
    for path in sorted((REPO / "spec" / "conformance").glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        if case.get("expect", {}).get("valid") is True:
            kind = case.get("kind") or identify(case["document"], None).kind
            out.append((path.name, f"{kind}.json", case["document"]))
    return out


def test_go_vet_and_gofmt(tmp_path: Path) -> None:
    work = tmp_path / "go"
    shutil.copytree(GO, work)
    vet = subprocess.run(["go", "vet", "./..."], cwd=work, env=go_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert vet.returncode == 0, vet.stderr
    if shutil.which("gofmt"):
        fmt = subprocess.run(["gofmt", "-l", "."], cwd=work, capture_output=True, text=True, timeout=120)
        assert fmt.stdout == "", f"not gofmt-clean: {fmt.stdout}"


def test_every_valid_fixture_round_trips_through_go(tmp_path: Path) -> None:
    fixtures = valid_fixtures()
    assert len(fixtures) > 90
    data = tmp_path / "data" / "evalschema"
    for name, schema_file, document in fixtures:
        target = data / schema_file
        target.mkdir(parents=True, exist_ok=True)
        (target / name).write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    work = tmp_path / "go"
    shutil.copytree(GO, work)
    env = {**go_env(tmp_path), "CODEGEN_ROUNDTRIP_DIR": str(tmp_path / "data")}
    proc = subprocess.run(["go", "test", "-count=1", "-v", "./..."], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "--- PASS: TestRoundTrip" in proc.stdout


def test_harness_fails_on_a_document_that_does_not_round_trip(tmp_path: Path) -> None:
    """The harness can fail: a member the Go type cannot hold (a number where a string is declared)."""
    data = tmp_path / "data" / "evalschema" / "grader.json"
    data.mkdir(parents=True)
    (data / "bad.json").write_text(json.dumps({"id": 5, "type": "exact match"}), encoding="utf-8")
    work = tmp_path / "go"
    shutil.copytree(GO, work)
    env = {**go_env(tmp_path), "CODEGEN_ROUNDTRIP_DIR": str(tmp_path / "data")}
    proc = subprocess.run(["go", "test", "-count=1", "./..."], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode != 0 and "bad.json: decode" in proc.stdout, proc.stdout


def test_readme_go_example_reads_a_promptpack_pack(tmp_path: Path) -> None:
    """The README's Go program, built against generated/go, on a PromptPack example pack (from its docs)."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    program = readme.split("From Go (", 1)[1].split("```go\n", 1)[1].split("```", 1)[0]
    pack_path = REPO / "tests" / "codegen" / "corpus" / "promptpack" / "instances" / "example-1.json"
    pack = json.loads(pack_path.read_text(encoding="utf-8"))
    work = tmp_path / "example"
    work.mkdir()
    shutil.copytree(GO, tmp_path / "evalschema")
    (work / "main.go").write_text(program, encoding="utf-8")
    (work / "go.mod").write_text(
        "module example\n\ngo 1.19\n\nrequire evalschema v0.0.0\n\nreplace evalschema => ../evalschema\n", encoding="utf-8"
    )
    proc = subprocess.run(["go", "run", ".", str(pack_path)], cwd=work, env=go_env(tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    expected = [f"{pack['id']} {pack['version']}: {pack['name']}"] + [
        f"  {name}: {prompt['name']} ({len(prompt.get('variables', []))} variables)" for name, prompt in sorted(pack["prompts"].items())
    ]
    assert proc.stdout.splitlines() == expected


def test_validate_agrees_with_jsonschema_rs_on_every_fixture(tmp_path: Path) -> None:
    """Every conformance fixture's document, valid or not, through the Go root type of its kind (decoding, then
    ``Validate``) agrees with jsonschema-rs on the same bundled schema, formats asserted on both sides. The harness names the documents jsonschema-rs refuses ``invalid-*``: decoding or Validate must refuse
    them, and ``valid-*`` the others: they must decode, validate and round-trip."""
    import jsonschema_rs

    from codegen.load import load
    from codegen.targets.bundle import bundle

    schemas = load(REPO / "schemas")
    checks: dict[str, Any] = {}
    data = tmp_path / "data" / "evalschema"
    verdicts: Counter[bool] = Counter()
    for path in sorted((REPO / "spec" / "conformance").glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        kind = case.get("kind") or identify(case["document"], None).kind
        if kind is None or not (REPO / "schemas" / f"{kind}.json").is_file():
            continue  # a document of no kind (not an object, say): no root type to decode it into
        schema_file = f"{kind}.json"
        if schema_file not in checks:
            checks[schema_file] = jsonschema_rs.validator_for(bundle(schemas, schema_file), validate_formats=True)
        valid = bool(checks[schema_file].is_valid(case["document"]))
        verdicts[valid] += 1
        target = data / schema_file
        target.mkdir(parents=True, exist_ok=True)
        (target / (("valid-" if valid else "invalid-") + path.name)).write_text(
            json.dumps(case["document"], ensure_ascii=False), encoding="utf-8"
        )
    assert verdicts[True] > 90 and verdicts[False] > 30, verdicts
    work = tmp_path / "go"
    shutil.copytree(GO, work)
    env = {**go_env(tmp_path), "CODEGEN_ROUNDTRIP_DIR": str(tmp_path / "data")}
    proc = subprocess.run(["go", "test", "-count=1", "-v", "./..."], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "--- PASS: TestRoundTrip" in proc.stdout
