"""Nox sessions for evalschema.

Run them through ``./noxw`` (it builds ``.venv`` from the pinned constraints); every session runs in that one
environment, so nox itself never installs Python packages.

- ``generate``: the main job — regenerate every derived artifact from ``schemas/`` and ``spec/ledger.json``,
  then run the consistency checks (schemas, conformance fixtures, the two validation paths).
- ``tests``: everything CI runs.
- ``bench_codegen``: time a full ``generate`` against datamodel-code-generator alone.
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


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite: drift check, the TypeScript SDK's tests, then every Python test (schemas, codegen,
    conformance, consistency, CLI, the cross-language agreement test)."""
    _node_modules(session)
    session.run(PYTHON, "-m", "codegen", "check")
    session.run("npm", "test", "--prefix", "js", external=True)
    session.run(PYTHON, "-m", "pytest", *(session.posargs or ["-q"]))


@nox.session
def bench_codegen(session: nox.Session) -> None:
    """Benchmark: full codegen generate vs datamodel-code-generator alone (ratios from one run)."""
    session.run(PYTHON, "benchmarks/codegen_bench.py", *session.posargs)
