"""``evalschema init [DIR]``: what it writes validates, compares and is gated; it replaces nothing, and its files
appear together or not at all. (Its pre-commit config, run for real against a clone of this repository at the
config's own ``rev``: ``tests/test_install.py``; its workflow's Action: ``tests/test_action.py``.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from evalschema.cli import initcmd

REPO = Path(__file__).resolve().parent.parent
EVALSCHEMA = [sys.executable, "-m", "evalschema"]
VERSION = json.loads((REPO / "schemas" / "common.json").read_text())["$id"].split("/")[-2]


def _run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*EVALSCHEMA, *map(str, args)], capture_output=True, text=True, check=False, cwd=cwd)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_init_writes_a_project_that_validates_and_compares(tmp_path: Path) -> None:
    project = tmp_path / "new" / "project"
    (tmp_path / "new").mkdir()
    out = _run("init", project)
    assert out.returncode == 0, out.stderr
    assert set(_tree(project)) == set(initcmd.files())
    assert out.stdout.splitlines() == [
        *(f"wrote {project / name}" for name in initcmd.files()),
        f"next: evalschema validate {project / 'evals'}",
    ]

    check = _run("validate", "--format", "json", project / "evals")
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["summary"] == {"files": 4, "valid": 4, "invalid": 0, "unreadable": 0}
    runs = project / "evals" / "runs"
    for run in ("baseline", "latest"):  # each run is a complete run of the suite
        suite = _run("validate", "--suite", project / initcmd.SUITE, runs / f"{run}.resultset.json")
        assert suite.returncode == 0, suite.stdout
    gate = _run("compare", "--fail-on-regression", "--max-drop", "0.05", runs / "baseline.resultset.json", runs / "latest.resultset.json")
    assert gate.returncode == 0, gate.stdout + gate.stderr
    worse = _run("compare", "--fail-on-regression", "--max-drop", "0.05", runs / "latest.resultset.json", runs / "baseline.resultset.json")
    assert worse.returncode == 1, worse.stdout + worse.stderr

    documents = [json.loads((project / name).read_text()) for name in (initcmd.SUITE, initcmd.GRADER, initcmd.BASELINE)]
    assert {d["$schema"] for d in documents} == {
        f"https://evalschema.org/schema/{VERSION}/{k}.json" for k in ("suite", "grader", "resultset")
    }
    pre_commit = yaml.safe_load((project / initcmd.PRE_COMMIT).read_text())
    assert pre_commit == {
        "repos": [{"repo": "https://github.com/evalschema/evalschema", "rev": f"v{VERSION}", "hooks": [{"id": "evalschema-validate"}]}]
    }
    hooks = {h["id"] for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert "evalschema-validate" in hooks
    workflow = yaml.safe_load((project / initcmd.WORKFLOW).read_text())
    (step,) = [s for s in workflow["jobs"]["evals"]["steps"] if s["uses"].startswith("evalschema/")]
    assert step["uses"] == f"evalschema/evalschema@v{VERSION}"
    action_inputs = yaml.safe_load((REPO / "action.yml").read_text())["inputs"]
    assert set(step["with"]) <= set(action_inputs)
    for name in ("files", "base", "new"):
        for path in str(step["with"][name]).split():
            assert (project / path).exists(), path


def test_init_in_a_folder_that_has_some_of_the_folders(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "build.yml").write_text("on: push\n")
    (tmp_path / "evals").mkdir()
    out = _run("init", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert set(_tree(tmp_path)) == {*initcmd.files(), ".github/workflows/build.yml"}
    assert out.stdout.splitlines()[-1] == "next: evalschema validate evals"


def test_an_existing_file_is_never_replaced_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    (tmp_path / "evals" / "runs").mkdir(parents=True)
    (tmp_path / "evals" / "runs" / "latest.resultset.json").write_text("{}")
    before = _tree(tmp_path)
    out = _run("init", cwd=tmp_path)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (
        "evalschema: evals/runs/latest.resultset.json, .pre-commit-config.yaml: exists; init replaces nothing "
        "(move it away, or choose another DIR); nothing was changed\n"
    )
    assert _tree(tmp_path) == before
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted(["evals", "runs", "latest.resultset.json", ".pre-commit-config.yaml"])


def test_a_refused_output_leaves_nothing(tmp_path: Path) -> None:
    """The files appear together or not at all: the gate checks and stages every one before any appears, so an
    output it refuses (here `.github/workflows` is a file, not a folder) leaves the folder as it was."""
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "workflows").write_text("not a folder")
    before = _tree(tmp_path)
    out = _run("init", cwd=tmp_path)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == "evalschema: .github/workflows: not a folder; nothing was changed\n"
    assert _tree(tmp_path) == before and sorted(p.name for p in tmp_path.rglob("*")) == [".github", "workflows"]
