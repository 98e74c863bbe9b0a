"""The bundled single-file schemas (``generated/schemas/``) work in other validators, offline, exactly as the
README's recipes use them — and those validators agree with ``evalschema validate`` on the schema rules.

Corpus: every example and the document of every conformance fixture (a fixture run with ``allow_unknown`` is
left out: that option turns a schema finding into a warning by design). For each document, evalschema's
verdict on the schema rules is "some error whose ledger rule is enforced by the schema"; code rules
(cross-document checks, duplicate ids, …) are what no schema-only validator can see. A document evalschema
decides before any schema (no kind, unreadable, a newer major version) has no schema verdict and is left out. The other validator's
verdict is its exit status per file. Both must be equal for every document of the corpus.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import allowlist
import pytest

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "generated" / "schemas"
NODE_MODULES = REPO / "js" / "node_modules"
SCHEMA_RULES = {r["id"] for r in json.loads((REPO / "spec" / "ledger.json").read_text())["rules"] if r["enforced_by"] == "schema"}
EVALSCHEMA = [sys.executable, "-m", "evalschema"]


def _corpus() -> list[tuple[str, str | None, Any]]:
    """(name, kind given to the validator or None to detect it, document)."""
    docs: list[tuple[str, str | None, Any]] = [
        (p.stem, None, json.loads(p.read_text())) for p in sorted((REPO / "spec" / "examples").glob("*.json"))
    ]
    for path in sorted((REPO / "spec" / "conformance").glob("*.json")):
        fixture = json.loads(path.read_text())
        if fixture.get("options", {}).get("allow_unknown"):
            continue
        docs.append((path.stem, fixture["kind"], fixture["document"]))
    return docs


DOCUMENTS = {name: document for name, _, document in _corpus()}


def _readme_block(marker: str) -> str:
    """The README's fenced code block that starts with ``marker`` (so the test runs what the README shows)."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    (block,) = [str(b) for b in blocks if b.startswith(marker)]
    return block


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bool]]:
    """evalschema's schema-rule verdict per file, the files grouped by the kind evalschema gives them."""
    root = tmp_path_factory.mktemp("corpus")
    by_given_kind: dict[str | None, list[Path]] = {}
    for name, kind, document in _corpus():
        path = root / f"{name}.json"
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        by_given_kind.setdefault(kind, []).append(path)
    grouped: dict[str, dict[str, bool]] = {}
    for kind, paths in by_given_kind.items():
        args = [*EVALSCHEMA, "validate", "--format", "json", *(["--kind", kind] if kind else []), *map(str, paths)]
        out = subprocess.run(args, capture_output=True, text=True, check=False, cwd=REPO)
        assert out.returncode in (0, 1, 2), out.stderr
        for entry in json.loads(out.stdout)["files"]:
            # no schema verdict: no kind, not readable, or a newer major version that is refused before any schema
            undecided = any(
                f["code"] in ("INVALID_JSON", "FILE_UNREADABLE", "DUPLICATE_KEY", "VERSION_UNSUPPORTED") for f in entry["errors"]
            )
            if entry["kind"] is None or undecided:
                continue
            invalid = any(f["code"] in SCHEMA_RULES for f in entry["errors"])
            grouped.setdefault(entry["kind"], {})[entry["path"]] = invalid
    return grouped


def test_the_corpus_covers_every_kind(verdicts: dict[str, dict[str, bool]]) -> None:
    assert sorted(verdicts) == ["grader", "pack", "resultset", "suite", "testcase"]
    for kind, files in verdicts.items():
        assert set(files.values()) == {True, False}, f"{kind}: the corpus needs valid and invalid documents"
    assert sum(map(len, verdicts.values())) >= 200


def test_evalschema_schema_prints_the_bundled_files(tmp_path: Path) -> None:
    for kind in ("testcase", "grader", "suite", "resultset", "pack"):
        out = subprocess.run([*EVALSCHEMA, "schema", kind], capture_output=True, check=True, cwd=tmp_path)
        assert out.stdout == (BUNDLED / f"{kind}.json").read_bytes()
    catalog = subprocess.run([*EVALSCHEMA, "schema", "--catalog"], capture_output=True, check=True, cwd=tmp_path).stdout
    assert catalog == (BUNDLED / "catalog.json").read_bytes()
    folder = subprocess.run([*EVALSCHEMA, "schema", "--dir"], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert Path(folder.strip()).resolve() == BUNDLED.resolve()
    for entry in json.loads(catalog)["schemas"]:  # every catalog entry points at a bundled schema beside it
        assert (BUNDLED / entry["url"]).is_file(), entry


def _check_jsonschema(schema: Path, files: list[str]) -> dict[str, bool]:
    # the README's recipe: the bundled schema as --schemafile; ECMA-262 regexes (the default variant)
    out = subprocess.run(
        [str(Path(sys.executable).parent / "check-jsonschema"), "--output-format", "json", "--schemafile", str(schema), *files],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    result = json.loads(out.stdout)
    assert not result.get("parse_errors"), result["parse_errors"]
    failed = {error["filename"] for error in result.get("errors", [])}
    assert out.returncode == (1 if failed else 0), out.stderr
    return {f: f in failed for f in files}


def test_check_jsonschema_agrees_offline(verdicts: dict[str, dict[str, bool]], tmp_path: Path) -> None:
    used: set[int] = set()  # third-party bugs excused: tests/oracle_allowlist.json
    recipe = _readme_block("check-jsonschema --schemafile")
    assert (
        recipe.startswith("check-jsonschema --schemafile resultset.schema.json results.json")
        and "evalschema schema resultset > resultset.schema.json" in recipe
    )
    for kind, files in sorted(verdicts.items()):
        schema = tmp_path / f"{kind}.schema.json"
        with schema.open("wb") as out:  # as the recipe makes it: evalschema schema KIND > KIND.schema.json
            subprocess.run([*EVALSCHEMA, "schema", kind], stdout=out, check=True)
        theirs = _check_jsonschema(schema, sorted(files))
        disagreements = {f: (ours, theirs[f]) for f, ours in files.items() if ours != theirs[f]}
        used |= {i for f in disagreements if (i := allowlist.excuse("check-jsonschema", DOCUMENTS[Path(f).stem])) is not None}
        unexcused = {f: v for f, v in disagreements.items() if allowlist.excuse("check-jsonschema", DOCUMENTS[Path(f).stem]) is None}
        assert unexcused == {}, f"{kind}: (evalschema, check-jsonschema) invalid? {unexcused}"
    assert allowlist.stale({"check-jsonschema"}, used) == [], "allow-list entries that excused nothing"


def test_ajv_agrees_offline(verdicts: dict[str, dict[str, bool]], tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node is not None and (NODE_MODULES / "ajv").is_dir(), "node and js/node_modules (npm ci --prefix js) are needed"
    used: set[int] = set()  # third-party bugs excused: tests/oracle_allowlist.json
    script = tmp_path / "ajv-check.mjs"
    script.write_text(_readme_block("// ajv-check.mjs"), encoding="utf-8")
    env = {**os.environ, "NODE_PATH": str(NODE_MODULES)}
    # ESM resolution ignores NODE_PATH: give the script the js/ folder's node_modules as its own
    (tmp_path / "node_modules").symlink_to(NODE_MODULES)
    for kind, files in sorted(verdicts.items()):
        out = subprocess.run(
            [node, str(script), str(BUNDLED / f"{kind}.json"), *sorted(files)], capture_output=True, text=True, check=False, env=env
        )
        failed = {line.split("\t", 1)[0] for line in out.stdout.splitlines() if line}
        assert out.returncode == (1 if failed else 0), out.stderr
        disagreements = {f: (ours, f in failed) for f, ours in files.items() if ours != (f in failed)}
        used |= {i for f in disagreements if (i := allowlist.excuse("ajv", DOCUMENTS[Path(f).stem])) is not None}
        unexcused = {f: v for f, v in disagreements.items() if allowlist.excuse("ajv", DOCUMENTS[Path(f).stem]) is None}
        assert unexcused == {}, f"{kind}: (evalschema, ajv) invalid? {unexcused}"
    assert allowlist.stale({"ajv"}, used) == [], "allow-list entries that excused nothing"
