"""Shared fixtures: the schemas, an offline registry over them, and a validator per document kind."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import referencing
from jsonschema import Draft202012Validator

from schema_helpers import build_registry, load_schemas, make_validator


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
