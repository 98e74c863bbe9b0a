"""The README says what is true: its shape (the quick start, then a user path within the first 60 lines, at most 350
lines), its versions (taken from the working schemas' ``$id``), every ``console`` example (run, and its output
compared with what the README shows), the CI snippets (equal to what ``evalschema init`` writes) and the Ajv
recipe (run with node against the real Ajv). Its install lines and its pre-commit snippet are run by
``tests/test_install.py``; its other recipes by ``tests/test_other_validators.py``, ``tests/test_sql.py``,
``tests/codegen/test_go.py`` and ``js/test/readme.test.ts``. js/README.md (building and using the npm package from
a checkout) is held to the same: its versions, and every command it shows, run in a checkout of its own."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalschema.cli import initcmd

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
VERSION = json.loads((REPO / "schemas" / "common.json").read_text())["$id"].split("/")[-2]
RELEASES = {p.name for p in (REPO / "spec" / "releases").iterdir() if p.is_dir()}
NODE_MODULES = REPO / "js" / "node_modules"


def blocks(language: str) -> list[str]:
    return [str(b) for b in re.findall(rf"^```{language}\n(.*?)^```", README, re.S | re.M)]


def test_the_quick_start_then_the_user_path_first() -> None:
    lines = README.splitlines()
    assert len(lines) <= 350, len(lines)
    start = "\n".join(lines[:16])
    assert "./noxw -s generate" in start and "./noxw -s tests" in start
    head = "\n".join(lines[:60])
    # the user path: a minimal result set, validate, summarize, compare and the CI gate, all in the first 60 lines
    for needed in (
        "$ evalschema init ",
        "$ evalschema validate ",
        "$ evalschema summarize ",
        "$ evalschema compare ",
        "```json\n",
        "uses: ",
    ):
        assert needed in head, needed
    assert "Nothing is on PyPI or npm yet" in head


def test_every_version_is_the_schemas_version() -> None:
    """No stale version: where the README names this version (schema URIs, the tag, the Action, the package files,
    `--version`, a document's `version`), it is the working schemas' version."""
    uris = set(re.findall(r"evalschema\.org/schema/(\d+\.\d+\.\d+)/", README))
    assert uris <= {VERSION}, uris
    found = {
        "rev": re.findall(r"rev: v(\S+)", README),
        "action": re.findall(r"uses: evalschema/evalschema@v(\S+)", README),
        "wheels": re.findall(r"evalschema(?:_codegen)?-(\d+\.\d+\.\d+)-py3", README),
        "--version": re.findall(r"^evalschema (\S+) \(specification (\S+)\)$", README, re.M),
        "documents": re.findall(r'"version": "([^"]+)"', README),
    }
    for what, versions in found.items():
        flat = {v for item in versions for v in (item if isinstance(item, tuple) else (item,))}
        assert flat == {VERSION}, (what, flat)
    # any other version named outside the examples' output is a published release (e.g. `--spec-version 1.0.0`)
    prose = re.sub(r"^```console\n.*?^```", "", README, flags=re.S | re.M)
    assert set(re.findall(r"\b(\d+\.\d+\.\d+)\b", prose)) <= RELEASES | {VERSION}


def _matches(expected: list[str], actual: list[str]) -> bool:
    """A line ``…`` stands for any lines (none included); a line ending in `` …`` for any line it begins."""

    @functools.cache
    def at(i: int, j: int) -> bool:
        if i == len(expected):
            return j == len(actual)
        line = expected[i]
        if line.strip() == "…":
            return any(at(i + 1, k) for k in range(j, len(actual) + 1))
        if j == len(actual):
            return False
        if line.endswith(" …"):
            return actual[j].startswith(line[:-2]) and at(i + 1, j + 1)
        return actual[j] == line and at(i + 1, j + 1)

    return at(0, 0)


def test_every_console_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    """Each `console` block runs as a shell script (its `$` lines, in order, in one folder where the repository's
    `spec/` and `tests/` are at hand and `results.json` is the README's own), and prints exactly its other lines."""
    for name in ("spec", "tests"):
        (tmp_path / name).symlink_to(REPO / name)
    (minimal,) = [b for b in blocks("json") if '"suite_id"' in b]
    assert "`results.json`" in README.split("```json\n" + minimal)[0].rstrip().rsplit("\n\n", 1)[-1]  # the paragraph naming it
    (tmp_path / "results.json").write_text(minimal)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "evalschema").write_text(f'#!/bin/sh\nexec {sys.executable} -m evalschema "$@"\n')
    (bin_dir / "evalschema").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONUNBUFFERED": "1", "NO_COLOR": "1"}
    consoles = blocks("console")
    assert len(consoles) >= 5
    for block in consoles:
        lines = block.splitlines()
        script = "exec 2>&1\n" + "".join(line[2:] + "\n" for line in lines if line.startswith("$ "))
        expected = [line for line in lines if not line.startswith("$ ")]
        out = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
        assert _matches(expected, out.stdout.splitlines()), (
            f"{script}\n--- the README shows:\n{chr(10).join(expected)}\n--- it prints:\n{out.stdout}"
        )


def test_the_ci_snippets_are_what_init_writes() -> None:
    written = initcmd.files()
    (pre_commit,) = [yaml.safe_load(b) for b in blocks("yaml") if b.startswith("repos:")]
    assert pre_commit == yaml.safe_load(written[initcmd.PRE_COMMIT])
    (step,) = [yaml.safe_load(b) for b in blocks("yaml") if "uses: evalschema/" in b]
    workflow = yaml.safe_load(written[initcmd.WORKFLOW])
    assert step == [s for s in workflow["jobs"]["evals"]["steps"] if s["uses"].startswith("evalschema/")]


def test_the_ajv_recipe_prints_each_files_own_errors(tmp_path: Path) -> None:
    """Ajv keeps the errors of its last call only: the recipe must print each invalid file's errors before it
    checks the next file. Two invalid graders with different errors, checked together and one by one."""
    node = shutil.which("node")
    assert node is not None and (NODE_MODULES / "ajv").is_dir(), "node and js/node_modules (npm ci --prefix js) are needed"
    (recipe,) = [b for b in blocks("js") if b.startswith("// ajv-check.mjs")]
    script = tmp_path / "ajv-check.mjs"
    script.write_text(recipe, encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(NODE_MODULES)  # ESM resolution ignores NODE_PATH
    files = {"no-type.grader.json": {"id": "a"}, "bad-id.grader.json": {"id": 7, "type": "contains", "params": {"substring": "x"}}}
    valid = tmp_path / "ok.grader.json"
    valid.write_text(json.dumps({"id": "ok", "type": "contains", "params": {"substring": "x"}}))
    for name, document in files.items():
        (tmp_path / name).write_text(json.dumps(document))
    schema = str(REPO / "generated" / "schemas" / "grader.json")

    def run(*names: str) -> tuple[int, dict[str, str]]:
        out = subprocess.run([node, str(script), schema, *names], cwd=tmp_path, capture_output=True, text=True, check=False)
        assert out.stderr == "", out.stderr
        return out.returncode, dict(line.split("\t", 1) for line in out.stdout.splitlines())

    alone = {name: run(name) for name in files}
    assert all(status == 1 for status, _ in alone.values())
    status, together = run("no-type.grader.json", valid.name, "bad-id.grader.json")
    assert status == 1
    assert together == {name: printed[name] for name, (_, printed) in alone.items()}
    assert together["no-type.grader.json"] != together["bad-id.grader.json"]
    assert run(valid.name) == (0, {})


@pytest.mark.parametrize("marker", ["./noxw -s generate"])
def test_the_quick_start_block_is_the_first_sh_block(marker: str) -> None:
    assert blocks("sh")[0].splitlines()[0].startswith(marker)


# --- js/README.md: building and using the npm package from a checkout -------------------------------------------

JS_README = (REPO / "js" / "README.md").read_text(encoding="utf-8")


def js_blocks(language: str) -> list[str]:
    return [str(b) for b in re.findall(rf"^```{language}\n(.*?)^```", JS_README, re.S | re.M)]


def test_the_js_readme_names_the_schemas_version() -> None:
    """Every version js/README.md names (the package, the tarball, `--version`) is the working schemas'."""
    assert set(re.findall(r"\b(\d+\.\d+\.\d+)\b", JS_README)) == {VERSION}
    assert "nothing is on npm yet" in JS_README


def test_every_js_readme_command_prints_what_it_shows(tmp_path: Path) -> None:
    """Each `console` block of js/README.md runs as a shell script, in order, in a checkout of its own (the
    js/ folder's tracked files as they are on disk, beside the repository's `generated/`, `schemas/` and
    `spec/`): `npm ci`, `npm run build`, `npm pack`, the command, the tarball installed into a project, the
    library example; each prints exactly the block's other lines. Packages come from npm's cache when it has
    them (`prefer-offline`), as `tests/test_npm_pack.py` installs them."""
    for tool in ("node", "npm", "npx"):
        assert shutil.which(tool) is not None, f"{tool} is needed"
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    for name in ("generated", "schemas", "spec", "templates"):  # what js/scripts/prepare.mjs copies in
        (checkout / name).symlink_to(REPO / name)
    tracked = subprocess.run(["git", "ls-files", "-z", "js"], cwd=REPO, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, checkout / name)
    (checkout / "js" / "README.md").write_text(JS_README, encoding="utf-8")
    (library,) = js_blocks("js")
    (checkout / "my-app").mkdir()
    (checkout / "my-app" / "check.mjs").write_text(library, encoding="utf-8")
    env = {
        **os.environ,
        "NO_COLOR": "1",
        "npm_config_prefer_offline": "true",
        "npm_config_update_notifier": "false",
        "npm_config_loglevel": "warn",
    }
    consoles = js_blocks("console")
    assert len(consoles) >= 3
    for block in consoles:
        lines = block.splitlines()
        script = "set -e\nexec 2>&1\n" + "".join(line[2:] + "\n" for line in lines if line.startswith("$ "))
        expected = [line for line in lines if not line.startswith("$ ")]
        out = subprocess.run(["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True, check=False, timeout=900)
        assert _matches(expected, out.stdout.splitlines()), (
            f"{script}\n--- js/README.md shows:\n{chr(10).join(expected)}\n--- it prints:\n{out.stdout}"
        )
    assert (checkout / "my-app" / "node_modules" / "evalschema" / "dist" / "cli.js").is_file()
