"""``--spec-version``: the two CLIs agree when validating against each published release.

Every conformance fixture's document (and suite) is written out and validated by ``evalschema validate
--spec-version V --format json`` and the built ``evalschema-js validate --spec-version V --format json``, for each
release V in spec/releases/ and for the working schemas; the two JSON reports must be equal, entry for entry
(code, pointer, severity, message, line, column, and the totals), and the pinned releases must judge some documents
differently from the working schemas (else the pin would not be exercised). An unknown version is the same usage
error from both: the same text after the program's name, exit status 2, nothing on stdout.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalschema.schemas import releases

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT / "spec" / "conformance"


def _clis(built_js: Path) -> dict[str, list[str]]:
    return {"python": [sys.executable, "-m", "evalschema"], "typescript": ["node", str(built_js)]}


@pytest.fixture(scope="module")
def spread(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """One file per conformance document and suite (``.json``), in a fixed order."""
    folder = tmp_path_factory.mktemp("spread")
    paths = []
    for fixture in sorted(CONFORMANCE.rglob("*.json")):
        data = json.loads(fixture.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "document" not in data:
            continue
        stem = fixture.relative_to(CONFORMANCE).with_suffix("").as_posix().replace("/", "__")
        for part in ("document", "suite"):
            if part in data:
                path = folder / f"{stem}.{part}.json"
                path.write_text(json.dumps(data[part], indent=2), encoding="utf-8")
                paths.append(path)
    assert len(paths) > 250
    return paths


def _report(command: list[str], paths: list[Path], version: str | None) -> dict[str, Any]:
    pinned = ["--spec-version", version] if version is not None else []
    run = subprocess.run([*command, "validate", "--format", "json", *pinned, *map(str, paths)], capture_output=True, check=False)
    assert run.returncode in (0, 1, 2), (command, version, run.stderr[-2000:])
    report: dict[str, Any] = json.loads(run.stdout)
    return report


@pytest.mark.parametrize("version", [*releases.available(), None])
def test_both_clis_give_the_same_report_for_each_release(built_js: Path, spread: list[Path], version: str | None) -> None:
    reports = {name: _report(command, spread, version) for name, command in _clis(built_js).items()}
    python, typescript = reports["python"], reports["typescript"]
    assert len(python["files"]) == len(typescript["files"]) == len(spread)
    different = [(ours["path"], ours, theirs) for ours, theirs in zip(python["files"], typescript["files"], strict=True) if ours != theirs]
    assert different == [], f"{len(different)} entries differ under --spec-version {version}; first: {different[:1]}"
    assert python["summary"] == typescript["summary"]


def test_a_pinned_release_is_not_the_working_schemas(built_js: Path, spread: list[Path]) -> None:
    """The oldest release judges some of the spread otherwise than the working schemas do (in both CLIs, by the test
    above): the pin reaches the validators."""
    node = _clis(built_js)["typescript"]
    oldest, working = _report(node, spread, releases.available()[0]), _report(node, spread, None)
    changed = [a["path"] for a, b in zip(oldest["files"], working["files"], strict=True) if a != b]
    assert len(changed) >= 5, changed


def test_an_unknown_release_is_the_same_usage_error(built_js: Path, spread: list[Path]) -> None:
    said = {}
    for name, command in _clis(built_js).items():
        run = subprocess.run([*command, "validate", "--spec-version", "0.0.1", str(spread[0])], capture_output=True, text=True, check=False)
        assert (run.returncode, run.stdout) == (2, ""), (name, run.returncode, run.stdout)
        program, _, message = run.stderr.partition(": ")
        assert program in ("evalschema", "evalschema-js"), run.stderr
        said[name] = message
    assert said["python"] == said["typescript"] == f"--spec-version 0.0.1: no such release; available: {', '.join(releases.available())}\n"
