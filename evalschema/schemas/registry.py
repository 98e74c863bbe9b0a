"""The bundled schemas, loaded offline; a `referencing` registry over them when references must be resolved.

Nothing here touches the network: every schema is read from local files, and any reference the registry
cannot resolve locally is an error rather than a fetch.
"""

from __future__ import annotations

import re
from functools import cache, cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from evalschema_models import constants

from .data import package_data

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from referencing import Registry, Resource

KINDS: tuple[str, ...] = constants.KINDS


_CHECKOUT = Path(__file__).resolve().parents[2]


def schema_dir() -> Traversable:
    """Where the schemas live: package data of an installed distribution, the repository's schemas/ otherwise."""
    bundled = package_data("_schemas")
    return bundled if bundled.is_dir() else _CHECKOUT / "schemas"


def bundled_dir() -> Traversable:
    """The single-file schemas and their catalog (``generated/schemas/`` in a checkout)."""
    bundled = package_data("_schemas", "bundled")
    return bundled if bundled.is_dir() else _CHECKOUT / "generated" / "schemas"


def arrow_dir() -> Traversable:
    """The generated Arrow field trees (``generated/arrow/`` in a checkout)."""
    bundled = package_data("_schemas", "arrow")
    return bundled if bundled.is_dir() else _CHECKOUT / "generated" / "arrow"


def _refuse_remote(uri: str) -> Resource[Any]:
    """The registry's retrieve hook: every schema is local, so any other URI is an error, never a fetch."""
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # an attrs class the stubs do not describe


class SchemaSet:
    """The schemas of one specification version: ``documents``, every schema file by its $id; ``roots``, the
    schema of each kind. A plain class: its registry is a ``cached_property``, which needs the instance's
    ``__dict__`` (no ``NamedTuple``), and a dataclass costs ~1 ms of start-up to create (``evalschema.__main__``)."""

    def __init__(self, version: str, base_uri: str, documents: dict[str, dict[str, Any]], roots: dict[str, dict[str, Any]]) -> None:
        self.version, self.base_uri, self.documents, self.roots = version, base_uri, documents, roots

    @property
    def resources(self) -> tuple[str, ...]:
        """The $id of every schema file."""
        return tuple(self.documents)

    @cached_property
    def registry(self) -> Registry[Any]:
        """The schemas in a `referencing` registry, crawled, built on first use: valid documents of most kinds
        never resolve a reference in Python (jsonschema-rs does its own), so they do not pay for the import."""
        from referencing import Registry
        from referencing.jsonschema import DRAFT202012

        resources = [(uri, DRAFT202012.create_resource(contents)) for uri, contents in self.documents.items()]
        registry: Registry[Any] = Registry(retrieve=_refuse_remote).with_resources(resources)  # type: ignore[call-arg]
        return registry.crawl()

    def uri(self, kind: str) -> str:
        return f"{self.base_uri}{kind}.json"


# A schema's $id is a $schema URI of this specification (SCHEMA_URI, matched whole): its base ends before the kind.
_ID_RE = re.compile(constants.SCHEMA_URI)


def build(documents: list[dict[str, Any]], where: str) -> SchemaSet:
    """A schema set from the schema documents of one version (every ``$id`` versioned, one version)."""
    by_id: dict[str, dict[str, Any]] = {}
    roots: dict[str, dict[str, Any]] = {}
    version = base = ""
    for contents in documents:
        match = _ID_RE.fullmatch(str(contents.get("$id", "")))
        if match is None:
            raise RuntimeError(f"{where}: $id {contents.get('$id')!r} is not a versioned evalschema URI")
        version, base = match["version"], match.string[: match.start("kind")]
        by_id[contents["$id"]] = contents
        if match["kind"] in KINDS:
            roots[match["kind"]] = contents
    return SchemaSet(version=version, base_uri=base, documents=by_id, roots=roots)


@cache
def current() -> SchemaSet:
    """The schemas this package validates against by default (the working version)."""
    directory = schema_dir()
    files = sorted((entry for entry in directory.iterdir() if entry.name.endswith(".json") and entry.is_file()), key=lambda e: e.name)
    documents = [orjson.loads(entry.read_bytes()) for entry in files]
    return build(documents, str(directory))


@cache
def load(version: str | None = None) -> SchemaSet:
    """The schemas of one version: the working ones (``None``, or their version), else a published release."""
    if version is None or version == current().version:
        return current()
    from . import releases  # a published release: only --spec-version asks (start-up: ``evalschema.__main__``)

    return build(list(releases.schemas(version).values()), f"release {version}")


def spec_version() -> str:
    return current().version
