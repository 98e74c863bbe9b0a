"""The published releases of the specification, offline.

Every release's schemas ship with the package (``evalschema/_schemas/releases/<version>/``, copied there at
build time from ``spec/releases/``); in a source checkout they are read from ``spec/releases/`` directly.
Nothing is ever fetched: a reference the local files cannot resolve is an error.

>>> from evalschema import releases
>>> "1.0.0" in releases.available()
True
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource
from referencing.jsonschema import DRAFT202012

from .findings import Finding, pointer
from .registry import KINDS

MANIFEST = "manifest.json"


def _root() -> Traversable:
    bundled = resources.files("evalschema") / "_schemas" / "releases"
    if bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parent.parent / "spec" / "releases"


def _key(version: str) -> tuple[int, ...]:
    core = version.split("-", 1)[0].split("+", 1)[0]
    return tuple(int(p) for p in core.split(".") if p.isdigit())


def available() -> list[str]:
    """The bundled release versions, oldest first."""
    root = _root()
    names = [entry.name for entry in root.iterdir() if entry.is_dir() and (entry / MANIFEST).is_file()] if root.is_dir() else []
    return sorted(names, key=lambda v: (_key(v), v))


def _refuse_remote(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class the stubs do not describe


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
    return {
        name: json.loads((where / name).read_text(encoding="utf-8"))
        for name in sorted(manifest(version)["files"])
    }


@cache
def registry(version: str) -> Registry[Any]:
    """A ``referencing`` registry holding every schema of the release, keyed by ``$id``; never fetches."""
    resources_ = [(doc["$id"], DRAFT202012.create_resource(doc)) for doc in schemas(version).values()]
    empty: Registry[Any] = Registry(retrieve=_refuse_remote)  # type: ignore[call-arg]
    return empty.with_resources(resources_).crawl()


def schema_uri(version: str, kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    return str(schemas(version)[f"{kind}.json"]["$id"])


def validator(version: str, kind: str) -> Draft202012Validator:
    """A python-jsonschema validator for one document kind of one release (formats checked), offline."""
    schema = {"$ref": schema_uri(version, kind)}
    return Draft202012Validator(schema, registry=registry(version), format_checker=Draft202012Validator.FORMAT_CHECKER)


def check(document: Any, version: str, kind: str) -> list[Finding]:
    """Schema errors of ``document`` against one kind of one release, with the ledger codes of the schema path
    (``UNKNOWN_FIELD`` at each undeclared property, ``REQUIRED_FIELD``, ...). Schema rules only: the
    hand-written rules and the version policy of :func:`evalschema.validate` are not applied."""
    from .schema_path import KEYWORD_CODES

    out: list[Finding] = []
    for error in validator(version, kind).iter_errors(document):
        path = list(error.absolute_path)
        code = KEYWORD_CODES.get(str(error.validator), "SCHEMA_MISMATCH")
        if error.validator == "additionalProperties" and isinstance(error.instance, dict) and isinstance(error.schema, dict):
            declared = error.schema.get("properties", {})
            for name in error.instance:
                if name not in declared:
                    out.append(Finding(pointer(*path, name), code, "error", f"unknown field {name!r} in release {version}"))
            continue
        out.append(Finding(pointer(*path), code, "error", error.message))
    return sorted(out)
