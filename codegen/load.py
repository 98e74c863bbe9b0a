"""Load a folder of JSON Schema files (draft-07, 2019-09 or 2020-12) into an offline ``referencing.Registry``.

Every ``*.json`` file directly inside the folder is one schema resource. Its dialect comes from ``$schema``
(:data:`DEFAULT_DIALECT`, 2020-12, when absent); each file is checked against its dialect's meta-schema and
against codegen's annotation meta-schema (``metaschema/annotations.json``), then rewritten into the equivalent
2020-12 document (:func:`upgrade`) so that everything downstream reads one dialect. Every ``$ref`` is resolved up
front — by ``$id``, by anchor, by JSON Pointer, or by a path relative to the referring file inside the folder —
and every ``$dynamicRef`` is resolved statically or refused. Nothing is ever fetched: an unknown URI raises
:class:`SchemaError`.

A retrieval map (``load(folder, retrieval)``; ``[tool.codegen.retrieval]`` or ``--retrieve URL=FILE``) says which
file of the folder a URI stands for, so that a set whose ``$id``s are wrong (a typo) or remote resolves offline:
``"https://example.com/a.json" = "a.json"`` (this URL is that file), or with both ending in ``/``
``"https://example.com/schemas/" = "sub/"`` (every file whose name starts with the folder prefix, ``""`` for the
whole folder, under the URL prefix). A file is then known by its own URI and by each URI the map gives it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import referencing
import referencing.exceptions
from jsonschema import Draft4Validator, Draft6Validator, Draft7Validator, Draft201909Validator, Draft202012Validator  # type: ignore[import-untyped,unused-ignore]
from jsonschema.exceptions import best_match  # type: ignore[import-untyped,unused-ignore]
from referencing.jsonschema import DRAFT202012

DIALECT = "https://json-schema.org/draft/2020-12/schema"
DRAFT4 = "http://json-schema.org/draft-04/schema"
DRAFT6 = "http://json-schema.org/draft-06/schema"
DRAFT7 = "http://json-schema.org/draft-07/schema"
# the dialects where a $ref makes its schema ignore every other keyword, and "$id" ("id" in draft-04) "#name" is an anchor
_REF_ALONE = (DRAFT4, DRAFT6, DRAFT7)
DRAFT201909 = "https://json-schema.org/draft/2019-09/schema"
DEFAULT_DIALECT = DIALECT  # a file without "$schema" is read as draft 2020-12
# accepted spellings of "$schema" (with or without the empty fragment, http or https) -> dialect
_DIALECTS = {
    variant: dialect
    for dialect in (DIALECT, DRAFT4, DRAFT6, DRAFT7, DRAFT201909)
    for scheme in ("http://", "https://")
    for variant in (scheme + dialect.split("://", 1)[1], scheme + dialect.split("://", 1)[1] + "#")
}
_DIALECT_NAMES = {DIALECT: "draft 2020-12", DRAFT4: "draft-04", DRAFT6: "draft-06", DRAFT7: "draft-07", DRAFT201909: "draft 2019-09"}
_META_VALIDATORS: dict[str, Any] = {}


def _fast_meta_check(document: dict[str, Any], dialect: str) -> bool:
    """True when the Rust meta-schema check (``jsonschema_rs``, when installed) finds ``document`` valid.

    It is ~100x faster than python-jsonschema on a large file (renovate's 1.4 MB schema: 10 ms against 1.8 s).
    Every error message still comes from python-jsonschema (``best_match``), which runs whenever this returns
    False: when the document is invalid, when ``jsonschema_rs`` is not installed or when it fails.
    """
    try:
        import jsonschema_rs  # type: ignore[import-not-found,unused-ignore]

        return bool(jsonschema_rs.meta.is_valid({**document, "$schema": dialect}))
    except Exception:
        return False


def _meta_validator(dialect: str) -> Any:
    """One meta-schema checker per dialect, built once per process (building one is the slow part)."""
    if dialect not in _META_VALIDATORS:
        cls = {
            DIALECT: Draft202012Validator,
            DRAFT4: Draft4Validator,
            DRAFT6: Draft6Validator,
            DRAFT7: Draft7Validator,
            DRAFT201909: Draft201909Validator,
        }[dialect]
        _META_VALIDATORS[dialect] = cls(cls.META_SCHEMA)
    return _META_VALIDATORS[dialect]


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
    """One schema file. ``contents`` is the 2020-12 form that every target reads (see :func:`upgrade`)."""

    name: str
    uri: str
    contents: dict[str, Any]
    text: str
    dialect: str = DIALECT


@dataclass
class SchemaSet:
    """The loaded folder: files in file-name order, the registry, and a map from node identity to location."""

    root: Path
    files: tuple[SchemaFile, ...]
    registry: referencing.Registry[Any]
    _locations: dict[int, Location] = field(default_factory=dict, repr=False)
    _bases: dict[int, str] = field(default_factory=dict, repr=False)
    _targets: dict[tuple[int, str], tuple[Any, Location]] = field(default_factory=dict, repr=False)

    def location_of(self, node: object) -> Location | None:
        return self._locations.get(id(node))

    def base_uri_of(self, node: object) -> str:
        return self._bases[id(node)]

    def file(self, name: str) -> SchemaFile:
        return next(f for f in self.files if f.name == name)

    def resolve_ref(self, node: dict[str, Any], ref: str) -> tuple[Any, Location]:
        """Resolve ``ref`` written inside ``node``; return the target schema and its location.

        Lookup order: the ``$id``-based URI (``$id``, anchors, pointers, the files' own URIs); then, for a relative
        reference that names no known ``$id``, the path relative to the referring file inside the schema folder
        (``"other.json#/$defs/x"`` where ``other.json``'s ``$id`` says something else).
        """
        key = (id(node), ref)
        if key in self._targets:
            return self._targets[key]
        base = self._bases[id(node)]
        loc = self._locations[id(node)]
        keyword = "$ref" if node.get("$ref") == ref else "$dynamicRef"
        try:
            resolved = self.registry.resolver(base_uri=base).lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            by_path = self._by_relative_path(loc.file, ref)
            if by_path is None:
                raise SchemaError(loc.file, loc.pointer + "/" + keyword, _unresolvable_message(ref, urljoin(base, ref), exc)) from None
            resolved = by_path
        target = resolved.contents
        target_loc = self._locations.get(id(target))
        if target_loc is None:  # a boolean schema or a node codegen did not index
            uri, frag = urldefrag(urljoin(base, ref))
            target_loc = Location(self._file_for_uri(uri) or uri, frag)
        self._targets[key] = (target, target_loc)
        return target, target_loc

    def _by_relative_path(self, file: str, ref: str) -> Any:
        if urlsplit(ref).scheme or ref.startswith("#"):
            return None
        here = (self.root / file).resolve().as_uri()
        uri, frag = urldefrag(urljoin(here, ref))
        for f in self.files:
            if (self.root / f.name).resolve().as_uri() == uri:
                try:
                    return self.registry.resolver(base_uri=f.uri).lookup("#" + frag)
                except referencing.exceptions.Unresolvable:
                    return None
        return None

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
                "so every referenced schema must be a file of the folder with a matching $id, or one a retrieval map "
                "names for that URL ([tool.codegen.retrieval], --retrieve URL=FILE)"
            )
        cause = cause.__cause__ or cause.__context__
    return f"dangling $ref {ref!r}: cannot resolve {absolute}"


_ANNOTATIONS: list[Draft202012Validator] = []


def _annotations_checker() -> Draft202012Validator:
    if not _ANNOTATIONS:
        _ANNOTATIONS.append(Draft202012Validator(json.loads(ANNOTATIONS_METASCHEMA.read_text(encoding="utf-8"))))
    return _ANNOTATIONS[0]


def _walk(
    node: Any, loc: Location, base: str, out_loc: dict[int, Location], out_base: dict[int, str], keep: list[Any]
) -> Iterator[tuple[dict[str, Any], Location, str]]:
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


def upgrade(node: Any, dialect: str) -> Any:
    """The draft 2020-12 document equivalent to ``node`` written in ``dialect`` (a new object; ``node`` is untouched).

    Rewrites, wherever a schema can appear: ``items: [..]`` → ``prefixItems`` (and ``additionalItems`` → ``items``);
    ``dependencies`` → ``dependentRequired`` / ``dependentSchemas``; draft-07 ``$id: "#name"`` → ``$anchor``; in
    draft-07 the keywords beside a ``$ref`` are ignored by the specification, so only annotations are kept there;
    2019-09 ``$recursiveAnchor: true`` / ``$recursiveRef`` → ``$dynamicAnchor`` / ``$dynamicRef``. ``definitions``
    stays as it is (codegen reads it like ``$defs``). In every dialect, a ``$ref`` beside structural keywords
    (``properties``, ``patternProperties``, ``additionalProperties``, ``unevaluatedProperties``, ``required``,
    ``allOf``) becomes the first ``allOf`` member — the same meaning in 2019-09/2020-12 — so the IR sees the
    referenced schema as a base instead of dropping the siblings. JSON Pointers into a rewritten keyword
    (``items/0`` → ``prefixItems/0``, ``$ref`` → ``allOf/0/$ref``) name the 2020-12 form in messages.
    """
    older = dialect != DIALECT  # 2020-12 has neither an array items nor dependencies
    return _upgrade(_local_refs_upgraded(node, node) if older else node, dialect, recursive_root=False)


def _local_refs_upgraded(node: Any, root: Any) -> Any:
    """``node`` with every local ``$ref`` (``#/…``) naming the place its target takes after the upgrade:
    ``#/items/0`` → ``#/prefixItems/0`` where that ``items`` is an array, ``additionalItems`` beside it → ``items``,
    ``dependencies/<name>`` → ``dependentRequired`` (an array) or ``dependentSchemas``. Data keywords are left as
    they are."""
    if isinstance(node, list):
        return [_local_refs_upgraded(v, root) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str) and value.startswith("#/"):
            out[key] = "#" + _upgraded_pointer(root, value[1:])
        elif key in _DATA_KEYWORDS:
            out[key] = value
        else:
            out[key] = _local_refs_upgraded(value, root)
    return out


def _upgraded_pointer(root: Any, pointer: str) -> str:
    tokens = pointer.split("/")[1:]
    node, out = root, []
    for i, token in enumerate(tokens):
        new = token
        if isinstance(node, dict):
            if token == "items" and isinstance(node.get("items"), list):
                new = "prefixItems"
            elif token == "additionalItems" and isinstance(node.get("items"), list):
                new = "items"
            elif token == "dependencies" and isinstance(node.get("dependencies"), dict) and i + 1 < len(tokens):
                dependency = node["dependencies"].get(tokens[i + 1].replace("~1", "/").replace("~0", "~"))
                new = "dependentRequired" if isinstance(dependency, list) else "dependentSchemas"
            node = node.get(token.replace("~1", "/").replace("~0", "~"))
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            node = None
        out.append(new)
    return "".join("/" + t for t in out)


_SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LIST_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_KEYWORDS = (
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedProperties",
    "unevaluatedItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "contentSchema",
)
_DATA_KEYWORDS = ("enum", "const", "default", "examples")
_REF_ANNOTATIONS = (
    "$id",
    "$anchor",
    "$comment",
    "$defs",
    "definitions",
    "title",
    "description",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
    "default",
    "$schema",
)


def _upgrade(node: Any, dialect: str, recursive_root: bool) -> Any:
    if not isinstance(node, dict):
        return node
    if "$recursiveAnchor" in node or ("$id" in node and not str(node["$id"]).startswith("#")):
        recursive_root = node.get("$recursiveAnchor") is True
    out: dict[str, Any] = {}
    legacy = dialect != DIALECT
    for key, value in node.items():
        if not legacy and key not in _SCHEMA_MAP_KEYWORDS and key not in _SCHEMA_LIST_KEYWORDS and key not in _SCHEMA_KEYWORDS:
            out[key] = value
            continue
        if dialect in _REF_ALONE and "$ref" in node and key not in ("$ref", "id", *_REF_ANNOTATIONS) and not key.startswith("x-"):
            continue  # draft-04 to draft-07: every other keyword beside $ref is ignored
        if key in _DATA_KEYWORDS or key.startswith("x-"):
            out[key] = value
        elif key in ("$defs", "definitions") and isinstance(value, dict):
            out[key] = {k: _upgrade_definition(v, dialect, recursive_root) for k, v in value.items()}
        elif key in _SCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {k: _upgrade(v, dialect, recursive_root) for k, v in value.items()}
        elif key in _SCHEMA_LIST_KEYWORDS and isinstance(value, list):
            out[key] = [_upgrade(v, dialect, recursive_root) for v in value]
        elif key == "items" and isinstance(value, list) and legacy:
            out["prefixItems"] = [_upgrade(v, dialect, recursive_root) for v in value]
            if "additionalItems" in node:
                out["items"] = _upgrade(node["additionalItems"], dialect, recursive_root)
        elif key == "additionalItems" and legacy:
            if isinstance(node.get("items"), list):
                continue  # moved to "items" above
            # without an items array, additionalItems has no effect
        elif key == "dependencies" and isinstance(value, dict) and legacy:
            for name, dep in value.items():
                if isinstance(dep, list):
                    out.setdefault("dependentRequired", {})[name] = dep
                else:
                    out.setdefault("dependentSchemas", {})[name] = _upgrade(dep, dialect, recursive_root)
        elif key in ("$id", "id") and dialect in _REF_ALONE and isinstance(value, str) and value.startswith("#"):
            if key == "$id" or dialect == DRAFT4:  # draft-04 spells it "id"; later, "id" is no keyword
                out["$anchor"] = value[1:]
            else:
                out[key] = value
        elif key == "id" and dialect == DRAFT4 and isinstance(value, str):
            out["$id"] = value
        elif key in ("exclusiveMaximum", "exclusiveMinimum") and dialect == DRAFT4 and isinstance(value, bool):
            # draft-04: a boolean that makes "maximum"/"minimum" exclusive; 2020-12: the bound itself
            bound = node.get("maximum" if key == "exclusiveMaximum" else "minimum")
            if value and isinstance(bound, (int, float)):
                out[key] = bound
        elif key in ("maximum", "minimum") and dialect == DRAFT4 and node.get("exclusive" + key.title()) is True:
            continue  # became exclusiveMaximum/exclusiveMinimum
        elif key == "$recursiveAnchor":
            if value is True:
                out["$dynamicAnchor"] = RECURSIVE_ANCHOR
        elif key == "$recursiveRef":
            out["$dynamicRef" if recursive_root else "$ref"] = ("#" + RECURSIVE_ANCHOR) if recursive_root else value
        elif key in _SCHEMA_KEYWORDS:
            out[key] = _upgrade(value, dialect, recursive_root)
        else:
            out[key] = value
    if "$schema" in out:
        out["$schema"] = DIALECT
    if isinstance(out.get("$ref"), str) and any(k in out for k in _STRUCTURAL):
        existing = out.get("allOf")
        members: list[Any] = existing if isinstance(existing, list) else []
        moved = {"$ref": out.pop("$ref")}
        out = {k: v for k, v in out.items() if k != "allOf"}
        out["allOf"] = [moved, *members]
    return out


_STRUCTURAL = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "required", "allOf")


def _upgrade_definition(node: Any, dialect: str, recursive_root: bool) -> Any:
    """A ``$defs`` entry: a schema, or a namespace grouping schemas (``$defs/plugins/{extractors, ...}``)."""
    if (
        isinstance(node, dict)
        and node
        and all(isinstance(v, dict) for v in node.values())
        and not any(
            k.startswith("$")
            or k in _SCHEMA_KEYWORDS
            or k in _SCHEMA_MAP_KEYWORDS
            or k in _SCHEMA_LIST_KEYWORDS
            or k in _DATA_KEYWORDS
            or k in ("type", "required")
            for k in node
        )
    ):
        return {k: _upgrade_definition(v, dialect, recursive_root) for k, v in node.items()}
    return _upgrade(node, dialect, recursive_root)


RECURSIVE_ANCHOR = "recursiveAnchor"  # 2019-09 $recursiveAnchor: true, as a 2020-12 $dynamicAnchor


def _dynamic_anchors(files: list[SchemaFile], schema_set: SchemaSet) -> dict[str, list[tuple[dict[str, Any], Location]]]:
    out: dict[str, list[tuple[dict[str, Any], Location]]] = {}
    for f in files:
        for node, _loc, _base in _walk(f.contents, Location(f.name, ""), f.uri, {}, {}, []):
            name = node.get("$dynamicAnchor")
            if isinstance(name, str):
                out.setdefault(name, []).append((node, schema_set._locations[id(node)]))
    return out


def _resolve_dynamic_refs(schema_set: SchemaSet, dynamic: list[tuple[dict[str, Any], Location]]) -> None:
    """Bind each ``$dynamicRef`` to one schema, statically, and turn it into a ``$ref`` to that schema.

    ``$dynamicRef: "#name"`` first resolves like ``$ref``. When the schema it reaches declares ``$dynamicAnchor:
    name``, the target depends on the dynamic scope: codegen binds it only when that is unambiguous for the
    folder — exactly one schema in the folder declares the anchor, or among those that do and whose file uses the
    referring file (through ``$ref``, transitively, itself included) exactly one is used by none of the others: the
    outermost dynamic scope (the 2020-12 meta-schema over its vocabularies). Otherwise :class:`SchemaError` names
    the pointer.
    """
    if not dynamic:
        return
    anchors = _dynamic_anchors(list(schema_set.files), schema_set)
    reach: dict[str, set[str]] = {}
    for node, loc in dynamic:
        ref = node["$dynamicRef"]
        if "$ref" in node:
            raise SchemaError(
                loc.file,
                loc.pointer + "/$dynamicRef",
                "$dynamicRef beside $ref cannot be represented; codegen binds a $dynamicRef by turning it into a $ref",
            )
        target, tloc = schema_set.resolve_ref(node, ref)
        fragment = urldefrag(ref)[1]
        name = fragment if fragment and not fragment.startswith("/") else None
        if name is not None and isinstance(target, dict) and target.get("$dynamicAnchor") == name:
            candidates = anchors.get(name, [])
            if len(candidates) > 1:
                entry = _outermost(schema_set, candidates, loc.file, reach)
                if entry is None:
                    where = ", ".join(str(c[1]) for c in candidates)
                    raise SchemaError(
                        loc.file,
                        loc.pointer + "/$dynamicRef",
                        f"$dynamicRef {ref!r} cannot be resolved statically: {len(candidates)} schemas declare $dynamicAnchor {name!r} ({where}) "
                        f"and no single one of them is the outermost schema using {loc.file} (through $ref); "
                        "generate from a folder whose entry schema is unambiguous",
                    )
                target, tloc = entry
        file_uri = schema_set.file(tloc.file).uri
        node["$ref"] = file_uri + "#" + tloc.pointer
        del node["$dynamicRef"]
        schema_set._targets[(id(node), node["$ref"])] = (target, tloc)


def _outermost(
    schema_set: SchemaSet, candidates: list[tuple[dict[str, Any], Location]], file: str, reach: dict[str, set[str]]
) -> tuple[Any, Location] | None:
    """The one candidate whose file uses ``file`` (through ``$ref``, transitively) and is used by no other such."""

    def reachable(name: str) -> set[str]:
        if name not in reach:
            reach[name] = _reachable_files(schema_set, name)
        return reach[name]

    using = [c for c in candidates if file in reachable(c[1].file)]
    outer = [c for c in using if not any(o[1].file != c[1].file and c[1].file in reachable(o[1].file) for o in using)]
    return outer[0] if len(outer) == 1 else None


def _reachable_files(schema_set: SchemaSet, start: str) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        f = schema_set.file(todo.pop())
        for node, _loc, _base in _walk(f.contents, Location(f.name, ""), f.uri, {}, {}, []):
            if isinstance(node.get("$ref"), str):
                try:
                    _t, tloc = schema_set.resolve_ref(node, node["$ref"])
                except SchemaError:
                    continue
                if tloc.file not in seen:
                    seen.add(tloc.file)
                    todo.append(tloc.file)
    return seen


def _mapped(files: list[SchemaFile], retrieval: dict[str, str]) -> list[tuple[str, SchemaFile]]:
    """The URIs the retrieval map gives files of the folder; an entry that names no file is refused."""
    out: list[tuple[str, SchemaFile]] = []
    for url, target in sorted(retrieval.items()):
        if not isinstance(url, str) or not isinstance(target, str) or urldefrag(url)[1]:
            raise SchemaError("retrieval", "", f"retrieval map entry {url!r} = {target!r}: a URL without fragment and a file name")
        prefix = url.endswith("/") and (target == "" or target.endswith("/"))
        found = [(url + f.name[len(target) :], f) for f in files if f.name.startswith(target)] if prefix else []
        if not prefix:
            found = [(url, f) for f in files if f.name == target]
        if not found:
            raise SchemaError("retrieval", "", f"retrieval map entry {url!r} = {target!r} names no schema file of the folder")
        out.extend(found)
    return out


def _metaschemas(files: list[SchemaFile], mapped: set[str]) -> list[tuple[str, str, dict[str, Any]]]:
    """The JSON Schema meta-schemas that a ``$ref`` of the set names and that no file of the folder (nor the retrieval
    map) stands for, with every meta-schema they reach in turn, as ``(file name, URI, document)``: the copies that
    python-jsonschema ships (``jsonschema_specifications``), so that a schema of schemas (``{"$ref":
    "https://json-schema.org/draft/2020-12/schema"}``) generates offline. Each is named after its URI
    (``json-schema.org_draft_2020-12_meta_core.json``). A dialect codegen does not read (draft-03) is not added: its
    ``$ref`` stays unresolvable and is reported as such."""
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped,unused-ignore]

    known = {f.uri for f in files} | mapped
    names = {f.name for f in files}
    out: list[tuple[str, str, dict[str, Any]]] = []
    todo: list[tuple[str, Any]] = [(f.uri, f.contents) for f in files]
    while todo:
        base, document = todo.pop(0)
        for ref in sorted(_references(document, base)):
            uri = urldefrag(ref)[0]
            if uri in known or uri not in REGISTRY:
                continue
            contents = REGISTRY.contents(uri)
            if not isinstance(contents, dict) or _DIALECTS.get(str(contents.get("$schema"))) is None:
                continue
            known.add(uri)
            split = urlsplit(uri)
            name = (split.netloc + split.path).strip("/").replace("/", "_") + ".json"
            while name in names:
                name = "_" + name
            names.add(name)
            out.append((name, uri, contents))
            todo.append((uri, contents))
    return sorted(out)


def _references(node: Any, base: str) -> Iterator[str]:
    """Every ``$ref`` and ``$dynamicRef`` of ``node``, absolute (each against the ``$id`` in force where it is)."""
    if isinstance(node, list):
        for item in node:
            yield from _references(item, base)
    elif isinstance(node, dict):
        if isinstance(node.get("$id"), str):
            base = urljoin(base, node["$id"])
        for key, value in node.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                yield urljoin(base, value)
            elif key not in _DATA_KEYWORDS:
                yield from _references(value, base)


def _schema_file(name: str, text: str, original: Any, default_uri: str, seen_uris: dict[str, str]) -> SchemaFile:
    """One schema file checked against its dialect's meta-schema and upgraded to 2020-12; ``seen_uris`` (URI → file
    name) refuses a second file with the same URI."""
    if isinstance(original, bool):  # a boolean schema (2020-12 §4.3.2): the object schema that means the same
        original = {} if original else {"not": {}}
    if not isinstance(original, dict):
        raise SchemaError(name, "", "a schema file must hold a JSON object or a boolean")
    declared = original.get("$schema", DEFAULT_DIALECT)
    dialect = _DIALECTS.get(declared) if isinstance(declared, str) else None
    if dialect is None:
        raise SchemaError(
            name,
            "/$schema",
            f"unsupported dialect {declared!r}; codegen reads draft-04 ({DRAFT4}#), draft-06 ({DRAFT6}#), "
            f"draft-07 ({DRAFT7}#), draft 2019-09 ({DRAFT201909}) and draft 2020-12 ({DIALECT}); "
            "without $schema a file is read as draft 2020-12",
        )
    error = None if _fast_meta_check(original, dialect) else best_match(_meta_validator(dialect).iter_errors(original))
    if error is not None:
        raise SchemaError(name, pointer_of(list(error.absolute_path)), f"not a valid {_DIALECT_NAMES[dialect]} schema: {error.message}")
    if any(
        keyword in text for keyword in ("x-deprecation", "x-rule", "x-compatibility", "x-unique", "x-references")
    ):  # the only keywords it checks
        error = best_match(_annotations_checker().iter_errors(original))
        if error is not None:
            raise SchemaError(name, pointer_of(list(error.absolute_path)), f"annotation meta-schema violation: {error.message}")
    contents = upgrade(original, dialect)
    uri = contents.get("$id") or default_uri
    uri = urldefrag(uri)[0]
    if uri in seen_uris:
        raise SchemaError(name, "/$id", f"$id {uri!r} is also used by {seen_uris[uri]}")
    seen_uris[uri] = name
    return SchemaFile(name=name, uri=uri, contents=contents, text=text, dialect=dialect)


def _owned_by_files(
    registry: referencing.Registry[Any], resources: list[tuple[str, referencing.Resource[Any]]]
) -> referencing.Registry[Any]:
    """``registry`` where each file's URI names that file, also when another file embeds a resource under the same
    ``$id`` (AsyncAPI 3.0 bundles a copy of the draft-07 meta-schema beside the one a folder may hold as a file).

    ``Registry.crawl`` visits resources in hash order, so which of two resources of one URI it keeps changed with
    ``PYTHONHASHSEED``: so did every name, file and type generated from the set. Re-adding a shadowed file alone and
    crawling it again (one resource: one order) makes the file win, on every run; passes repeat, in file order, until
    no file is shadowed (a file's own crawl can shadow another: a set has fewer passes than files)."""
    for _ in range(len(resources)):
        shadowed = [(uri, resource) for uri, resource in resources if registry[uri].contents is not resource.contents]
        if not shadowed:
            return registry
        for uri, resource in shadowed:
            registry = registry.with_resource(uri, resource).crawl()
    return registry


def load(folder: Path | str, retrieval: dict[str, str] | None = None) -> SchemaSet:
    """Read every ``*.json`` directly in ``folder``; raise :class:`SchemaError` on any problem. ``retrieval`` maps a
    URI (or, ending in ``/``, a URI prefix) to a file of the folder (a file-name prefix), as the module doc says."""
    root = Path(folder)
    if not root.is_dir():
        raise SchemaError(str(root), "", "schema folder does not exist")
    paths = sorted((p for p in root.glob("*.json") if p.is_file()), key=lambda p: p.name)
    if not paths:
        raise SchemaError(str(root), "", "no *.json schema files in the folder")
    files: list[SchemaFile] = []
    seen_uris: dict[str, str] = {}
    for path in paths:
        text = path.read_text(encoding="utf-8")
        try:
            original = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SchemaError(path.name, "", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
        files.append(_schema_file(path.name, text, original, path.resolve().as_uri(), seen_uris))
    for name, uri, document in _metaschemas(files, {uri for uri, _ in _mapped(files, retrieval or {})}):
        files.append(_schema_file(name, json.dumps(document, ensure_ascii=False), document, uri, seen_uris))

    resources = [(f.uri, referencing.Resource.from_contents(f.contents, default_specification=DRAFT202012)) for f in files]
    known = {f.uri for f in files}
    for uri, f in _mapped(files, retrieval or {}):
        if uri not in known:  # a file's own URI stays its own
            known.add(uri)
            resources.append((uri, referencing.Resource.from_contents(f.contents, default_specification=DRAFT202012)))
    empty: referencing.Registry[Any] = referencing.Registry(retrieve=_refuse)  # type: ignore[call-arg,unused-ignore]
    registry = _owned_by_files(empty.with_resources(resources).crawl(), resources)
    schema_set = SchemaSet(root=root, files=tuple(files), registry=registry)
    keep: list[Any] = []
    refs: list[tuple[dict[str, Any], Location, str]] = []
    dynamic: list[tuple[dict[str, Any], Location]] = []
    for f in files:
        for node, loc, base in _walk(f.contents, Location(f.name, ""), f.uri, schema_set._locations, schema_set._bases, keep):
            if "$ref" in node:
                if not isinstance(node["$ref"], str):
                    raise SchemaError(loc.file, loc.pointer + "/$ref", "$ref must be a string")
                refs.append((node, loc, base))
            if "$dynamicRef" in node:
                if not isinstance(node["$dynamicRef"], str):
                    raise SchemaError(loc.file, loc.pointer + "/$dynamicRef", "$dynamicRef must be a string")
                dynamic.append((node, loc))
    for node, _loc, _base in refs:
        schema_set.resolve_ref(node, node["$ref"])
    _resolve_dynamic_refs(schema_set, dynamic)
    return schema_set
