"""Load a folder of JSON Schema (draft 2020-12) files into an offline ``referencing.Registry``.

Every ``*.json`` file directly inside the folder is one schema resource. Each is checked against the draft
2020-12 meta-schema and against codegen's annotation meta-schema (``metaschema/annotations.json``), every
``$ref`` is resolved up front, and nothing is ever fetched: an unknown URI raises :class:`SchemaError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urldefrag, urljoin

import referencing
import referencing.exceptions
from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]
from jsonschema.exceptions import SchemaError as _MetaSchemaError  # type: ignore[import-untyped,unused-ignore]
from jsonschema.exceptions import best_match  # type: ignore[import-untyped,unused-ignore]
from referencing.jsonschema import DRAFT202012

DIALECT = "https://json-schema.org/draft/2020-12/schema"
ANNOTATIONS_METASCHEMA = Path(__file__).parent / "metaschema" / "annotations.json"


class SchemaError(Exception):
    """A schema that codegen cannot use. ``file`` is the file name, ``pointer`` a JSON Pointer into it."""

    def __init__(self, file: str, pointer: str, message: str) -> None:
        super().__init__(f"{file}#{pointer}: {message}")
        self.file = file
        self.pointer = pointer
        self.message = message


class RemoteFetchRefused(LookupError):
    """Raised by the registry's retrieve hook: codegen resolves only the files of the schema folder."""


def _refuse(uri: str) -> referencing.Resource[Any]:
    raise RemoteFetchRefused(f"codegen never fetches schemas; {uri} is not a file of the schema folder")


def escape_token(token: str | int) -> str:
    return str(token).replace("~", "~0").replace("/", "~1")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def pointer_of(path: Iterator[str | int] | list[str | int] | tuple[str | int, ...]) -> str:
    return "".join("/" + escape_token(p) for p in path)


@dataclass(frozen=True)
class Location:
    """Where an element comes from: a schema file name and a JSON Pointer into it."""

    file: str
    pointer: str

    def child(self, *tokens: str | int) -> Location:
        return Location(self.file, self.pointer + pointer_of(list(tokens)))

    def __str__(self) -> str:
        return f"{self.file}#{self.pointer}"


@dataclass(frozen=True)
class SchemaFile:
    name: str
    uri: str
    contents: dict[str, Any]
    text: str


@dataclass
class SchemaSet:
    """The loaded folder: files in file-name order, the registry, and a map from node identity to location."""

    root: Path
    files: tuple[SchemaFile, ...]
    registry: referencing.Registry[Any]
    _locations: dict[int, Location] = field(default_factory=dict, repr=False)
    _bases: dict[int, str] = field(default_factory=dict, repr=False)

    def location_of(self, node: object) -> Location | None:
        return self._locations.get(id(node))

    def base_uri_of(self, node: object) -> str:
        return self._bases[id(node)]

    def resolve_ref(self, node: dict[str, Any], ref: str) -> tuple[Any, Location]:
        """Resolve ``ref`` written inside ``node``; return the target schema and its location."""
        base = self._bases[id(node)]
        loc = self._locations[id(node)]
        try:
            resolved = self.registry.resolver(base_uri=base).lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            raise SchemaError(loc.file, loc.pointer + "/$ref", _unresolvable_message(ref, urljoin(base, ref), exc)) from None
        target = resolved.contents
        target_loc = self._locations.get(id(target))
        if target_loc is None:  # a boolean schema or a node codegen did not index
            uri, frag = urldefrag(urljoin(base, ref))
            target_loc = Location(self._file_for_uri(uri) or uri, frag)
        return target, target_loc

    def _file_for_uri(self, uri: str) -> str | None:
        for f in self.files:
            if f.uri == uri:
                return f.name
        return None


def _unresolvable_message(ref: str, absolute: str, exc: Exception) -> str:
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, RemoteFetchRefused):
            return (
                f"$ref {ref!r} points outside the schema folder ({absolute}); codegen never fetches, "
                "so every referenced schema must be a file of the folder with a matching $id"
            )
        cause = cause.__cause__ or cause.__context__
    return f"dangling $ref {ref!r}: cannot resolve {absolute}"


def _load_annotations_checker() -> Draft202012Validator:
    return Draft202012Validator(json.loads(ANNOTATIONS_METASCHEMA.read_text(encoding="utf-8")))


def _walk(node: Any, loc: Location, base: str, out_loc: dict[int, Location], out_base: dict[int, str], keep: list[Any]) -> Iterator[tuple[dict[str, Any], Location, str]]:
    if isinstance(node, dict):
        if isinstance(node.get("$id"), str) and loc.pointer:
            base = urljoin(base, node["$id"])
        out_loc[id(node)] = loc
        out_base[id(node)] = base
        keep.append(node)
        yield node, loc, base
        for key, value in node.items():
            if key in ("enum", "const", "default", "examples", "x-deprecation") or (key.startswith("x-")):
                continue
            if key in ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas") and isinstance(value, dict):
                for sub_key, sub in value.items():
                    yield from _walk(sub, loc.child(key, sub_key), base, out_loc, out_base, keep)
            elif isinstance(value, (dict, list)):
                yield from _walk(value, loc.child(key), base, out_loc, out_base, keep)
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _walk(item, loc.child(i), base, out_loc, out_base, keep)


def load(folder: Path | str) -> SchemaSet:
    """Read every ``*.json`` directly in ``folder``; raise :class:`SchemaError` on any problem."""
    root = Path(folder)
    if not root.is_dir():
        raise SchemaError(str(root), "", "schema folder does not exist")
    paths = sorted((p for p in root.glob("*.json") if p.is_file()), key=lambda p: p.name)
    if not paths:
        raise SchemaError(str(root), "", "no *.json schema files in the folder")
    annotations = _load_annotations_checker()
    files: list[SchemaFile] = []
    seen_uris: dict[str, str] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            contents = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SchemaError(path.name, "", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
        if not isinstance(contents, dict):
            raise SchemaError(path.name, "", "a schema file must hold a JSON object")
        dialect = contents.get("$schema", DIALECT)
        if dialect != DIALECT:
            raise SchemaError(path.name, "/$schema", f"unsupported dialect {dialect!r}; codegen reads draft 2020-12 only ({DIALECT})")
        try:
            Draft202012Validator.check_schema(contents)
        except _MetaSchemaError as exc:
            raise SchemaError(path.name, pointer_of(list(exc.absolute_path)), f"not a valid draft 2020-12 schema: {exc.message}") from None
        error = best_match(annotations.iter_errors(contents))
        if error is not None:
            raise SchemaError(path.name, pointer_of(list(error.absolute_path)), f"annotation meta-schema violation: {error.message}")
        uri = contents.get("$id") or path.resolve().as_uri()
        uri = urldefrag(uri)[0]
        if uri in seen_uris:
            raise SchemaError(path.name, "/$id", f"$id {uri!r} is also used by {seen_uris[uri]}")
        seen_uris[uri] = path.name
        files.append(SchemaFile(name=path.name, uri=uri, contents=contents, text=text))

    resources = [(f.uri, referencing.Resource.from_contents(f.contents, default_specification=DRAFT202012)) for f in files]
    empty: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg,unused-ignore]
    registry = empty.with_resources(resources).crawl()
    schema_set = SchemaSet(root=root, files=tuple(files), registry=registry)
    keep: list[Any] = []
    refs: list[tuple[dict[str, Any], Location, str]] = []
    for f in files:
        for node, loc, base in _walk(f.contents, Location(f.name, ""), f.uri, schema_set._locations, schema_set._bases, keep):
            if "$ref" in node:
                refs.append((node, loc, base))
            if "$dynamicRef" in node and not isinstance(node["$dynamicRef"], str):
                raise SchemaError(loc.file, loc.pointer + "/$dynamicRef", "$dynamicRef must be a string")
    for node, _loc, _base in refs:
        schema_set.resolve_ref(node, node["$ref"])
    return schema_set
