"""A schema folder as written, in its own dialect: the ground truth that witnesses are checked against.

The classifier reads the IR, which :mod:`codegen.load` builds from draft-07, 2019-09 and 2020-12 files. A witness
is checked against the files exactly as published, by python-jsonschema's implementation of each file's own dialect
(draft-04 through 2020-12), with formats asserted and an offline registry: every file of the folder under its
``$id`` (``id`` in draft-04) and its file name, the dialects' meta-schemas from ``jsonschema-specifications``,
and nothing else — an unknown URI is refused, never fetched.

:func:`draft07_copy` rewrites a draft-04 or draft-06 file into the equivalent draft-07 one, so that the IR of an
older history can be built without teaching the loader those dialects.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import jsonschema  # type: ignore[import-untyped,unused-ignore]
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema_specifications import REGISTRY as META_REGISTRY  # type: ignore[import-untyped,unused-ignore]

from ..load import escape_token

MANIFEST = "manifest.json"
DRAFT4 = "http://json-schema.org/draft-04/schema"
DRAFT6 = "http://json-schema.org/draft-06/schema"
DRAFT7 = "http://json-schema.org/draft-07/schema"
DRAFT201909 = "https://json-schema.org/draft/2019-09/schema"
DRAFT202012 = "https://json-schema.org/draft/2020-12/schema"
# python-jsonschema's implementation of each dialect (formats asserted when it is made: ``checker``)
_CHECKERS = {
    DRAFT4: jsonschema.Draft4Validator,
    DRAFT6: jsonschema.Draft6Validator,
    DRAFT7: jsonschema.Draft7Validator,
    DRAFT201909: jsonschema.Draft201909Validator,
    DRAFT202012: jsonschema.Draft202012Validator,
}

_SPECS = {
    DRAFT4: referencing.jsonschema.DRAFT4,
    DRAFT6: referencing.jsonschema.DRAFT6,
    DRAFT7: referencing.jsonschema.DRAFT7,
    DRAFT201909: referencing.jsonschema.DRAFT201909,
    DRAFT202012: referencing.jsonschema.DRAFT202012,
}

# keywords whose value is a schema, a list of schemas or a map of schemas, in any dialect from draft-04 on
SCHEMA_KEYWORDS = (
    "items",
    "additionalItems",
    "contains",
    "additionalProperties",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
)
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies")


def dialect_of(contents: Any) -> str | None:
    """The dialect a file declares (2020-12 when it declares none, as :mod:`codegen.load` reads it), or None."""
    declared = contents.get("$schema", DRAFT202012) if isinstance(contents, dict) else DRAFT202012
    if not isinstance(declared, str):
        return None
    plain = declared.rstrip("#").replace("https://json-schema.org/draft-0", "http://json-schema.org/draft-0")
    plain = plain.replace("http://json-schema.org/draft/", "https://json-schema.org/draft/")
    return plain if plain in _SPECS else None


def subschemas(node: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    """Every schema position below ``node`` (itself first) with its JSON Pointer: what keywords, not data, hold."""
    yield pointer, node
    if not isinstance(node, dict):
        return
    for key in SCHEMA_KEYWORDS:
        if isinstance(node.get(key), (dict, bool)):
            yield from subschemas(node[key], f"{pointer}/{escape_token(key)}")
    for key in SCHEMA_LISTS:
        if isinstance(node.get(key), list):
            for i, member in enumerate(node[key]):
                yield from subschemas(member, f"{pointer}/{escape_token(key)}/{i}")
    for key in SCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            for name, member in node[key].items():
                if isinstance(member, (dict, bool)):
                    yield from subschemas(member, f"{pointer}/{escape_token(key)}/{escape_token(name)}")


_ONE, _LIST, _MAP = frozenset(SCHEMA_KEYWORDS), frozenset(SCHEMA_LISTS), frozenset(SCHEMA_MAPS)


# keys whose presence in a schema below a file's root (or, for anchors, at it) gives the registry something to find
# by crawling: an identifier (``id`` in draft-04), an anchor, or another dialect (which may read identifiers otherwise)
_BELOW = ("$id", "id", "$anchor", "$dynamicAnchor", "$schema")
_AT_ROOT = ("$anchor", "$dynamicAnchor")


def _place(where: dict[int, tuple[str, str]], name: str, contents: Any) -> bool:
    """Record in ``where`` the pointer of every object or array at a schema position of the file ``name`` (the
    positions :func:`subschemas` yields, a superset of those ``referencing`` crawls in every dialect). A parsed
    document holds each object once, so the order of the walk does not matter: it goes by the nodes' own keys, with
    an explicit stack (no generator chain, no depth limit). True when a schema holds one of the keys of
    :data:`_BELOW` below the root, or of :data:`_AT_ROOT` at it."""
    marked = isinstance(contents, dict) and any(key in contents for key in _AT_ROOT)
    todo: list[tuple[str, Any]] = [("", contents)]
    while todo:
        pointer, node = todo.pop()
        where.setdefault(id(node), (name, pointer))
        if not isinstance(node, dict):
            continue
        if not marked and pointer and any(key in node for key in _BELOW):
            marked = True
        for key, value in node.items():
            if key in _ONE and isinstance(value, dict):
                todo.append((f"{pointer}/{key}", value))
            elif key in _LIST and isinstance(value, list):
                todo += ((f"{pointer}/{key}/{i}", member) for i, member in enumerate(value) if isinstance(member, (dict, list)))
            elif key in _MAP and isinstance(value, dict):
                todo += (
                    (f"{pointer}/{key}/{escape_token(n) if '~' in n or '/' in n else n}", member)
                    for n, member in value.items()
                    if isinstance(member, dict)
                )
    return marked


def draft07_copy(contents: Any, dialect: str) -> Any:
    """The draft-07 equivalent of a draft-04 or draft-06 file (a new object): ``id`` → ``$id``, boolean
    ``exclusiveMaximum``/``exclusiveMinimum`` → the numeric bound, ``$schema`` → draft-07."""
    out = json.loads(json.dumps(contents))
    for _, node in subschemas(out):
        if not isinstance(node, dict):
            continue
        if dialect == DRAFT4:
            if isinstance(node.get("id"), str) and "$id" not in node:
                node["$id"] = node.pop("id")
            for flag, bound in (("exclusiveMaximum", "maximum"), ("exclusiveMinimum", "minimum")):
                exclusive = node.pop(flag) if isinstance(node.get(flag), bool) else False
                if exclusive and bound in node:
                    node[flag] = node.pop(bound)
    if isinstance(out, dict):
        out["$schema"] = DRAFT7 + "#"
    return out


@dataclass
class Folder:
    """The schema files of one folder as published (``manifest.json`` skipped), with an offline registry."""

    files: dict[str, Any]  # name -> contents
    dialects: dict[str, str]  # name -> dialect
    uris: dict[str, str]  # name -> base URI
    registry: Any = None
    where: dict[int, tuple[str, str]] = field(default_factory=dict)  # id(schema node) -> (file, pointer)
    _checkers: dict[str, Any] = field(default_factory=dict)
    _quick: dict[str, Any] = field(default_factory=dict)
    _quick_registry: Any = None
    _resolvers: dict[str, Any] = field(default_factory=dict)
    generators: dict[str, Any] = field(default_factory=dict)  # file -> its candidate generator (generate.generator)
    nodes: dict[tuple[str, str], Any] = field(default_factory=dict)  # (file, pointer) -> witness.node_at's answer
    unversioned: dict[int, dict[str, list[str]]] = field(default_factory=dict)  # id(object) -> its keys by witness.unversioned

    def specification(self, name: str) -> Any:
        return _SPECS[self.dialects[name]]

    def checker(self, name: str) -> Any:
        """python-jsonschema's checker of the file's dialect, formats asserted, references resolved offline."""
        if name not in self._checkers:
            cls = _CHECKERS[self.dialects[name]]
            contents = self.files[name]
            self._checkers[name] = cls(contents, registry=self.registry, format_checker=_formats(cls))
        return self._checkers[name]

    def quick(self, name: str) -> Any:
        """jsonschema-rs's checker of the file (formats asserted, the same offline resources), when it is
        installed and builds: a fast first opinion, never the last word (:meth:`accepts` decides)."""
        if name not in self._quick:
            self._quick[name] = None
            try:
                import jsonschema_rs  # type: ignore[import-not-found,unused-ignore]

                if self._quick_registry is None:
                    resources = {self.uris[n]: c for n, c in self.files.items() if isinstance(c, dict)}
                    # a reference by file name resolves beside the referring file's $id (as :func:`read`'s retrieve)
                    for base in {urljoin(uri, ".") for uri in self.uris.values()}:
                        for n, c in self.files.items():
                            resources.setdefault(urljoin(base, n), c)
                    # one registry for the folder: every file's checker reads the same resources
                    self._quick_registry = jsonschema_rs.Registry(list(resources.items()), retriever=_refuse)
                registry = self._quick_registry
                self._quick[name] = jsonschema_rs.validator_for(
                    self.files[name], validate_formats=True, registry=registry, base_uri=self.uris[name], retriever=_refuse
                )
            except Exception:  # any failure to build it: python-jsonschema alone decides
                self._quick[name] = None
        return self._quick[name]

    def probably_accepts(self, name: str, instance: Any) -> bool | None:
        """jsonschema-rs's answer, or None when it has none."""
        quick = self.quick(name)
        if quick is None:
            return None
        try:
            return bool(quick.is_valid(instance))
        except Exception:  # no answer from it: python-jsonschema decides
            return None

    def quick_rejections(self, name: str, instance: Any) -> frozenset[Any] | None:
        """Where and why jsonschema-rs rejects the document, or None when it has no answer: each error's instance
        and schema paths, its kind, the JSON type of the value it is about, and the same of the errors of each
        branch of a failed ``anyOf``/``oneOf`` (what python-jsonschema's ``best_match`` chooses among)."""
        quick = self.quick(name)
        if quick is None:
            return None
        try:
            return _signature(quick.iter_errors(instance))
        except Exception:  # no answer from it
            return None

    def accepts(self, name: str, instance: Any) -> bool:
        try:
            return bool(self.checker(name).is_valid(instance))
        except (referencing.exceptions.Unresolvable, RecursionError, ValueError, TypeError, LookupError):
            return False  # a document the checker cannot decide on is no proof either way

    def resolver(self, name: str) -> Any:
        """The resolver at the file's base URI (one per file: the candidate generator's caches go by its identity)."""
        if name not in self._resolvers:
            self._resolvers[name] = self.registry.resolver(self.uris[name])
        return self._resolvers[name]

    def location(self, node: Any) -> str | None:
        found = self.where.get(id(node))
        return f"{found[0]}#{found[1]}" if found else None


# formats whose checker takes milliseconds a string (rfc3987-syntax parses with a general grammar engine): the
# candidates repeat the same few strings, so each answer is remembered
_SLOW_FORMATS = ("iri", "iri-reference")


def _remembered(check: Callable[[object], bool]) -> Callable[[object], bool]:
    cached = functools.lru_cache(maxsize=4096)(check)

    def remembered(instance: object) -> bool:
        return bool(cached(instance)) if isinstance(instance, str) else check(instance)

    return remembered


@functools.cache
def _formats(cls: Any) -> Any:
    """The dialect's format checker, the same functions, the slow ones remembered per string."""
    out = jsonschema.FormatChecker(formats=())
    out.checkers = {
        name: (_remembered(check) if name in _SLOW_FORMATS else check, raises)
        for name, (check, raises) in cls.FORMAT_CHECKER.checkers.items()
    }
    return out


def _refuse(uri: str) -> Any:
    """jsonschema-rs's retriever: nothing is fetched."""
    raise ValueError(f"not fetched: {uri}")


def _signature(errors: Any) -> frozenset[Any]:
    out = []
    for error in errors:
        context = getattr(error.kind, "context", None)
        branches = tuple(_signature(branch) for branch in context) if isinstance(context, list) else ()
        value = error.instance
        kind = "integer" if isinstance(value, int) and not isinstance(value, bool) else type(value).__name__
        out.append((tuple(error.instance_path), tuple(error.schema_path), type(error.kind).__name__, kind, branches))
    return frozenset(out)


def _absolute(uri: str | None) -> bool:
    return uri is not None and bool(urlsplit(uri).scheme)


def read(folder: Path | str) -> Folder:
    """Read every ``*.json`` of ``folder`` (but a release manifest) as published; unknown dialects are skipped."""
    root = Path(folder)
    files: dict[str, Any] = {}
    dialects: dict[str, str] = {}
    uris: dict[str, str] = {}
    for path in sorted(root.glob("*.json")):
        if path.name == MANIFEST or not path.is_file():
            continue
        contents = json.loads(path.read_text(encoding="utf-8"))
        dialect = dialect_of(contents)
        if dialect is None:
            continue
        files[path.name] = contents
        dialects[path.name] = dialect
        declared = contents.get("id" if dialect == DRAFT4 else "$id") if isinstance(contents, dict) else None
        uris[path.name] = (
            urldefrag(declared)[0] if isinstance(declared, str) and urlsplit(declared).scheme else f"urn:codegen-compat:{path.name}"
        )
    by_name = {name: _SPECS[dialects[name]].create_resource(files[name]) for name in files}

    def retrieve(uri: str) -> referencing.Resource[Any]:
        # a reference by a path relative to a file without a matching $id names a file of the folder
        last = urldefrag(uri)[0].rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        if last in by_name:
            return by_name[last]
        try:
            return META_REGISTRY[uri.rstrip("#")]  # type: ignore[no-any-return]
        except LookupError:
            raise referencing.exceptions.NoSuchResource(ref=uri) from None  # type: ignore[call-arg,unused-ignore]

    where: dict[int, tuple[str, str]] = {}
    marked = {name: isinstance(contents, (dict, list)) and _place(where, name, contents) for name, contents in files.items()}
    # Each file under its URI and under its name, crawled for the $ids and anchors of its subschemas — but for what
    # a crawl would find nothing in: the file declares no other identifier than the one it is registered under and
    # no schema in it holds an identifier, an anchor or a dialect (:func:`_place`), so it is registered as it is.
    # And a file that declares an absolute id is crawled under one name only: every id below it is then resolved
    # against that id whatever name the walk starts from.
    plain: dict[str, referencing.Resource[Any]] = {}
    crawled: list[tuple[str, referencing.Resource[Any]]] = []
    for name, resource in by_name.items():
        alias, declared_id = f"urn:codegen-compat:{name}", resource.id()
        if not marked[name] and declared_id in (None, uris[name]):
            plain[uris[name]] = plain[alias] = resource
            continue
        crawled.append((uris[name], resource))
        if _absolute(declared_id):
            plain[alias] = resource
        elif alias != uris[name]:
            crawled.append((alias, resource))
    registry = referencing.Registry(plain, retrieve=retrieve).with_resources(crawled).crawl()  # type: ignore[call-arg,unused-ignore]
    out = Folder(files, dialects, uris, registry, where)
    return out
