"""Proof by example: a document one version of a schema file accepts and the other rejects.

For a finding at ``file#pointer``, candidates are generated from the schema at that location in the version
that accepts more (:mod:`codegen.compat.generate`), placed inside a whole document of the file, and each is
validated against both whole files (:mod:`codegen.compat.folder`). The first document that the first version
accepts and the second rejects is shrunk (keys and items removed while it stays a witness) and returned.
A search stops at its deadline or after :data:`MAX_DOCUMENTS` documents, whichever comes first.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema.exceptions import best_match  # type: ignore[import-untyped,unused-ignore]

from ..load import unescape_token
from .folder import Folder
from .generate import ANY_VALUES, generator, instance_path

MAX_DOCUMENTS = 200
MAX_SHRINK_STEPS = 200


@dataclass(frozen=True)
class Witness:
    """``document``, validated against the schema file ``file``: accepted by one version, rejected by the other."""

    file: str
    document: Any

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "document": self.document}

    def short(self, width: int = 100) -> str:
        text = json.dumps(self.document, ensure_ascii=False, sort_keys=True)
        return text if len(text) <= width else text[: width - 1] + "…"


_VERSION_IN_TEXT = re.compile(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?")


def unversioned(text: str) -> str:
    """``text`` with every version number replaced: the keys and ``$id``s of consecutive versions of a bundle
    (``http://asyncapi.com/definitions/2.6.0/info.json``) name the same definition."""
    return _VERSION_IN_TEXT.sub("{version}", text)


def _tokens(pointer: str) -> list[str]:
    return [] if pointer in ("", "/") else [unescape_token(t) for t in pointer[1:].split("/")]


def node_at(folder: Folder, file: str, pointer: str) -> Any:
    """The schema node at ``pointer`` in ``file``, or at the closest ancestor that is a schema; None without the file."""
    if file not in folder.files:
        return None
    key = (file, pointer)
    if key not in folder.nodes:
        folder.nodes[key] = _node_at(folder, file, pointer)
    return folder.nodes[key]


def _unversioned_keys(folder: Folder, node: dict[str, Any]) -> dict[str, list[str]]:
    """``node``'s keys by their :func:`unversioned` spelling (computed once per object)."""
    keys = folder.unversioned.get(id(node))
    if keys is None:
        keys = folder.unversioned[id(node)] = {}
        for key in node:
            keys.setdefault(unversioned(key), []).append(key)
    return keys


def _node_at(folder: Folder, file: str, pointer: str) -> Any:
    tokens = _tokens(pointer)
    while True:
        node: Any = folder.files[file]
        for token in tokens:
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, dict) and len(same := _unversioned_keys(folder, node).get(unversioned(token), [])) == 1:
                node = node[same[0]]  # a key that names another version ($id-keyed bundles: .../2.6.0/info.json)
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                node = None
                break
        if node is not None and folder.where.get(id(node), ("", ""))[0] == file and isinstance(node, dict):
            return node
        if not tokens:
            return folder.files[file] if isinstance(folder.files[file], dict) else None
        tokens.pop()


# keywords that reject an object for the presence or absence of a property (its location is the object's)
def _keyword(error: Any) -> str:
    """The keyword an error of python-jsonschema failed at (the last step of its path within its schema)."""
    path = error.relative_schema_path
    return str(path[-1]) if path else ""


_PRESENCE = ("required", "dependentRequired", "dependencies", "additionalProperties", "unevaluatedProperties", "propertyNames")


def rejected_under(folder: Folder, file: str, document: Any, under: list[Any], schema_at: str | None = None) -> bool:
    """Whether one of the errors ``folder``'s ``file`` finds in ``document`` (or one they stand for, as a
    failed ``anyOf`` stands for its branches') is at or below the instance location ``under``, or is about the
    presence of that property in its object; and, with ``schema_at`` (``file#pointer``), raised by a keyword at or
    below that schema location (a finding about a keyword of the root, whose instance location is the whole document)."""
    try:
        todo = list(folder.checker(file).iter_errors(document))
    except Exception:  # a checker that cannot list its errors proves nothing about where
        return False
    n = len(under)
    while todo:
        error = todo.pop()
        where = list(error.absolute_path)
        placed = where[:n] == under or (n > 0 and where == under[:-1] and _keyword(error) in _PRESENCE)
        raised = folder.location(error.schema) or ""
        if placed and (schema_at is None or raised == schema_at or raised.startswith(schema_at + "/")):
            return True
        todo += list(error.context or ())
    return False


def is_witness(
    accepts: Folder, rejects: Folder, file: str, document: Any, under: list[Any] | None = None, schema_at: str | None = None
) -> bool:
    """``accepts`` takes the document and ``rejects`` refuses it — at or below the instance location ``under``
    when given, so that a witness proves the finding it is attached to — as python-jsonschema decides
    (jsonschema-rs, when it has an answer, first rules out the documents that are no witness, ~100x faster)."""
    if file not in rejects.files:
        return False
    if rejects.probably_accepts(file, document) is True or accepts.probably_accepts(file, document) is False:
        return False
    if not accepts.accepts(file, document) or rejects.accepts(file, document):
        return False
    return under is None or rejected_under(rejects, file, document, under, schema_at)


def shrink(accepts: Folder, rejects: Folder, file: str, document: Any, under: list[Any] | None = None, schema_at: str | None = None) -> Any:
    """A smaller witness: keys and items dropped and strings shortened, one at a time, while the document stays
    a witness."""
    steps = 0

    def smaller(value: Any) -> Iterator[Any]:
        if isinstance(value, dict):
            for key in list(value):
                yield {k: v for k, v in value.items() if k != key}
            for key in list(value):
                for inner in smaller(value[key]):
                    yield {**value, key: inner}
        elif isinstance(value, list):
            for i in range(len(value)):
                yield value[:i] + value[i + 1 :]
            for i in range(len(value)):
                for inner in smaller(value[i]):
                    yield [*value[:i], inner, *value[i + 1 :]]
        elif isinstance(value, str) and len(value) > 1:
            yield from ("", "a")

    current, progress = document, True
    while progress and steps < MAX_SHRINK_STEPS:
        progress = False
        for option in smaller(current):
            steps += 1
            if steps >= MAX_SHRINK_STEPS:
                break
            if is_witness(accepts, rejects, file, option, under, schema_at):
                current, progress = option, True
                break
    return current


def _roots(folder: Folder, other: Folder, first: str) -> list[str]:
    return [first] + [name for name in folder.files if name != first and name in other.files] if first in folder.files else []


def find(accepts: Folder, rejects: Folder, location: str, budget: float) -> Witness | None:
    """A document that ``accepts`` takes and ``rejects`` refuses, aimed at ``location`` (``file#pointer``)."""
    deadline = time.process_time() + budget
    file, _, pointer = location.partition("#")
    exact = node_at(accepts, file, pointer)
    targets: list[tuple[Any, str | None]] = []
    tokens = _tokens(pointer)
    is_property = len(tokens) >= 2 and tokens[-2] == "properties"
    if exact is not None and (accepts.where.get(id(exact)) == (file, pointer) or not is_property):
        targets.append((exact, None))
    if is_property:
        # a property's presence or its value where the object did not declare it: the object is the target
        parent = "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens[:-2])
        targets.append((node_at(accepts, file, parent), tokens[-1]))
    tried = 0
    for target, prop in targets:
        if target is None:
            continue
        for root in _roots(accepts, rejects, file):
            gen = generator(accepts, root, deadline)
            after = rejects.quick(root)  # the accepting version's is built when first asked (most candidates stop here)
            elsewhere: set[frozenset[Any]] = set()  # how jsonschema-rs rejects the witnesses placed elsewhere
            path = gen.path_to(target)
            if path is None:
                continue
            node, resolver, _ = path[-1]
            under = instance_path(path) + ([prop] if prop is not None else [])
            # a keyword of the root applies to the whole document: the error must come from that keyword
            schema_at = location if not under and pointer not in ("", "/") and root == file else None
            leaves = gen.fresh(node, resolver)
            counterpart = node_at(rejects, file, pointer) if prop is None else None
            if counterpart is not None and file in rejects.files:
                # the other version's boundaries (a new maxLength's first longer string) as values to try here
                other = generator(rejects, file, deadline)
                leaves = [*leaves, *other.fresh(counterpart, other.enter(rejects.resolver(file), counterpart))]
            if prop is not None:
                base = gen.complete(node, resolver, {}, 0)
                leaves = [*leaves, *({**base, prop: value} for value in ANY_VALUES)]
            if prop is None and tokens and tokens[-1] in ("if", "then"):
                leaves = [*leaves, *_triggered(rejects, file, tokens[:-1], deadline)]
            steps = gen.placing(path)
            if steps is None:
                continue  # no document reaches the target from this root
            placed: set[str] = set()
            for leaf in leaves:
                tried += 1
                if tried > MAX_DOCUMENTS or time.process_time() > deadline:
                    return None
                text = repr(leaf)
                if text in placed:
                    continue  # the same document as an earlier leaf (the other version's candidates repeat ours)
                placed.add(text)
                document = gen.place(steps, leaf)
                new_valid = _quick_valid(after, document)  # first: most candidates are valid in both
                if new_valid is True or accepts.probably_accepts(root, document) is False:
                    continue  # jsonschema-rs rules it out (as is_witness would)
                rejections = rejects.quick_rejections(root, document) if new_valid is False else None
                if rejections is not None and rejections in elsewhere:
                    continue  # rejected as a document was that python-jsonschema found rejected elsewhere only
                if is_witness(accepts, rejects, root, document, under, schema_at):
                    return Witness(root, shrink(accepts, rejects, root, document, under, schema_at))
                if rejections is not None and accepts.accepts(root, document) and not rejects.accepts(root, document):
                    elsewhere.add(rejections)  # a witness, but not of this finding (a version pin beside it)
    return None


def _triggered(rejects: Folder, file: str, holder_at: list[str], deadline: float) -> list[Any]:
    """Objects that satisfy the other version's ``if`` with a property its ``then`` names set to each plain value:
    a condition that now matches more documents (or a ``then`` that now says more) rejects those the ``then``
    refuses, which no candidate of either side alone holds (AsyncAPI 2.1.0's new schemaFormat values: the
    payload must then be a schema)."""
    holder = node_at(rejects, file, "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in holder_at))
    if not isinstance(holder, dict) or not isinstance(holder.get("if"), dict) or not isinstance(holder.get("then"), dict):
        return []
    other = generator(rejects, file, deadline)
    resolver = other.enter(rejects.resolver(file), holder)
    triggers = [v for v in other.fresh(holder["if"], other.enter(resolver, holder["if"])) if isinstance(v, dict)][:4]
    names = list(holder["then"].get("properties") or {})[:4] if isinstance(holder["then"].get("properties"), dict) else []
    return [{**trigger, name: value} for trigger in triggers for name in names for value in ANY_VALUES]


def used(folder: Folder, location: str) -> bool:
    """Whether any schema file of ``folder`` reaches the schema at ``location`` from its root."""
    file, _, pointer = location.partition("#")
    target = node_at(folder, file, pointer)
    if target is None or folder.where.get(id(target)) != (file, pointer):
        return False
    return any(generator(folder, root, float("inf")).path_to(target) is not None for root in folder.files)


def rejected_at(folder: Folder, file: str, document: Any) -> list[str]:
    """Every place where ``folder``'s ``file`` rejects ``document``: ``file#pointer`` of the failing keyword that
    best explains each of its errors (inside an ``anyOf``, the branch that came closest)."""
    try:
        errors = [best_match([error]) for error in folder.checker(file).iter_errors(document)]
    except Exception:  # the checker could not even report: name the file
        return [f"{file}#"]
    return sorted({f"{folder.location(error.schema) or f'{file}#'}/{_keyword(error)}" for error in errors if error is not None})


def _quick_valid(quick: Any, document: Any) -> bool | None:
    """:meth:`Folder.probably_accepts` with the file's jsonschema-rs checker at hand (called for every candidate)."""
    if quick is None:
        return None
    try:
        return bool(quick.is_valid(document))
    except Exception:  # no answer from it
        return None


_UNASKED = object()


class _Checked:
    """What was found about a candidate document, each answer computed when first needed: whether the rejecting
    version's jsonschema-rs accepts it (``new``), whether the accepting one's does (``old``), how the rejecting one
    refuses it (``rejections``), whether it is a witness (``witness``) and where it is rejected (``wheres``)."""

    __slots__ = ("new", "old", "rejections", "wheres", "witness")

    def __init__(self, new: bool | None) -> None:
        self.new = new
        self.old: Any = _UNASKED
        self.rejections: Any = _UNASKED
        self.witness: Any = _UNASKED
        self.wheres: list[str] | None = None


_VALID_NOW = _Checked(True)  # what is kept of most candidates: the rejecting version accepts them (jsonschema-rs)


def explore(accepts: Folder, rejects: Folder, budget: float) -> list[tuple[str, Witness]]:
    """Witnesses found by walking every file's schema graph from its root (what the field-level comparison cannot
    see: conditionals, dynamic references): one per location where the second version rejects them."""
    deadline = time.process_time() + budget
    found: dict[str, Witness] = {}
    confirmed: set[tuple[str, frozenset[Any]]] = set()  # where jsonschema-rs rejected each confirmed witness
    for root in accepts.files:
        if root not in rejects.files:
            continue
        gen = generator(accepts, root, deadline)
        after = rejects.quick(root)  # the accepting version's is built when first asked (most candidates stop here)
        seen: dict[str, _Checked] = {}
        for path in gen.reachable(limit=2000):
            if time.process_time() > deadline:
                break
            node, resolver, _ = path[-1]
            leaves = gen.fresh(node, resolver)[:8]
            here = accepts.where.get(id(node))
            counterpart = node_at(rejects, *here) if here is not None else None
            if here is not None and counterpart is not None and rejects.where.get(id(counterpart)) == here:
                # a property the other version declares and this one does not (here or in a schema that always
                # applies with it, such as a vocabulary's): any value was accepted before
                other = generator(rejects, here[0], deadline)
                declared, _ = gen.object_parts(node, resolver, 0)
                theirs, _ = other.object_parts(counterpart, other.enter(rejects.resolver(here[0]), counterpart), 0)
                added = [n for n in theirs if n not in declared]
                base = gen.complete(node, resolver, {}, 0)
                leaves += [{**base, name: value} for name in added[:16] for value in ANY_VALUES]
            steps = gen.placing(path)
            if steps is None:
                continue  # no document reaches this node
            placement = ",".join(map(str, map(id, steps))) + ":"
            for i, leaf in enumerate(leaves):
                if i % 8 == 7 and time.process_time() > deadline:  # the clock is a system call: read every 8 leaves
                    break
                # a leaf placed alike before (a schema and the one its $ref names are reached by two paths) gives
                # the same document: what was found about it then holds (the answers are kept, not the document)
                key = placement + repr(leaf)
                checked = seen.get(key)
                if checked is _VALID_NOW:
                    continue  # valid now (jsonschema-rs): no witness
                document = gen.place(steps, leaf)
                if checked is None:
                    try:  # first: most candidates are valid in both (jsonschema-rs of the rejecting version)
                        new_valid = bool(after.is_valid(document)) if after is not None else None
                    except Exception:  # no answer from it
                        new_valid = None
                    if new_valid is True:
                        seen[key] = _VALID_NOW
                        continue
                    checked = seen[key] = _Checked(new_valid)
                places = None
                if checked.old is _UNASKED:
                    checked.old = accepts.probably_accepts(root, document)
                if checked.old is False:
                    continue  # jsonschema-rs rules it out (as is_witness would)
                if checked.new is False:
                    if checked.rejections is _UNASKED:
                        checked.rejections = rejects.quick_rejections(root, document)
                    places = (root, checked.rejections) if checked.rejections is not None else None
                    if places is not None and places in confirmed:
                        break  # rejected where a confirmed witness was, for the same reasons: nothing new here
                if checked.witness is _UNASKED:
                    checked.witness = is_witness(accepts, rejects, root, document)
                if checked.witness:
                    if places is not None:
                        confirmed.add(places)
                    if checked.wheres is None:
                        checked.wheres = rejected_at(rejects, root, document)
                    for where in checked.wheres:
                        if where not in found:
                            # shrunk while it is still rejected by that keyword
                            keyword_at = where.rsplit("/", 1)[0]
                            found[where] = Witness(root, shrink(accepts, rejects, root, document, [], keyword_at))
                    break
    return sorted(found.items())
