"""The standard build is the build: ``pip install <repo>``, ``pip wheel .`` and ``python -m build`` each give a
complete distribution, installed the way a user installs it and used with no network.

How it stays offline, and why it is still a real install: a wheelhouse is filled first (``pip download`` of the
runtime's dependencies, its extras and the build backend, at the exact pins of ``requirements/constraints.txt``;
that step may use the package index, as any install does). Every install after it is ``pip install --no-index
--find-links <wheelhouse>`` into a fresh virtual environment, build isolation included: nothing comes from the
index or from the environment running the tests. The commands then run with a ``sitecustomize`` that makes any
socket connection fail, so a schema fetched by ``$id`` would fail the test.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((REPO / "spec" / "examples").glob("*.json"))
CONSTRAINTS = REPO / "requirements" / "constraints.txt"

NO_NETWORK = """\
import socket

def _refuse(*args, **kwargs):
    raise OSError("network access attempted during an offline test")

socket.socket.connect = _refuse
socket.socket.connect_ex = _refuse
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


def _run(args: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    assert isinstance(out, subprocess.CompletedProcess)
    return out


def _ok(args: list[str | Path], **kwargs: object) -> subprocess.CompletedProcess[str]:
    out = _run(args, **kwargs)
    assert out.returncode == 0, f"{' '.join(map(str, args))} exited {out.returncode}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out


PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
EXTRAS = sorted(PROJECT["optional-dependencies"])
# what a user installs; `dev` (the tools of this repository's own tests) is installed from the checkout by `./noxw`
# on every run (`pip install -e '.[dev]' -e ./codegen`), which is its install test
USER_EXTRAS = [e for e in EXTRAS if e != "dev"]


def _extra_requirements(extra: str) -> list[str]:
    """What ``evalschema[extra]`` names, the extras it names of evalschema itself expanded."""
    out: list[str] = []
    for requirement in PROJECT["optional-dependencies"][extra]:
        inner = re.fullmatch(r"evalschema\[([a-z,]+)\]", requirement)
        out += [r for name in inner.group(1).split(",") for r in _extra_requirements(name)] if inner else [requirement]
    return out


def _requirements() -> list[str]:
    """What an install of the runtime with every extra, plus the generator and the build backend, needs."""
    runtime = tomllib.loads((REPO / "pyproject.toml").read_text())
    codegen = tomllib.loads((REPO / "codegen" / "pyproject.toml").read_text())
    wanted = [*runtime["project"]["dependencies"], *(r for e in USER_EXTRAS for r in _extra_requirements(e))]
    wanted += [*codegen["project"]["dependencies"], *runtime["build-system"]["requires"]]
    return sorted(set(wanted))


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("wheelhouse")
    _ok(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--only-binary=:all:",
            "-c",
            CONSTRAINTS,
            "-d",
            house,
            *_requirements(),
        ]
    )
    # the generator's own distribution, for `evalschema diff` (published nowhere yet: installed from codegen/)
    _ok(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            "--find-links",
            house,
            "-w",
            house,
            REPO / "codegen",
        ]
    )
    return house


def _venv(where: Path) -> Path:
    _ok([sys.executable, "-m", "venv", where])
    site = _ok([where / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    (Path(site) / "sitecustomize.py").write_text(NO_NETWORK, encoding="utf-8")
    return where / "bin"


def _install(bin_dir: Path, wheelhouse: Path, *targets: str | Path) -> None:
    _ok(
        [
            bin_dir / "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-index",
            "--find-links",
            wheelhouse,
            *targets,
        ],
        env={**os.environ, "PIP_CONSTRAINT": ""},
    )


def _use_it(bin_dir: Path, work: Path) -> None:
    """What the README promises an installed package does, from a folder that is not the checkout."""
    evalschema = bin_dir / "evalschema"
    version = json.loads((REPO / "schemas" / "common.json").read_text())["$id"].split("/")[-2]
    assert _ok([evalschema, "--version"], cwd=work).stdout == f"evalschema {version} (specification {version})\n"
    where = _ok([bin_dir / "python", "-c", "import evalschema, evalschema_models; print(evalschema.__file__)"], cwd=work).stdout
    assert not where.startswith(str(REPO)), "evalschema was imported from the checkout, not from the install"

    report = json.loads(_ok([evalschema, "validate", "--format", "json", *EXAMPLES], cwd=work).stdout)
    # a suite's test_cases_file is followed: each of its lines is a document of the report too
    documents = len(EXAMPLES) + sum(
        1 for p in (REPO / "spec" / "examples").glob("*.jsonl") for line in p.read_text().splitlines() if line.strip()
    )
    assert report["summary"] == {"files": documents, "valid": documents, "invalid": 0, "unreadable": 0}
    # the HTML report's page is package data (evalschema/_templates), not read from the checkout
    _ok([evalschema, "summarize", "--html", work / "report.html", REPO / "spec" / "examples" / "resultset-aobench-rbac.json"], cwd=work)
    assert (work / "report.html").read_text(encoding="utf-8").startswith("<!doctype html>")

    old = work / "old.json"
    old.write_text(
        json.dumps(
            {
                "version": "1.0.0",
                "suite_id": "s",
                "run_id": "r",
                "started_at": "2026-10-15T09:00:00Z",
                "results": [
                    {
                        "test_case_id": "t",
                        "passed": True,
                        "grader_results": [{"grader_id": "g", "type": "contains", "score": 1, "passed": True}],
                        "constraint_violations": [{"id": "c", "invalidates_result": False}],
                    }
                ],
            }
        )
    )
    pinned = _run([evalschema, "validate", "--format", "json", "--spec-version", "1.0.0", old], cwd=work)
    assert pinned.returncode == 1, pinned.stderr
    (entry,) = json.loads(pinned.stdout)["files"]
    assert [(f["code"], f["pointer"]) for f in entry["errors"]] == [("UNKNOWN_FIELD", "/results/0/constraint_violations")]

    summary = _ok([evalschema, "summarize", REPO / "spec" / "examples" / "resultset-aobench-rbac.json"], cwd=work).stdout
    assert "results 3: passed 1, failed 1" in summary

    pack = work / "pack.yaml"
    pack.write_bytes((REPO / "tests" / "data" / "cli" / "pack-commented.yaml").read_bytes())
    migrate = _run([evalschema, "migrate", "--check", pack], cwd=work)
    assert migrate.returncode == 1 and "would change" in migrate.stdout, migrate.stderr
    assert pack.read_bytes() == (REPO / "tests" / "data" / "cli" / "pack-commented.yaml").read_bytes()

    diff = _ok([evalschema, "diff", "1.0.0", "1.1.0"], cwd=work).stdout
    assert diff.endswith("required version bump: minor\n"), diff


@pytest.mark.slow
def test_pip_install_of_the_repository(wheelhouse: Path, tmp_path: Path) -> None:
    bin_dir = _venv(tmp_path / "venv")
    _install(bin_dir, wheelhouse, f"{REPO}[reference,migrate]", REPO / "codegen")
    _use_it(bin_dir, tmp_path)


@pytest.mark.slow
def test_pip_wheel_and_python_m_build(wheelhouse: Path, tmp_path: Path) -> None:
    pip_wheel = tmp_path / "pip-wheel"
    _ok(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-index",
            "--find-links",
            wheelhouse,
            "-w",
            pip_wheel,
            REPO,
        ]
    )
    built = tmp_path / "build"
    # `python -m build` builds the wheel from the sdist, so a complete wheel proves the sdist complete too
    _ok(
        [sys.executable, "-m", "build", "--installer", "pip", "--outdir", built, REPO],
        env={**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse), "PIP_CONSTRAINT": ""},
    )
    (sdist,) = built.glob("evalschema-*.tar.gz")
    (wheel,) = built.glob("evalschema-*.whl")
    (other,) = pip_wheel.glob("evalschema-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert names == set(zipfile.ZipFile(other).namelist())
    assert not [n for n in names if n.startswith("codegen/")], "the runtime wheel must not carry the generator"
    assert {"evalschema/py.typed", "evalschema_models/py.typed"} <= names
    assert [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    shipped = {n.removeprefix("evalschema/_schemas/") for n in names if n.startswith("evalschema/_schemas/")}
    expected = {p.name for p in (REPO / "schemas").glob("*.json")}
    expected |= {f"bundled/{p.name}" for p in (REPO / "generated" / "schemas").glob("*.json")}
    expected |= {f"releases/{p.parent.name}/{p.name}" for p in (REPO / "spec" / "releases").glob("*/*.json")}
    expected |= {f"arrow/{p.name}" for p in (REPO / "generated" / "arrow").glob("*.json")}  # evalschema.columnar
    assert shipped == expected
    assert {n for n in names if n.startswith("evalschema/_templates/")} == {"evalschema/_templates/report.html"}

    for name, artifact in (("sdist", sdist), ("wheel", wheel), ("pip-wheel", other)):
        bin_dir = _venv(tmp_path / f"venv-{name}")
        _install(bin_dir, wheelhouse, f"evalschema[reference,migrate] @ {artifact.as_uri()}", "evalschema-codegen")
        work = tmp_path / f"work-{name}"
        work.mkdir()
        _use_it(bin_dir, work)


@pytest.mark.slow
def test_the_runtime_alone_names_the_extra_a_command_needs(wheelhouse: Path, tmp_path: Path) -> None:
    bin_dir = _venv(tmp_path / "venv")
    _install(bin_dir, wheelhouse, REPO)
    installed = _ok([bin_dir / "python", "-m", "pip", "list", "--format", "json"]).stdout
    names = {p["name"].lower() for p in json.loads(installed)} - {"pip", "setuptools", "evalschema"}
    assert not names & {"jsonschema", "jinja2", "datamodel-code-generator", "ruamel.yaml", "evalschema-codegen"}, names
    evalschema = bin_dir / "evalschema"
    assert _ok([evalschema, "validate", *EXAMPLES], cwd=tmp_path).returncode == 0
    cases: tuple[tuple[list[str | Path], str], ...] = (
        (["validate", "--engine", "reference", EXAMPLES[0]], "reference"),
        (["migrate", "--check", REPO / "tests" / "data" / "cli" / "pack-commented.yaml"], "migrate"),  # JSON packs need no extra
    )
    for args, extra in cases:
        out = _run([evalschema, *args], cwd=tmp_path)
        assert (out.returncode, out.stdout) == (2, ""), out
        assert f"pip install 'evalschema[{extra}]'" in out.stderr and "Traceback" not in out.stderr, out.stderr
    # `diff` needs the generator, which is no extra (pyproject.toml says why): the hint is the command that installs
    # it from the checkout this package came from, and after running that command, `diff` works
    out = _run([evalschema, "diff", "1.0.0", "1.1.0"], cwd=tmp_path)
    assert (out.returncode, out.stdout) == (2, ""), out
    (hint,) = re.findall(r": (pip install \S+)$", out.stderr.strip())
    assert hint == f"pip install {REPO / 'codegen'}", out.stderr
    command = [bin_dir / "python", "-m", *hint.split()]
    _ok([*command[:4], "--quiet", "--no-index", "--find-links", wheelhouse, *command[4:]], env={**os.environ, "PIP_CONSTRAINT": ""})
    assert _ok([evalschema, "diff", "1.0.0", "1.1.0"], cwd=tmp_path).stdout.endswith("required version bump: minor\n")


@pytest.mark.slow
@pytest.mark.parametrize("extra", USER_EXTRAS)
def test_every_extra_installs_from_the_checkout(wheelhouse: Path, tmp_path: Path, extra: str) -> None:
    """`pip install '.[EXTRA]'` in a fresh virtual environment, for every extra a user installs (all but dev): each
    distribution the extra names is installed, and pip finds no broken requirement."""
    bin_dir = _venv(tmp_path / "venv")
    _install(bin_dir, wheelhouse, "--no-compile", f"{REPO}[{extra}]")  # compiling bytecode is no part of installing
    _ok([bin_dir / "python", "-m", "pip", "check"])
    listed = json.loads(_ok([bin_dir / "python", "-m", "pip", "list", "--format", "json"]).stdout)
    installed = {re.sub(r"[-_.]+", "-", p["name"]).lower() for p in listed}
    named = {re.sub(r"[-_.]+", "-", re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0]).lower() for r in _extra_requirements(extra)}
    assert named - installed == set(), f"{extra}: not installed"
    assert _ok([bin_dir / "evalschema", "validate", *EXAMPLES], cwd=tmp_path).returncode == 0


def test_no_extra_names_the_generator() -> None:
    """The generator's distribution is served by no index (the wheelhouse above holds a build of it, so an install
    test alone would not see this): an extra naming it fails `pip install '.[all]'` on a user's machine."""
    generator = tomllib.loads((REPO / "codegen" / "pyproject.toml").read_text())["project"]["name"]
    for extra in EXTRAS:
        assert not [r for r in _extra_requirements(extra) if r.startswith(generator)], extra


def test_all_is_every_extra_but_dev() -> None:
    inner = re.fullmatch(r"evalschema\[([a-z,]+)\]", "".join(PROJECT["optional-dependencies"]["all"]))
    assert inner is not None and sorted(inner.group(1).split(",")) == sorted(set(EXTRAS) - {"all", "dev"})


# --- pre-commit, for real: `pre-commit try-repo` installs the hook from this repository as pre-commit does -------

GRADER_OK = {"id": "exact", "type": "contains", "params": {"substring": "ok"}}
GRADER_BAD = {"id": "broken", "type": "contains", "params": {}}


def _hook_repo(where: Path) -> dict[str, Path]:
    where.mkdir()
    files = {
        "valid": where / "answers.grader.json",
        "invalid": where / "broken.grader.json",
        "jsonl": where / "runs.resultset.jsonl",
        "pack": where / "support.pack.yaml",
        "package": where / "package.json",
        "tsconfig": where / "tsconfig.json",
    }
    files["valid"].write_text(json.dumps(GRADER_OK))
    files["invalid"].write_text(json.dumps(GRADER_BAD))
    run = json.loads((REPO / "spec" / "examples" / "resultset-multi-attempt.json").read_text())
    broken_run = {**run, "run_id": 7}
    files["jsonl"].write_text(json.dumps(run) + "\n" + json.dumps(broken_run) + "\n")
    files["pack"].write_bytes((REPO / "tests" / "data" / "cli" / "mixed" / "pack-anchors.yaml").read_bytes())
    files["package"].write_text(json.dumps({"name": "demo", "version": "1.0.0", "type": "module", "scripts": {"test": "node --test"}}))
    files["tsconfig"].write_text(json.dumps({"compilerOptions": {"strict": True, "target": "ES2022"}}))
    _ok(["git", "init", "-q", where])
    _ok(["git", "-C", where, "add", "-A"])
    return files


def _pre_commit_env(wheelhouse: Path, home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PRE_COMMIT_HOME": str(home),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse),
        "PIP_CONSTRAINT": "",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "VIRTUALENV_NO_DOWNLOAD": "1",
    }


def _try_repo(
    repo: Path, wheelhouse: Path, home: Path, *files: Path, source: Path = REPO, ref: str | None = None, hook: str = "evalschema-validate"
) -> subprocess.CompletedProcess[str]:
    return _run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            source,
            hook,
            *(["--ref", ref] if ref else []),
            "--verbose",
            "--files",
            *[f.name for f in files],
        ],
        cwd=repo,
        env=_pre_commit_env(wheelhouse, home),
    )


def _totals(output: str) -> tuple[int, int, int, int]:
    """Documents, valid, invalid, unreadable, added up over the summary lines (pre-commit may split the files
    over several processes, one summary line each)."""
    lines = re.findall(r"^(\d+) document\(s\): (\d+) valid, (\d+) invalid, (\d+) unreadable", output, re.M)
    assert lines, output
    files, valid, invalid, unreadable = (sum(int(line[i]) for line in lines) for i in range(4))
    return files, valid, invalid, unreadable


@pytest.mark.slow
def test_pre_commit_try_repo(wheelhouse: Path, tmp_path: Path) -> None:
    files = _hook_repo(tmp_path / "project")
    home = tmp_path / "pre-commit-home"

    clean = _try_repo(tmp_path / "project", wheelhouse, home, files["valid"], files["pack"], files["package"], files["tsconfig"])
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert _totals(clean.stdout) == (2, 2, 0, 0), clean.stdout

    everything = _try_repo(tmp_path / "project", wheelhouse, home, *files.values())
    assert everything.returncode == 1, everything.stdout + everything.stderr
    out = everything.stdout
    assert "broken.grader.json  [grader]" in out and "GRADER_PARAMS_INVALID" in out
    assert "runs.resultset.jsonl (line 2)  [resultset]" in out and "TYPE_MISMATCH  /run_id" in out
    assert "package.json" not in out and "tsconfig.json" not in out
    # two graders, the pack and the two runs of the JSON Lines file; one grader and one run are invalid
    assert _totals(out) == (5, 3, 2, 0), out
    assert "Traceback" not in out + everything.stderr


@pytest.mark.slow
def test_package_script_builds_every_artifact(tmp_path: Path) -> None:
    """`./noxw -s packages` (scripts/package.py): both distributions by the standard build, one zip per release
    with its bundled schemas."""
    _ok([sys.executable, REPO / "scripts" / "package.py", "--out", tmp_path])
    version = json.loads((REPO / "schemas" / "common.json").read_text())["$id"].split("/")[-2]
    releases = sorted(p.name for p in (REPO / "spec" / "releases").iterdir() if p.is_dir())
    expected = {
        f"evalschema-{version}.tar.gz",
        f"evalschema-{version}-py3-none-any.whl",
        f"evalschema_codegen-{version}.tar.gz",
        f"evalschema_codegen-{version}-py3-none-any.whl",
    }
    expected |= {f"evalschema-schemas-{r}.zip" for r in releases}
    assert {p.name for p in tmp_path.iterdir()} == expected
    codegen_wheel = zipfile.ZipFile(tmp_path / f"evalschema_codegen-{version}-py3-none-any.whl").namelist()
    assert "codegen/templates/docs/page.md.j2" in codegen_wheel and not [n for n in codegen_wheel if n.startswith("evalschema/")]
    for release in releases:
        names = set(zipfile.ZipFile(tmp_path / f"evalschema-schemas-{release}.zip").namelist())
        folder = REPO / "spec" / "releases" / release
        kinds = {p.name for p in folder.glob("*.json") if p.name != "manifest.json"}
        assert names == {
            f"evalschema-schemas-{release}/{n}"
            for n in {p.name for p in folder.iterdir()} | {f"bundled/{k}" for k in kinds} | {"bundled/catalog.json"}
        }


# --- the README's own lines, as written ---------------------------------------------------------------------------

README = (REPO / "README.md").read_text(encoding="utf-8")
VERSION = json.loads((REPO / "schemas" / "common.json").read_text())["$id"].split("/")[-2]


def _install_lines() -> list[str]:
    """The commands of the sh blocks of the README's Install section (up to its pre-commit part)."""
    section = README.split("\n## Install\n", 1)[1].split("\n## ", 1)[0].split("**pre-commit.**", 1)[0]
    return [
        line.split(" #", 1)[0].strip()
        for block in re.findall(r"```sh\n(.*?)```", section, re.S)
        for line in block.splitlines()
        if line.strip()
    ]


@pytest.mark.slow
def test_every_install_line_of_the_readme(wheelhouse: Path, tmp_path: Path) -> None:
    """Each install line of the README, as written, in a fresh virtual environment: the checkout's lines in the
    checkout, the release's line in a folder of the release's wheels (built as `./noxw -s packages` builds them)."""
    lines = _install_lines()
    assert len(lines) >= 4 and all(line.startswith("pip install ") for line in lines), lines
    release = tmp_path / "release"
    for source in (REPO, REPO / "codegen"):
        _ok([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index", "--find-links", wheelhouse, "-w", release, source])
    for number, line in enumerate(lines):
        bin_dir = _venv(tmp_path / f"venv-{number}")
        words = shlex.split(line)
        cwd = release if any(w.endswith(".whl") for w in words) else REPO
        pip: list[str | Path] = [
            bin_dir / "python",
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--no-index",
            "--find-links",
            wheelhouse,
        ]
        _ok([*pip, *words[2:]], cwd=cwd, env={**os.environ, "PIP_CONSTRAINT": ""})
        _ok([bin_dir / "python", "-m", "pip", "check"])
        installed = {p["name"].lower() for p in json.loads(_ok([bin_dir / "python", "-m", "pip", "list", "--format", "json"]).stdout)}
        for word in words[2:]:  # what the line names is there: the runtime, the generator, each extra's distributions
            if "codegen" in word:
                assert "evalschema-codegen" in installed, line
            elif word.startswith(".[") or word == ".":
                assert "evalschema" in installed, line
                extras = word[2:-1].split(",") if word.startswith(".[") else []
                named = {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower() for e in extras for r in _extra_requirements(e)}
                assert {n.replace("_", "-") for n in named} <= {n.replace("_", "-") for n in installed}, (line, named - installed)
            else:
                assert word.endswith(".whl") and (release / word).is_file(), word


def _tagged_clone(where: Path, tag: str) -> Path:
    """A clone of this repository at the tested commit, with the release's tag made on it (no tag is pushed yet;
    the release of this version makes it). The commit is what is committed: the tests run on a committed tree."""
    head = _ok(["git", "-C", REPO, "rev-parse", "HEAD"]).stdout.strip()
    _ok(["git", "clone", "--quiet", "--no-checkout", REPO, where])
    _ok(["git", "-C", where, "checkout", "--quiet", head])
    _ok(["git", "-C", where, "tag", tag])
    return where


@pytest.fixture(scope="module")
def release_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tagged_clone(tmp_path_factory.mktemp("release") / "evalschema", f"v{VERSION}")


@pytest.mark.slow
def test_the_readme_pre_commit_snippet_at_its_own_rev(wheelhouse: Path, release_clone: Path, tmp_path: Path) -> None:
    (snippet,) = [b for b in re.findall(r"```yaml\n(.*?)```", README, re.S) if b.startswith("repos:")]
    ((repo,),) = [yaml.safe_load(snippet)["repos"]]
    assert repo["repo"] == "https://github.com/evalschema/evalschema" and repo["rev"] == f"v{VERSION}", repo
    files = _hook_repo(tmp_path / "project")
    home = tmp_path / "pre-commit-home"
    for hook in repo["hooks"]:
        clean = _try_repo(tmp_path / "project", wheelhouse, home, files["valid"], source=release_clone, ref=repo["rev"], hook=hook["id"])
        assert clean.returncode == 0 and _totals(clean.stdout) == (1, 1, 0, 0), clean.stdout + clean.stderr
        broken = _try_repo(tmp_path / "project", wheelhouse, home, files["invalid"], source=release_clone, ref=repo["rev"], hook=hook["id"])
        assert broken.returncode == 1 and "GRADER_PARAMS_INVALID" in broken.stdout, broken.stdout + broken.stderr


@pytest.mark.slow
def test_the_pre_commit_config_init_writes(wheelhouse: Path, release_clone: Path, tmp_path: Path) -> None:
    """`evalschema init`, then its `.pre-commit-config.yaml` as written — its repository URL pointed at the tagged
    clone, nothing else changed — runs the hook over what init wrote, then fails on a broken document."""
    project = tmp_path / "project"
    _ok([sys.executable, "-m", "evalschema", "init", project])
    config = project / ".pre-commit-config.yaml"
    url = "https://github.com/evalschema/evalschema"
    assert config.read_text().count(f"repo: {url}\n") == 1
    config.write_text(config.read_text().replace(f"repo: {url}\n", f"repo: {release_clone}\n"))
    _ok(["git", "init", "-q", project])
    _ok(["git", "-C", project, "add", "-A"])
    env = _pre_commit_env(wheelhouse, tmp_path / "pre-commit-home")
    clean = _run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"], cwd=project, env=env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert _totals(clean.stdout) == (4, 4, 0, 0), clean.stdout
    (project / "evals" / "broken.grader.json").write_text(json.dumps(GRADER_BAD))
    _ok(["git", "-C", project, "add", "-A"])
    broken = _run([sys.executable, "-m", "pre_commit", "run", "--all-files", "--verbose"], cwd=project, env=env)
    assert broken.returncode == 1 and "GRADER_PARAMS_INVALID" in broken.stdout, broken.stdout + broken.stderr
    assert _totals(broken.stdout) == (5, 4, 1, 0), broken.stdout
