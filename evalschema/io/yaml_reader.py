"""The YAML reader: YAML 1.2's core schema on PyYAML, strict where JSON is (no duplicate keys, no values JSON
cannot hold), bounded in nodes, alias expansion and nesting. Imported only when a YAML input is read."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import yaml

from evalschema_models import rules as codes

from ..core.findings import Finding
from ..core.limits import YAML_NODE_LIMIT
from ..core.messages import render, show
from .loaded import Loaded
from .positions import MAX_DEPTH, Positions, yaml_positions
from .problem import ReadProblem


class _NotJson(yaml.constructor.ConstructorError):
    """A YAML value this reader refuses, in its own words (``detail``), at ``mark``."""

    def __init__(self, detail: str, mark: Any) -> None:
        super().__init__(None, None, detail, mark)
        self.detail = detail


class _SafeLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 core schema's plain scalars (SPEC 2.4), refusing duplicate keys
    (safe_load silently keeps the last one) and the non-finite numbers (.nan, .inf) that JSON cannot hold.

    PyYAML resolves plain scalars by YAML 1.1's rules, where ``yes``, ``no``, ``on``, ``off``, ``y`` and ``n`` are
    booleans, ``012`` is octal, ``1_000`` and ``1:20`` are integers and ``2026-11-30`` is a date. The JSON-compatible
    core schema of YAML 1.2 has none of that: those stay strings (a ``required: yes`` is then a TYPE_MISMATCH, not
    a silent ``true``), ``012`` is twelve."""

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        value = super().construct_yaml_float(node)
        if value != value or value in (float("inf"), float("-inf")):
            raise _NotJson(f"{node.value} is not a JSON number", node.start_mark)
        return value

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = str(self.construct_scalar(node))
        if _CORE_INT.fullmatch(text) is None:  # an explicit !!int tag on YAML 1.1 syntax (0b11, 1_000, 1:20)
            raise _NotJson(f"{show(text)} is not a YAML 1.2 integer", node.start_mark)
        try:
            base = 8 if text.startswith("0o") else 16 if text.startswith("0x") else 10
            value = int(text[2:] if base != 10 else text, base)
            float(value)
        except (ValueError, OverflowError):  # too large for a double, as for JSON (or for Python to convert)
            raise _NotJson("integer out of range: too large for a double", node.start_mark) from None
        return value

    def construct_undefined(self, node: yaml.Node) -> Any:
        raise _NotJson(f"{node.tag} has no JSON equivalent", node.start_mark)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, (list, dict)):
                raise _NotJson("a mapping key that is not a scalar", key_node.start_mark)
            if isinstance(key, (str, int, float, bool)) or key is None or hasattr(key, "isoformat"):
                # compared as the JSON key it becomes: 1 and "1", or true and "true", are the same key in JSON
                key = key if isinstance(key, str) else _json_key(key)
                if key in seen:
                    mark = key_node.start_mark
                    raise ReadProblem(codes.DUPLICATE_KEY, where=(mark.line + 1, mark.column + 1), name=key)
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _not_json(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    raise _NotJson(f"{node.tag} has no JSON equivalent", node.start_mark)


# The YAML 1.2 core schema's resolution of plain scalars (YAML 1.2.2, section 10.3.2), in place of PyYAML's 1.1 set.
_CORE_INT = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_CORE_RESOLVERS = (
    ("tag:yaml.org,2002:null", r"~|null|Null|NULL|", "~nN"),
    ("tag:yaml.org,2002:bool", r"true|True|TRUE|false|False|FALSE", "tTfF"),
    ("tag:yaml.org,2002:int", _CORE_INT.pattern, "-+0123456789"),
    (
        "tag:yaml.org,2002:float",
        r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.nan|\.NaN|\.NAN",
        "-+0123456789.",
    ),
)
_SafeLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in _CORE_RESOLVERS:
    _SafeLoader.add_implicit_resolver(_tag, re.compile(f"^(?:{_pattern})$"), [*_first, *([""] if _tag.endswith("null") else [])])

# PyYAML looks constructors up in a per-class table, not by method: register the strict ones, and refuse the
# safe tags whose values JSON cannot hold (bytes, sets, ordered pairs)
_SafeLoader.add_constructor("tag:yaml.org,2002:float", _SafeLoader.construct_yaml_float)
_SafeLoader.add_constructor("tag:yaml.org,2002:int", _SafeLoader.construct_yaml_int)
_SafeLoader.add_constructor(None, _SafeLoader.construct_undefined)
for _tag in ("binary", "set", "omap", "pairs"):
    _SafeLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _not_json)


def _children(node: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [v for pair in node.value for v in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _shape(node: Any) -> tuple[int, int]:
    """How many distinct nodes the graph has, and how deep its containers nest (iteratively)."""
    seen: set[int] = set()
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        children = _children(current)
        if children:
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in children)
    return len(seen), deepest


if getattr(yaml, "__with_libyaml__", False):
    from yaml.cyaml import CParser  # type: ignore[attr-defined]

    class _CComposer(CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """libyaml's scanner, parser and composer (only ``compose`` is used; construction is _SafeLoader's)."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)


def _expanded_size(node: Any, limit: int) -> int:
    """Nodes in the tree an alias-sharing graph expands to, stopping once past ``limit`` (billion laughs)."""
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        current, children_done = stack.pop()
        if id(current) in sizes:
            continue
        children = _children(current)
        if not children_done and children:
            stack.append((current, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        sizes[id(current)] = min(limit + 1, 1 + sum(sizes.get(id(child), 1) for child in children))
    return sizes[id(node)]


# PyYAML's own parser reads about 30,000 nodes a second; libyaml's (C) a hundred times as many. Large texts are
# composed by libyaml, when it is there, so that a document the input size limit lets through is read in bounded
# time; small ones by PyYAML, whose error messages the tests pin. Either way the nodes are built by _SafeLoader.
LIBYAML_FROM_CHARS = 1 << 20


def _composer(text: str) -> Any:
    if len(text) >= LIBYAML_FROM_CHARS and getattr(yaml, "__with_libyaml__", False):
        return _CComposer
    return _SafeLoader


def _too_many_nodes(text: str, composer: Any) -> bool:
    """Whether a document of the YAML stream has more than YAML_NODE_LIMIT nodes as written (aliases count once)."""
    count = 0
    for event in yaml.parse(text, Loader=composer):
        if isinstance(event, (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)):
            count += 1
            if count > YAML_NODE_LIMIT:
                return True
        elif isinstance(event, yaml.DocumentStartEvent):
            count = 0
    return False


@contextmanager
def _deep_stack() -> Iterator[None]:
    """PyYAML composes recursively (two frames per level): leave room for MAX_DEPTH levels and a margin, so that
    what is refused is decided by the depth limit, not by the interpreter's stack."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, MAX_DEPTH * 4 + 1000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def parse_yaml(text: str, path: str = "-") -> list[Loaded]:
    """Every document of a YAML stream, safely: no object construction, bounded alias expansion and nesting."""
    out: list[Loaded] = []
    composer = _composer(text)
    try:
        if composer is not _SafeLoader and _too_many_nodes(text, composer):
            # counted from the parser's events, before anything is built: memory stays flat however many
            return [
                Loaded(
                    path,
                    problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "nodes", detail=f"{YAML_NODE_LIMIT:,}")),
                )
            ]
        with _deep_stack():
            nodes = list(yaml.compose_all(text, Loader=composer))
    except RecursionError:
        return [Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "depth", limit=MAX_DEPTH)))]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = (mark.line + 1, mark.column + 1) if mark else (None, None)
        return [Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "syntax"), *where))]
    except yaml.YAMLError:  # the reader's own words, never the parser's: its class and mark are what is known
        return [Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "syntax")))]
    # one constructor for every document (it is given nodes, not text: a new one per document re-read the whole
    # stream each time, which for 20,000 small documents took gigabytes)
    constructor = _SafeLoader("")
    for node in nodes:
        if node is None:
            continue
        at = (node.start_mark.line + 1, node.start_mark.column + 1)
        _, depth = _shape(node)
        if depth > MAX_DEPTH:
            out.append(
                Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "depth", limit=MAX_DEPTH), *at))
            )
            continue
        # nodes shared through aliases count once per use: the tree they expand to must stay within the node
        # limit too (the nodes as written already do: past it, only aliases can have taken the tree)
        if _expanded_size(node, YAML_NODE_LIMIT) > YAML_NODE_LIMIT:
            out.append(
                Loaded(
                    path,
                    problem=Finding(
                        "", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "aliases", detail=f"{YAML_NODE_LIMIT:,}"), *at
                    ),
                )
            )
            continue
        try:
            with _deep_stack():
                document = constructor.construct_document(node)
        except ReadProblem as problem:
            out.append(Loaded(path, problem=problem.finding()))
            continue
        except RecursionError:
            out.append(Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "too_deep"), *at)))
            continue
        except yaml.constructor.ConstructorError as exc:
            mark = exc.problem_mark
            where_at = (mark.line + 1, mark.column + 1) if mark else (None, None)
            # our own refusals carry their words; any other constructor error is said the same way by every SDK
            detail = exc.detail if isinstance(exc, _NotJson) else "a value JSON cannot hold"
            out.append(
                Loaded(
                    path,
                    problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "unsafe", detail=detail), *where_at),
                )
            )
            continue
        out.append(Loaded(path, _json_compatible(document), _locate=_yaml_locator(node)))
    return out or [Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", render(codes.INVALID_YAML, "empty")))]


def _yaml_locator(node: yaml.Node) -> Callable[[], Positions]:
    return lambda: yaml_positions(node)


def _json_key(key: Any) -> str:
    """The key JSON would write for a YAML key that is not a string (``null``, ``true``, ``1.5``, a date)."""
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    return key.isoformat() if hasattr(key, "isoformat") else str(key)


def _json_compatible(value: Any) -> Any:
    """YAML has dates and non-string keys; a document of this spec is JSON, so convert them the JSON way."""
    import datetime

    if isinstance(value, (datetime.date, datetime.datetime)):  # a whole document that is one timestamp
        return value.isoformat()
    stack = [value]
    while stack:
        current = stack.pop()
        items = current.items() if isinstance(current, dict) else enumerate(current) if isinstance(current, list) else ()
        for key, item in list(items):
            if isinstance(item, (datetime.date, datetime.datetime)):
                current[key] = item.isoformat()
            elif isinstance(item, (dict, list)):
                stack.append(item)
        if isinstance(current, dict) and any(not isinstance(k, str) for k in current):
            for key in [k for k in current if not isinstance(k, str)]:
                current[_json_key(key)] = current.pop(key)
    return value
