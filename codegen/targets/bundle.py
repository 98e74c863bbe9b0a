"""Single-file schemas for other tools and editors: one per schema file, every ``$ref`` local.

Tools that know nothing of the schema folder (check-jsonschema, Ajv, an editor's language server) resolve a
``$ref`` to another file by fetching its ``$id``. A bundled schema needs no fetch: each schema file reachable
from the root is copied under the root's ``$defs`` (keyed by its file name), and every ``$ref`` is rewritten
to a local JSON Pointer (``#/…`` for the root itself, ``#/$defs/<file>/…`` for the others; anchors become
pointers too). The root keeps its ``$schema`` and ``$id`` and gains a ``$comment`` naming its sources;
embedded copies lose their ``$schema``, ``$id``, ``$anchor``s and ``$dynamicAnchor``s (the loader bound every
``$dynamicRef`` to a ``$ref``), so that every pointer is read against the
root. Validation is unchanged: the same subschemas apply at the same places.

``catalog.json`` lists the bundled schemas of the files that have a root type in the SchemaStore catalog
format, with the file-name patterns of ``[tool.codegen.options.schemas] file-match`` (``{stem}`` is the schema
file's name without ``.json``), so that an editor maps ``*.<stem>.json`` to its schema without configuration.
"""

from __future__ import annotations

import copy
import json
from typing import Any
from urllib.parse import quote

from ..ir import IR
from ..load import SchemaError, SchemaSet, escape_token

# the keywords whose values are schemas keyed by a name, and those whose values are never schemas
_NAMED = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_DATA = ("enum", "const", "default", "examples")


def _dumps(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _reachable(schemas: SchemaSet, start: str) -> list[str]:
    """The schema files reachable from ``start`` through ``$ref``s, in file-name order (``start`` excluded)."""
    contents = {f.name: f.contents for f in schemas.files}
    seen, todo = {start}, [start]
    while todo:
        for node in _schema_nodes(contents[todo.pop()]):
            if isinstance(node.get("$ref"), str):
                _target, loc = schemas.resolve_ref(node, node["$ref"])
                if loc.file in contents and loc.file not in seen:
                    seen.add(loc.file)
                    todo.append(loc.file)
    return sorted(seen - {start})


def _schema_nodes(node: Any) -> list[dict[str, Any]]:
    """Every subschema object, walked the way codegen's loader indexes them (annotations and data skipped)."""
    found: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            found.append(value)
            for key, sub in value.items():
                if key in _DATA or key.startswith("x-"):
                    continue
                if key in _NAMED and isinstance(sub, dict):
                    for child in sub.values():
                        walk(child)
                else:
                    walk(sub)

    walk(node)
    return found


def _rewrite(original: Any, bundled: Any, local: dict[str, str], schemas: SchemaSet, is_root: bool) -> None:
    """Rewrite, in ``bundled`` (a deep copy of ``original``), every ``$ref`` to a pointer into the bundle."""
    if isinstance(original, list):
        for orig_item, item in zip(original, bundled):
            _rewrite(orig_item, item, local, schemas, False)
        return
    if not isinstance(original, dict):
        return
    if isinstance(original.get("$ref"), str):
        _target, loc = schemas.resolve_ref(original, original["$ref"])
        # a fragment is URI-encoded: `%`, `"`, a space… in a key must not end up raw in it (RFC 6901 §6)
        bundled["$ref"] = "#" + quote(local[loc.file] + loc.pointer, safe="/~!$&'()*+,;=:@")
    if not is_root:
        bundled.pop("$id", None)
        bundled.pop("$anchor", None)
        # the loader bound every $dynamicRef to a $ref, made a pointer above: a $dynamicAnchor is an anchor no
        # reference uses, and two of one name in the bundle (the meta-schema's vocabularies) make it ambiguous
        bundled.pop("$dynamicAnchor", None)
    for key, sub in original.items():
        if key in _DATA or key.startswith("x-"):
            continue
        if key in _NAMED and isinstance(sub, dict):
            for name, child in sub.items():
                _rewrite(child, bundled[key][name], local, schemas, False)
        elif isinstance(sub, (dict, list)):
            _rewrite(sub, bundled[key], local, schemas, False)


def bundle(schemas: SchemaSet, name: str) -> dict[str, Any]:
    """The schema file ``name`` with every schema file it reaches embedded and every ``$ref`` made local."""
    files = {f.name: f for f in schemas.files}
    root = files[name]
    others = _reachable(schemas, name)
    existing = root.contents.get("$defs", {})
    clash = [other for other in others if other in existing]
    if clash:
        raise SchemaError(
            name, "/$defs/" + escape_token(clash[0]), "cannot bundle: a $defs entry has the name of a schema file it references"
        )
    local = {name: ""} | {other: "/$defs/" + escape_token(other) for other in others}
    rewritten = copy.deepcopy(root.contents)
    _rewrite(root.contents, rewritten, local, schemas, True)
    # JSON has no comments: the 2020-12 `$comment` keyword says where the file comes from, beside the `$id`
    head: dict[str, Any] = {key: rewritten.pop(key) for key in ("$schema", "$id") if key in rewritten}
    comment = f"generated by codegen from {', '.join([name, *others])}; do not edit"
    if "$comment" in rewritten:
        comment += f". {rewritten.pop('$comment')}"
    result: dict[str, Any] = {**head, "$comment": comment, **rewritten}
    if others:
        defs = result.setdefault("$defs", {})
        for other in others:
            embedded = copy.deepcopy(files[other].contents)
            _rewrite(files[other].contents, embedded, local, schemas, False)
            embedded.pop("$schema", None)
            defs[other] = embedded
    return result


def render(ir: IR, schemas: SchemaSet, options: dict[str, Any]) -> dict[str, bytes]:
    """Every schema file bundled, and ``catalog.json`` when ``options`` has ``file-match`` patterns."""
    file_match = [str(p) for p in options.get("file-match", ())]
    out = {f.name: _dumps(bundle(schemas, f.name)) for f in schemas.files}
    entries = []
    for module in ir.modules:
        if module.root is None:  # a file of definitions only: no document has it as its schema
            continue
        stem = module.file.removesuffix(".json")
        entries.append(
            {
                "name": module.title or stem,
                "description": module.description or f"the {stem} schema",
                "fileMatch": [pattern.format(stem=stem) for pattern in file_match],
                "url": "./" + quote(module.file),
            }
        )
    if entries and file_match:
        out["catalog.json"] = _dumps(
            {
                "$schema": "https://json.schemastore.org/schema-catalog.json",
                "version": 1,
                "schemas": entries,
            }
        )
    return dict(sorted(out.items()))
