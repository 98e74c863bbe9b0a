"""The committed generated code is reviewed like written code: it type-checks strictly, and every valid
document of the spec is assignable to its generated TypeScript type (an invalid one is not)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tools import missing_tool

ROOT = Path(__file__).resolve().parents[1]
TSC = ROOT / "js" / "node_modules" / ".bin" / "tsc"
TYPE_NAMES = {"testcase": "TestCase", "grader": "Grader", "suite": "Suite", "resultset": "ResultSet", "pack": "Pack"}


def _tsc() -> Path:
    if not TSC.exists():
        missing_tool("js/node_modules is absent: `./noxw -s tests` runs `npm ci` in js/ first")
    return TSC


def _tsc_run(folder: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    """tsc --strict over ``files`` as a project in ``folder``: the generated type guards' runtime imports Node's
    modules and Ajv, resolved from js/node_modules (the generated folder has none of its own)."""
    modules = ROOT / "js" / "node_modules"
    config = {
        "compilerOptions": {
            "strict": True,
            "noEmit": True,
            "skipLibCheck": True,
            "target": "es2022",
            "module": "esnext",
            "moduleResolution": "bundler",
            "types": ["node"],
            "typeRoots": [str(modules / "@types")],
            "paths": {"*": [str(modules / "*")]},
        },
        "files": files,
    }
    (folder / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run([str(_tsc()), "-p", str(folder)], capture_output=True, text=True, timeout=300)


def _valid_documents() -> list[tuple[str, str, object]]:
    from evalschema import validate

    out = []
    for path in sorted((ROOT / "spec" / "conformance").glob("*.json")):
        fixture = json.loads(path.read_text())
        if not fixture["expect"]["valid"] or fixture.get("options", {}).get("allow_unknown"):
            continue
        kind = fixture["kind"] or validate(fixture["document"]).kind
        if kind is not None:
            out.append((path.stem, kind, fixture["document"]))
    return out


def test_python_sdk_codegen_and_generated_models_pass_mypy_strict() -> None:
    # the typing session checks tests, scripts and benchmarks too; this test is about the shipped code
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "evalschema", "codegen", "generated/python/evalschema_models"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_typescript_passes_tsc_strict(tmp_path: Path) -> None:
    files = sorted(str(p) for p in (ROOT / "generated" / "typescript").glob("*.ts"))
    proc = _tsc_run(tmp_path, files)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _check_assignments(tmp_path: Path, documents: list[tuple[str, str, object]]) -> subprocess.CompletedProcess[str]:
    index = (ROOT / "generated" / "typescript" / "index.js").as_posix()
    lines = [f'import type {{ {", ".join(sorted(TYPE_NAMES.values()))} }} from "{index}";', ""]
    for number, (name, kind, document) in enumerate(documents):
        lines.append(f"// {name}")
        lines.append(f"export const doc{number}: {TYPE_NAMES[kind]} = {json.dumps(document, ensure_ascii=False)};")
    source = tmp_path / "documents.ts"
    source.write_text("\n".join(lines) + "\n")
    return _tsc_run(tmp_path, [str(source)])


def test_every_valid_fixture_and_example_is_assignable_to_its_typescript_type(tmp_path: Path) -> None:
    documents = _valid_documents()
    assert len(documents) > 50
    proc = _check_assignments(tmp_path, documents)
    assert proc.returncode == 0, proc.stdout[:4000]


def test_a_mistyped_document_is_not_assignable(tmp_path: Path) -> None:
    _tsc()
    wrong = {
        "version": "1.1.0",
        "suite_id": "s",
        "run_id": "r",
        "started_at": "2026-11-30T09:00:00Z",
        "results": [{"test_case_id": "t", "grader_results": [], "passed": "yes"}],
    }
    proc = _check_assignments(tmp_path, [("wrong", "resultset", wrong)])
    assert proc.returncode != 0 and "Type 'string' is not assignable to type 'boolean'" in proc.stdout


def _numeric_properties() -> list[tuple[str, str, str, bool]]:
    """(schema stem, TypeScript type, property, is integer) for every property whose schema type is integer or
    number (alone, or with null or string), read from the schemas."""
    out = []
    for path in sorted((ROOT / "schemas").glob("*.json")):
        schema = json.loads(path.read_text())
        owners = [(TYPE_NAMES.get(path.stem), schema), *(schema.get("$defs") or {}).items()]
        for owner, node in owners:
            if owner is None or not isinstance(node, dict):
                continue
            for name, sub in (node.get("properties") or {}).items():
                declared = sub.get("type") if isinstance(sub, dict) else None
                types = {declared} if isinstance(declared, str) else set(declared or ())
                if types & {"integer", "number"}:
                    out.append((path.stem, owner, name, "integer" in types))
    return out


def test_integer_properties_are_typed_integer(tmp_path: Path) -> None:
    """JSON Schema `integer` is the generated `Integer`, which tsc tells apart from `number` (and `number` stays
    `number`); a number literal is still assignable to it."""
    properties = _numeric_properties()
    assert sum(is_integer for *_, is_integer in properties) >= 10 and not all(is_integer for *_, is_integer in properties)
    index = (ROOT / "generated" / "typescript" / "index.js").as_posix()
    lines = [
        f'import type * as g from "{index}";',
        'type IsInteger<T> = [T] extends [never] ? "missing" : "json-schema-type" extends keyof T ? true : false;',
        "export const literal: g.Integer = 3;",
    ]
    for number, (stem, owner, name, is_integer) in enumerate(properties):
        lines.append(
            f'export const p{number}: IsInteger<Extract<NonNullable<g.{stem}.{owner}["{name}"]>, number>> = {str(is_integer).lower()};'
        )
    source = tmp_path / "integers.ts"
    source.write_text("\n".join(lines) + "\n")
    proc = _tsc_run(tmp_path, [str(source)])
    assert proc.returncode == 0, proc.stdout[:4000]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_docs_keep_every_backtick_span_of_the_schemas() -> None:
    """A `code` span in a schema's description, comment or any other text reaches the docs as code, not as 'quotes'."""
    import re

    docs = "\n".join(p.read_text() for p in sorted((ROOT / "generated" / "docs").glob("*.md")))
    spans = {
        span
        for path in sorted((ROOT / "schemas").glob("*.json"))
        for s in _strings(json.loads(path.read_text()))
        for span in re.findall(r"`[^`\n]+`", s)
    }
    assert len(spans) > 20
    assert sorted(span for span in spans if span not in docs) == []
