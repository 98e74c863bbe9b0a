"""The published releases of the specification, offline.

Every release's schemas ship with the package (``evalschema/_schemas/releases/<version>/``, copied there at
build time from ``spec/releases/``); in a source checkout they are read from ``spec/releases/`` directly.
Nothing is ever fetched: a reference the local files cannot resolve is an error. To validate against a
release, pass it to the validator: ``evalschema.validate(document, spec_version="1.0.0")``.

>>> from evalschema.schemas import releases
>>> "1.0.0" in releases.available()
True
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalschema_models import constants

from .data import package_data

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

MANIFEST = constants.RELEASE_MANIFEST


def _root() -> Traversable:
    bundled = package_data("_schemas", "releases")
    if bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parents[2] / "spec" / "releases"


def _key(version: str) -> tuple[int, ...]:
    core = version.split("-", 1)[0].split("+", 1)[0]
    return tuple(int(p) for p in core.split(".") if p.isdigit())


def available() -> list[str]:
    """The bundled release versions, oldest first."""
    root = _root()
    names = [entry.name for entry in root.iterdir() if entry.is_dir() and (entry / MANIFEST).is_file()] if root.is_dir() else []
    return sorted(names, key=lambda v: (_key(v), v))


def folder(version: str) -> Traversable:
    """The release's folder (a ``Path`` unless the package is imported from a zip file)."""
    if version not in available():
        raise LookupError(f"no bundled release {version!r}; available: {', '.join(available())}")
    return _root() / version


@cache
def manifest(version: str) -> dict[str, Any]:
    """The release's manifest: ``{"version", "date", "files": {name: sha256}}``."""
    data: dict[str, Any] = json.loads((folder(version) / MANIFEST).read_text(encoding="utf-8"))
    return data


@cache
def schemas(version: str) -> dict[str, dict[str, Any]]:
    """The schema documents of a release, by file name."""
    where = folder(version)
    return {name: json.loads((where / name).read_text(encoding="utf-8")) for name in sorted(manifest(version)["files"])}


def schema_uri(version: str, kind: str) -> str:
    if kind not in constants.KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(constants.KINDS)}")
    return str(schemas(version)[f"{kind}.json"]["$id"])
