"""codegen on real schema sets copied from registry packages (tests/codegen/corpus/<set>/, see each ORIGIN.md).

For every set: generation succeeds; the Python package imports and every instance parses with the root model and
round-trips (``model_dump(mode="json", by_alias=True, exclude_unset=True)`` equals the input, key order aside); the
TypeScript compiles under ``tsc --strict`` with every instance typed as the root type (one tsc run for all sets);
the Go compiles, passes ``go vet`` and round-trips every instance (one ``go vet`` + one ``go test`` for all sets);
the docs list no annotation-only keyword as a rule. Generated output goes to a temp dir, never into the repo.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from codegen_helpers import REPO, typescript_runtime
from tools import missing_tool

from codegen.__main__ import main as codegen_main
from codegen.ir import RULE_KEYWORDS, TYPE_KEYWORDS, module_stem

CORPUS = Path(__file__).parent / "corpus"
SETS = sorted(p.name for p in CORPUS.iterdir() if (p / "schemas").is_dir())
# CODEGEN_CORPUS_SETS=a,b runs those sets only (to time or debug one set); every set by default
if os.environ.get("CODEGEN_CORPUS_SETS"):
    SETS = [name for name in SETS if name in os.environ["CODEGEN_CORPUS_SETS"].split(",")]
# the schema file whose root type an instance is, where a set has several files
ROOT_FILE = {"metaschema_2020_12": "schema.json", "cyclonedx_1_6": "bom-1.6.SNAPSHOT.schema.json", "stac_1_1": "item.json"}
TSC = REPO / "js" / "node_modules" / ".bin" / "tsc"

pytestmark = pytest.mark.slow


def root_file(name: str) -> str:
    if name in ROOT_FILE:
        return ROOT_FILE[name]
    (only,) = sorted(p.name for p in (CORPUS / name / "schemas").glob("*.json"))
    return only


def instances(name: str) -> list[tuple[str, Any]]:
    return [(p.name, json.loads(p.read_text(encoding="utf-8"))) for p in sorted((CORPUS / name / "instances").glob("*.json"))]


@pytest.fixture(scope="module")
def corpus_out(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("corpus")
    outs: dict[str, Path] = {}
    for name in SETS:
        out = base / name
        rc = codegen_main(["generate", "--schemas", str(CORPUS / name / "schemas"), "--out", str(out), "--go-package", name])
        if rc == 0:
            outs[name] = out
    return outs


def test_corpus_is_complete() -> None:
    for name in SETS:
        assert (CORPUS / name / "ORIGIN.md").is_file(), name
        assert instances(name), f"{name}: no instance"


@pytest.mark.parametrize("name", SETS)
def test_generate(name: str, corpus_out: dict[str, Path]) -> None:
    assert name in corpus_out, f"{name}: generate failed (see the captured stderr)"
    for target in ("python", "typescript", "docs", "go"):
        assert (corpus_out[name] / target).is_dir(), target


_CHECK_EVERY_SET = """
import sys
from codegen.__main__ import main
for name, schemas, out in zip(*[iter(sys.argv[1:])] * 3):
    if main(["check", "--schemas", schemas, "--out", out, "--go-package", name]) != 0:
        print("DIFFERS", name)
"""


def test_output_does_not_depend_on_the_hash_seed(corpus_out: dict[str, Path]) -> None:
    """What this process generated (a random hash seed) is what two processes with fixed, different seeds render:
    set and mapping orders must never reach a name, a file or a type (AsyncAPI's embedded copy of the draft-07
    meta-schema once won or lost its URI by hash order, and the generated modules changed from run to run)."""
    assert set(corpus_out) == set(SETS)
    argv = [str(x) for name in SETS for x in (name, CORPUS / name / "schemas", corpus_out[name])]
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", _CHECK_EVERY_SET, *argv],
            cwd=REPO,
            env={**os.environ, "PYTHONHASHSEED": seed},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for seed in ("1", "2")
    ]
    for seed, run in zip(("1", "2"), runs, strict=True):
        out, err = run.communicate(timeout=900)
        assert run.returncode == 0, err[-3000:]
        assert "DIFFERS" not in out, f"PYTHONHASHSEED={seed}:\n{out[-3000:]}\n{err[-3000:]}"


def _import_package(name: str, folder: Path) -> Any:
    module_name = f"codegen_corpus_{name}"
    spec = importlib.util.spec_from_file_location(module_name, folder / "__init__.py", submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def _root_model(name: str, out: Path) -> Any:
    package = _import_package(name, out / "python")
    stem = module_stem(root_file(name))
    (cls,) = [c for c, m in package._EXPORTS.items() if m.partition(":")[0] == stem]
    return getattr(package, cls)


@pytest.mark.parametrize("name", SETS)
def test_python_parses_and_round_trips(name: str, corpus_out: dict[str, Path]) -> None:
    assert name in corpus_out
    model = _root_model(name, corpus_out[name])
    for file, instance in instances(name):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # deprecated models warn on use, by design
            parsed = model.model_validate(instance)
            dumped = parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)
        assert dumped == instance, f"{name}/{file} does not round-trip"


# sets whose Python module mypy --strict refuses, each for a typing DCG writes that the schema check does not need:
# a new failure fails the test, and so does a listed set that now passes (remove it)
MYPY_KNOWN = {
    # a scalar or list `default` beside a $ref to a union of root models: `= 1` where the type is `A | B`
    "github_workflows": "list default beside $ref to a union (on.*.types)",
    "mergify": "integer default beside $ref to a union (batch_size)",
    # allOf bases whose properties narrow each other's types: a subclass redefines a field with another type
    "stac_1_1": "allOf of GeoJSON Feature and STAC core: fields redefined with narrower types",
}


def test_python_passes_mypy_strict(corpus_out: dict[str, Path], tmp_path: Path) -> None:
    """Every set's Python package under ``mypy --strict`` (one run for all sets), but the sets of ``MYPY_KNOWN``."""
    assert set(corpus_out) == set(SETS)
    for name in SETS:
        shutil.copytree(corpus_out[name] / "python", tmp_path / f"corpus_{name}")
    packages = [f"corpus_{name}" for name in SETS]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *packages],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    failing = set(re.findall(r"^corpus_(\w+?)/\S+\.py:\d+: error", proc.stdout, re.M))
    assert failing == set(MYPY_KNOWN) & set(SETS), proc.stdout[-6000:]
    assert (proc.returncode == 0) == (not failing), proc.stdout[-3000:] + proc.stderr[-2000:]


def test_typescript_compiles_with_instances(corpus_out: dict[str, Path], tmp_path: Path) -> None:
    if not TSC.exists():
        missing_tool("js/node_modules missing: run npm ci --prefix js")
    assert set(corpus_out) == set(SETS)
    includes = []
    for name in SETS:
        ts = tmp_path / name
        shutil.copytree(corpus_out[name] / "typescript", ts)
        stem = module_stem(root_file(name))
        lines = [f'import type * as m from "./{stem}.js";']
        root = _ts_root_type(corpus_out[name] / "typescript" / f"{stem}.ts")
        for i, (_file, instance) in enumerate(instances(name)):
            lines.append(f"export const instance{i}: m.{root} = {json.dumps(instance, ensure_ascii=False)};")
        (ts / "instances.ts").write_text("\n".join(lines) + "\n", encoding="utf-8")
        includes.append(f"{name}/**/*.ts")
    typescript_runtime(tmp_path)
    (tmp_path / "tsconfig.json").write_text(
        json.dumps(
            {
                "compilerOptions": {
                    "strict": True,
                    "noEmit": True,
                    "target": "es2022",
                    "module": "nodenext",
                    "moduleResolution": "nodenext",
                    "skipLibCheck": True,
                    "types": ["node"],
                },
                "include": includes,
            }
        ),
        encoding="utf-8",
    )
    proc = subprocess.run([str(TSC), "-p", str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]


def _ts_root_type(module: Path) -> str:
    """The first type the module exports, past the ``Integer`` helper type that modules with integers declare first."""
    names = [n for n in re.findall(r"^export (?:interface|type) (\w+)", module.read_text(encoding="utf-8"), re.M) if n != "Integer"]
    assert names, module
    return str(names[0])


@pytest.mark.parametrize("name", SETS)
def test_docs_list_no_annotation_as_rule(name: str, corpus_out: dict[str, Path]) -> None:
    assert name in corpus_out
    page = corpus_out[name] / "docs" / f"{module_stem(root_file(name))}.md"
    assert page.is_file()
    rule_keywords = set()
    for page in (corpus_out[name] / "docs").glob("*.md"):
        rule_keywords |= set(re.findall(r"^- `([^`]+)` at `", page.read_text(encoding="utf-8"), re.M))
    assert rule_keywords <= RULE_KEYWORDS | TYPE_KEYWORDS, rule_keywords - RULE_KEYWORDS - TYPE_KEYWORDS


def go_available() -> bool:
    return shutil.which("go") is not None


def test_go_vet_build_and_round_trip(corpus_out: dict[str, Path], tmp_path: Path) -> None:
    if not go_available():
        missing_tool("go not installed (.ci/run installs golang-go)")
    assert set(corpus_out) == set(SETS)
    data = tmp_path / "instances"
    modules = []
    for name in SETS:
        shutil.copytree(corpus_out[name] / "go", tmp_path / name)
        modules.append(f"./{name}")
        target = data / name / root_file(name)
        target.mkdir(parents=True)
        for file, instance in instances(name):
            (target / ("valid-" + file)).write_text(json.dumps(instance, ensure_ascii=False), encoding="utf-8")  # Validate too
    (tmp_path / "go.work").write_text("go 1.19\n\nuse (\n" + "".join(f"\t{m}\n" for m in modules) + ")\n", encoding="utf-8")
    # offline: the generated packages import the standard library only
    env = {**os.environ, "GOWORK": str(tmp_path / "go.work"), "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": ""}
    packages = [f"{name}/..." for name in SETS]
    vet = subprocess.run(["go", "vet", *packages], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800)
    assert vet.returncode == 0, vet.stderr[-6000:]
    test = subprocess.run(
        ["go", "test", "-count=1", *packages],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=1800,
        env={**env, "CODEGEN_ROUNDTRIP_DIR": str(data)},
    )
    assert test.returncode == 0, test.stdout[-6000:] + test.stderr[-2000:]
    assert test.stdout.count("ok ") == len(SETS), test.stdout
