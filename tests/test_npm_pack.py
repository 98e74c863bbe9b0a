"""The npm package as a consumer gets it: ``npm pack`` in js/, installed into an empty project, type-checked
under ``tsc --strict`` and run with node.

The tarball's dependencies (ajv, ajv-formats) are resolved as a consumer's install resolves them: from the npm
cache when it has them, else from the registry (``--prefer-offline``). An ``--offline`` install passed only
where an earlier install had warmed the cache with package metadata (``npm ci`` caches tarballs, not
metadata), so it failed on a cold machine.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from evalschema.schemas.registry import KINDS

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js"
TSC = JS / "node_modules" / ".bin" / "tsc"

CONSUMER = """\
import { readFileSync } from "node:fs";
import { validate, summarize, UNKNOWN_FIELD, RULES, type ResultSet, type Report, type Summary } from "evalschema";

const path: string = process.argv[2] ?? "";
const document = JSON.parse(readFileSync(path, "utf-8")) as ResultSet;
const report: Report = validate(document);
const summary: Summary = summarize(document);
const broken: Report = validate({ ...document, colour: "red" }, { kind: "resultset" });
const codes: string[] = broken.errors.map((f) => f.code);
console.log(JSON.stringify({
  valid: report.valid,
  kind: report.kind,
  total: summary.total,
  unknown: codes.includes(UNKNOWN_FIELD),
  statement: RULES.UNKNOWN_FIELD.statement.length > 0,
}));
"""

TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "strict": True,
        "types": ["node"],
        "typeRoots": [str(JS / "node_modules" / "@types")],
        "skipLibCheck": False,
        "outDir": "out",
    },
    "files": ["consumer.ts"],
}


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    assert out.returncode == 0, f"{' '.join(args)} failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def tarball(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert shutil.which("npm") is not None and shutil.which("node") is not None, "npm and node are needed"
    assert TSC.exists(), "js/node_modules is absent: run `npm ci --prefix js` first (the tests session does)"
    destination = tmp_path_factory.mktemp("pack")
    # `npm pack` runs the `prepack` script: a fresh build of dist/
    out = _run(["npm", "pack", "--json", "--pack-destination", str(destination)], JS)
    (info,) = json.loads(out.stdout[out.stdout.index("[") :])
    return destination / str(info["filename"])


def test_the_tarball_ships_the_build_the_schemas_and_no_sources(tarball: Path) -> None:
    with tarfile.open(tarball) as archive:
        names = {n.removeprefix("package/") for n in archive.getnames()}
    assert {"package.json", "dist/index.js", "dist/index.d.ts", "dist/cli.js", "dist/generated/rules.js"} <= names
    # the fast validators generated at build time (js/src/schemas/prebuilt.ts): without them, every start compiles
    prebuilt = {n.removeprefix("dist/schemas/prebuilt/") for n in names if n.startswith("dist/schemas/prebuilt/")}
    assert prebuilt == {"index.json", *(f"{kind}.cjs" for kind in KINDS)}
    assert {f"schemas/{p.name}" for p in (ROOT / "schemas").glob("*.json")} <= names
    assert {n for n in names if n.startswith("schemas/bundled/")} == {
        f"schemas/bundled/{p.name}" for p in (ROOT / "generated" / "schemas").glob("*.json")
    }
    # every published release, for --spec-version (read from these files, never fetched)
    assert {n for n in names if n.startswith("schemas/releases/")} == {
        f"schemas/releases/{p.relative_to(ROOT / 'spec' / 'releases').as_posix()}" for p in (ROOT / "spec" / "releases").glob("*/*.json")
    }
    assert not [n for n in names if n.startswith(("src/", "test/", "dist/test/", "node_modules/", "scripts/"))], names


def test_a_consumer_installs_type_checks_and_runs(tarball: Path, tmp_path: Path) -> None:
    project = tmp_path / "consumer"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "consumer", "version": "0.0.0", "private": True, "type": "module"}))
    env = {**os.environ, "npm_config_update_notifier": "false"}
    install = subprocess.run(
        ["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", str(tarball)],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert install.returncode == 0, f"install failed:\n{install.stderr[-3000:]}"
    installed = json.loads((project / "node_modules" / "evalschema" / "package.json").read_text())
    assert installed["version"] == json.loads((JS / "package.json").read_text())["version"]
    (project / "consumer.ts").write_text(CONSUMER)
    (project / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    _run([str(TSC), "-p", "."], project)
    example = ROOT / "spec" / "examples" / "resultset-multi-attempt.json"
    out = _run(["node", "out/consumer.js", str(example)], project)
    result = json.loads(out.stdout)
    assert result == {"valid": True, "kind": "resultset", "total": result["total"], "unknown": True, "statement": True}
    assert result["total"] > 0
    # the package's bin works from the install too
    cli = _run(["node", "node_modules/evalschema/dist/cli.js", "validate", "--format", "json", str(example)], project)
    assert json.loads(cli.stdout)["summary"]["valid"] == 1
    # and so does a pinned release, from the installed package's own files
    oldest = min((p.name for p in (ROOT / "spec" / "releases").iterdir() if p.is_dir()), key=lambda v: tuple(map(int, v.split("."))))
    pinned = ROOT / "spec" / "examples" / "suite-qa-basic.json"
    cli = _run(
        ["node", "node_modules/evalschema/dist/cli.js", "validate", "--spec-version", oldest, "--format", "json", str(pinned)], project
    )
    assert json.loads(cli.stdout)["summary"]["files"] == 1
