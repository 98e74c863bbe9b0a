"""Shared fixtures: the schemas, an offline registry over them, and a validator per document kind."""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import referencing
from jsonschema import Draft202012Validator
from schema_helpers import build_registry, load_schemas, make_validator
from tools import missing_tool

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "js"


def _js_stale() -> bool:
    cli = JS / "dist" / "cli.js"
    if not cli.exists():
        return True
    built = cli.stat().st_mtime
    sources = [
        *JS.glob("src/**/*.ts"),
        *JS.glob("test/*.ts"),
        *(ROOT / "generated" / "typescript").glob("*.ts"),
        *(ROOT / "schemas").glob("*.json"),
    ]
    return any(p.stat().st_mtime > built for p in sources)


@pytest.fixture(scope="session")
def built_js() -> Path:
    """``js/dist/cli.js``, built (``npm run build``) when missing or older than its sources; node is required."""
    if shutil.which("node") is None:
        missing_tool("node is not installed: the TypeScript SDK and the JavaScript oracles cannot run")
    if _js_stale():
        if shutil.which("npm") is None or not (JS / "node_modules").is_dir():
            missing_tool("js/dist is missing or stale and cannot be built: run `npm ci --prefix js`")
        build = subprocess.run(["npm", "run", "build"], cwd=JS, capture_output=True, text=True, check=False)
        assert build.returncode == 0, f"npm run build failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}"
    return JS / "dist" / "cli.js"


@pytest.fixture(scope="session")
def schemas() -> dict[str, dict[str, Any]]:
    """Every ``schemas/*.json`` by file name."""
    return load_schemas()


@pytest.fixture(scope="session")
def fetched() -> list[str]:
    """URIs the registry was asked to retrieve (it refuses them all); must stay empty."""
    return []


@pytest.fixture(scope="session")
def registry(schemas: dict[str, dict[str, Any]], fetched: list[str]) -> referencing.Registry[Any]:
    return build_registry(schemas, fetched)


@pytest.fixture(scope="session")
def validator_for(registry: referencing.Registry[Any]) -> Callable[[str], Draft202012Validator]:
    """``validator_for("resultset")``: a Draft 2020-12 validator with format assertion on, offline."""
    cache: dict[str, Draft202012Validator] = {}

    def get(kind: str) -> Draft202012Validator:
        if kind not in cache:
            cache[kind] = make_validator(kind, registry)
        return cache[kind]

    return get


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Any socket connection attempt is recorded and fails."""
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError(f"network access attempted during an offline test: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    yield attempts
