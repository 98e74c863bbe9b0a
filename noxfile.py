"""Nox sessions for evalschema.

Run them through ``./noxw`` (it builds ``.venv`` from the pinned constraints); every session runs in that one
environment, so nox itself never installs Python packages.

- ``generate``: the main job — regenerate every derived artifact from ``schemas/`` and ``spec/ledger.json``,
  then run the consistency checks (schemas, conformance fixtures, the two validation paths).
- ``tests``: everything CI runs: the drift check, ``lint``, ``typing``, the TypeScript SDK's tests, every Python test.
- ``lint``: ruff (lint and format check). ``typing``: mypy --strict over every Python file, tsc --strict for js.
- ``cold``: the README's quick start in a fresh clone with ``HOME`` and the pip/npm caches pointed at empty folders.
- ``bench``: validation and codegen benchmarks (ratios measured in one run; never timed tests).
- ``bench_codegen``: time and peak memory of a full ``generate`` against datamodel-code-generator alone.
- ``bench_migrate``: ``migrate`` of a 2,000-prompt YAML pack against a ruamel round trip of it (issue 39).
- ``models_official_tests``: the generated models against the official JSON-Schema-Test-Suite, figures by keyword.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["tests"]

HERE = Path(__file__).parent
# the interpreter running nox is .venv's (see noxw); "python" on PATH may be another one
PYTHON = sys.executable
CONSISTENCY = ["tests/test_schemas.py", "tests/test_conformance.py", "tests/test_consistency.py"]


def _node_modules(session: nox.Session) -> None:
    """Install the Node toolchain (typescript) from the lockfile when it is missing."""
    if not (HERE / "js" / "node_modules" / ".bin" / "tsc").exists():
        session.run("npm", "ci", "--prefix", "js", "--no-audit", "--no-fund", external=True)


@nox.session
def generate(session: nox.Session) -> None:
    """Regenerate generated/ from the schemas and the ledger, then run the consistency checks."""
    session.run(PYTHON, "-m", "codegen", "generate")
    session.run(PYTHON, "-m", "pytest", "-q", *CONSISTENCY)


@nox.session
def check(session: nox.Session) -> None:
    """Fail (with a diff) when generated/ is stale; never writes."""
    session.run(PYTHON, "-m", "codegen", "check")
    session.run(PYTHON, "scripts/import_graph.py")  # no cycle, no upward import, no import of the generator
    session.run(PYTHON, "scripts/rule_units.py")  # every code rule of the ledger has one unit, and no unit lacks one


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: lint rules and formatting (pyproject's [tool.ruff]); never rewrites."""
    session.run(PYTHON, "-m", "ruff", "check", ".")
    session.run(PYTHON, "-m", "ruff", "format", "--check", ".")


@nox.session
def typing(session: nox.Session) -> None:
    """mypy --strict over the SDK, the generator, the generated models, tests, scripts and benchmarks; tsc --strict
    over the TypeScript SDK and its tests (its build)."""
    _node_modules(session)
    session.run(PYTHON, "-m", "mypy")
    # tests/codegen on its own: its modules (conftest, codegen_helpers) are named by their folder
    session.run(PYTHON, "-m", "mypy", "--no-explicit-package-bases", *sorted(str(p) for p in (HERE / "tests" / "codegen").glob("*.py")))
    session.run("npm", "run", "build", "--prefix", "js", external=True)


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite: drift check, lint, typing, the TypeScript SDK's tests, then every Python test (schemas,
    codegen, conformance, consistency, CLI, install, the cross-language agreement test)."""
    _node_modules(session)
    session.run(PYTHON, "-m", "codegen", "check")
    lint(session)
    typing(session)
    session.run("npm", "test", "--prefix", "js", external=True)
    session.run(PYTHON, "-m", "pytest", *(session.posargs or ["-q"]))


@nox.session
def cold(session: nox.Session) -> None:
    """The quick start on a cold machine: a fresh clone of HEAD (committed work only), with HOME, the pip, npm and
    other caches pointed at empty folders, no .venv and no node_modules; runs both README commands there. The folder
    (about 4 GB: the clone, its environments and caches) is removed when the run passes, kept for a look when not."""
    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="evalschema-cold-"))
    clone = root / "clone"
    session.run("git", "clone", "--quiet", str(HERE), str(clone), external=True)
    empty = {name: root / name for name in ("home", "pip-cache", "npm-cache", "xdg-cache")}
    for folder in empty.values():
        folder.mkdir()
    env = {
        "HOME": str(empty["home"]),
        "PIP_CACHE_DIR": str(empty["pip-cache"]),
        "npm_config_cache": str(empty["npm-cache"]),
        "XDG_CACHE_HOME": str(empty["xdg-cache"]),
        "VIRTUAL_ENV": "",
        "PYTHONPATH": "",
    }
    with session.chdir(clone):
        # noxw must build its environment with the machine's python, not the one running this session
        session.run("env", "-u", "VIRTUAL_ENV", "./noxw", "-s", "generate", external=True, env=env)
        session.run("git", "diff", "--exit-code", external=True)  # generate on a clean clone changes nothing
        session.run("env", "-u", "VIRTUAL_ENV", "./noxw", "-s", "tests", *session.posargs, external=True, env=env)
    shutil.rmtree(root)  # reached only when every step passed (a failed step ends the session)


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks (not tests): validation speed and memory as ratios to json.loads / JSON.parse measured in the same
    run — 1k/10k/100k-result documents and a 1 GB JSON Lines stream — then codegen against datamodel-code-generator,
    then results at scale (``bench_scale``). ``./noxw -s bench -- --sizes 1000 10000 --jsonl-mb 100`` runs a smaller
    validation benchmark (the others at their sizes)."""
    _node_modules(session)
    session.run("npm", "run", "build", "--prefix", "js", external=True)
    session.run(PYTHON, "benchmarks/validation_bench.py", *session.posargs)
    session.run(PYTHON, "benchmarks/limit_bench.py")
    session.run(PYTHON, "benchmarks/codegen_bench.py")
    session.run(PYTHON, "benchmarks/scale_bench.py")


@nox.session
def bench_limit(session: nox.Session) -> None:
    """Benchmark (issues 22, 44): whole ``evalschema validate`` / ``evalschema-js`` processes against both limits
    (read + ``orjson.loads``; read + decoding into the generated msgspec types; collector off), a small document to
    100k results and four row shapes (also against check-jsonschema and jsonschema-rs alone), medians of >= 5
    alternating runs and peaks per side. ``./noxw -s bench_limit -- --large-mb 1024`` adds the 1 GiB result set."""
    _node_modules(session)
    session.run("npm", "run", "build", "--prefix", "js", external=True)
    session.run(PYTHON, "benchmarks/limit_bench.py", *session.posargs)


@nox.session
def bench_scale(session: nox.Session) -> None:
    """Benchmark (issue 21): a 1 GB result set to Parquet (time, peak memory, size against the JSON) and
    ``validate -j 2`` against ``-j 1`` on 1 GB of JSON Lines and a folder of 200 result sets, ratios from one run.
    ``./noxw -s bench_scale -- --json-mb 100 --jsonl-mb 100`` runs a smaller one."""
    session.run(PYTHON, "benchmarks/scale_bench.py", *session.posargs)


@nox.session
def bench_codegen(session: nox.Session) -> None:
    """Benchmark: full codegen generate vs datamodel-code-generator alone, CPU time and peak memory (child processes).
    ``./noxw -s bench_codegen -- --corpus`` runs every set of tests/codegen/corpus; ``--schemas DIR ...`` others."""
    session.run(PYTHON, "benchmarks/codegen_bench.py", *session.posargs)


@nox.session
def bench_diff(session: nox.Session) -> None:
    """Benchmark: codegen diff over the corpus of real schema histories vs the diff before witnesses (CPU ratio, one run)."""
    session.run(PYTHON, "benchmarks/diff_bench.py", *session.posargs)


@nox.session
def bench_interop(session: nox.Session) -> None:
    """Benchmark: `evalschema import` of 1 GB of lm-eval samples and a 1 GB Inspect log (peak memory against the
    150 MiB goal; CPU against the tool's own reader of the same input). Smaller: `-- --lm-eval-mb 64 --inspect-samples 500`."""
    session.run(PYTHON, "benchmarks/interop_bench.py", *session.posargs)


@nox.session
def models_official_tests(session: nox.Session) -> None:
    """The generated models against the official JSON-Schema-Test-Suite (draft 2020-12, the keywords of issue 41):
    agreement by keyword of the Python models and of the TypeScript type guards, then what validating a model costs
    against jsonschema-rs alone."""
    _node_modules(session)
    session.run(PYTHON, "tests/codegen/official_tests.py", *session.posargs)
    session.run(PYTHON, "benchmarks/models_bench.py")


@nox.session
def policy(session: nox.Session) -> None:
    """The release policy: every release matches its manifest; the working schemas carry the version the diff requires."""
    session.run(PYTHON, "-m", "codegen", "policy", "--releases", "spec/releases", "--schemas", "schemas", *session.posargs)
    session.run(PYTHON, "-m", "codegen", "changelog", "--releases", "spec/releases", "--out", "spec/CHANGELOG.md", "--check")


@nox.session
def release(session: nox.Session) -> None:
    """Publish the working schemas as spec/releases/<version>/ (refuses to overwrite), then regenerate the changelog.

    ``./noxw -s release -- --date YYYY-MM-DD`` (default: today). See spec/RELEASING.md.
    """
    session.run(PYTHON, "-m", "codegen", "release", "--schemas", "schemas", "--releases", "spec/releases", *session.posargs)
    session.run(PYTHON, "-m", "codegen", "changelog", "--releases", "spec/releases", "--out", "spec/CHANGELOG.md")


@nox.session
def packages(session: nox.Session) -> None:
    """dist/: sdist and wheel of evalschema and evalschema-codegen, one schema zip per release, the npm tarball."""
    dist = HERE / "dist"
    session.run(PYTHON, "scripts/package.py", "--out", str(dist))
    _node_modules(session)
    with session.chdir(HERE / "js"):
        session.run("npm", "pack", "--pack-destination", str(dist), external=True)


@nox.session
def hostile(session: nox.Session) -> None:
    """The hostile-input corpus and the no-network tests (issue #9), through the CLI and the SDKs."""
    session.run(PYTHON, "-m", "pytest", "-q", "tests/test_hostile.py", "tests/test_no_network.py", *session.posargs)


@nox.session
def fuzz(session: nox.Session) -> None:
    """Deeper property-based fuzzing of the loaders, the validator and the streaming reader (broken texts read in
    pieces must report as read whole): EVALSCHEMA_FUZZ_EXAMPLES examples per test and per document kind (default
    here 10,000; the test suite runs 200). ``-- -x`` and other pytest options pass through."""
    import os

    examples = os.environ.get("EVALSCHEMA_FUZZ_EXAMPLES", "10000")
    session.run(
        PYTHON,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--durations=0",
        "--hypothesis-show-statistics",
        "tests/test_fuzz.py",
        "tests/test_stream.py::test_broken_text_reports_like_whole",
        *session.posargs,
        env={"EVALSCHEMA_FUZZ_EXAMPLES": examples},
    )


@nox.session
def bench_compare(session: nox.Session) -> None:
    """Benchmark: ``evalschema compare`` on 2 x 1,000,000 rows against validating them, with peak memory (issue 19)."""
    session.run(PYTHON, "benchmarks/compare_bench.py", *session.posargs)


@nox.session
def bench_migrate(session: nox.Session) -> None:
    """Benchmark: ``evalschema migrate`` of a 2,000-prompt YAML pack against a plain ruamel round trip of the same
    file, with peak memory (issue 39). ``./noxw -s bench_migrate -- --prompts 500 --runs 1`` runs a quicker one."""
    session.run(PYTHON, "benchmarks/migrate_bench.py", *session.posargs)
