"""Reading documents: files, folders, globs and stdin; JSON, JSON Lines and YAML — strictly and safely.

Every way reading can fail becomes a finding with a code, and a line and column where there is one:
FILE_UNREADABLE (missing, a directory given as a file, no permission, not UTF-8), INVALID_JSON (syntax, NaN or
Infinity, nesting too deep), INVALID_YAML (syntax, a tag that would construct an object, an alias expansion
too large), DUPLICATE_KEY (a document whose meaning would depend on the parser).
"""

from __future__ import annotations

import fnmatch
import gc
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import yaml

from evalschema_models import rules as codes
from evalschema_models.constants import INPUT_SUFFIXES

from ..core.findings import Finding
from ..core.limits import INPUT_BYTES_VARIABLE, YAML_NODE_LIMIT, max_input_bytes, too_large_message
from ..core.messages import render, show
from . import strict_json
from .positions import MAX_DEPTH, Positions, json_positions, yaml_positions

SUFFIXES: dict[str, str] = INPUT_SUFFIXES


@dataclass
class Loaded:
    """One document read from a source, or the finding that says why there is none."""

    path: str
    document: Any = None
    problem: Finding | None = None
    line: int | None = None  # the line of a JSON Lines entry
    problem_variant: str | None = None  # the ledger message variant of ``problem`` (e.g. "trailing"), to decide on
    _locate: Callable[[], Positions] | None = field(default=None, repr=False)

    def positions(self) -> Positions:
        return self._locate() if self._locate is not None else {}


class DuplicateKeyError(ValueError):
    """A YAML mapping repeats a key (raised by the YAML constructor, caught by :func:`parse_yaml`)."""

    def __init__(self, key: str, where: tuple[int, int]) -> None:
        super().__init__(key)
        self.key, self.where = key, where


BOM_MESSAGE = render(codes.INVALID_JSON, "bom")


def _position(before: str) -> tuple[int, int]:
    """The 1-based line and column (in characters) just after ``before``."""
    return before.count("\n") + 1, len(before) - before.rfind("\n")


# The fast path (orjson) keeps the last of duplicate keys, so it is checked, with a few C-speed scans: every
# key token of the text ("…":) must survive into the parsed value, which orjson writes back with each key as
# "…": exactly once. Texts where that count could be off take the exact (standard library) path: a key written
# with whitespace before its colon, a quote or colon disguised as a \u escape, or an integer too long for the
# double orjson would turn it into. Any mismatch takes the exact path too, which then names the duplicate.
_SPACED_COLON = re.compile(rb'"[ \t\r\n]+:')
_DIGITS = bytes(ord("0") if 48 <= i <= 57 else ord("x") for i in range(256))
_LONG_INTEGER = b"0" * 19


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector around a parse and its validation.

    Parsing allocates millions of objects and creates no cycles (JSON has none); with the collector running,
    most of the time goes to collections that find nothing. Documents are freed by reference counting as usual.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def needs_exact_path(data: bytes) -> bool:
    """Whether orjson's reading of this text might differ from the exact one in a way the key count cannot see."""
    if (b"\\u00" in data and any(m in data for m in (b"\\u0022", b"\\u003a", b"\\u003A"))) or _SPACED_COLON.search(data):
        return True
    return _LONG_INTEGER in data.translate(_DIGITS)


def same_keys(data: bytes, value: Any) -> bool:
    """Whether every key token of the text survived into orjson's value (no key was repeated in an object)."""
    try:
        written = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # deeper than orjson writes (255 levels): take the exact path
        return False
    return data.count(b'":') == written.count(b'":')


def _fast_parse(data: bytes) -> tuple[bool, Any]:
    """(True, value) when orjson's reading is certainly the exact one; (False, None) to take the exact path."""
    if needs_exact_path(data):
        return False, None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None
    return (True, value) if same_keys(data, value) else (False, None)


def parse_json_bytes(data: bytes, path: str = "-", line: int | None = None) -> Loaded:
    """Parse JSON bytes: orjson when its reading is certainly exact, else the strict standard-library path."""
    ok, value = _fast_parse(data)
    if ok:
        offset = (line - 1) if line else 0
        return Loaded(path, value, line=line, _locate=lambda: json_positions(data.decode("utf-8"), offset))
    text = decode(data)
    if isinstance(text, Finding):
        return Loaded(path, problem=Finding("", text.code, "error", text.message, line or text.line, text.column), line=line)
    return parse_json(text, path, line)


class ReadProblem(ValueError):
    """Why a JSON text cannot be read: a ledger code, a message, and where in the text (1-based line and column;
    also the index). ``variant`` is the message variant (spec/ledger.json): callers decide on it, not on the text."""

    def __init__(self, code: str, message: str, where: tuple[int, int] | None, index: int | None = None, variant: str = "default") -> None:
        super().__init__(message)
        self.code, self.message, self.where, self.index, self.variant = code, message, where, index, variant


def exact_value(text: str, *, max_depth: int = MAX_DEPTH, partial: bool = False) -> tuple[Any, int]:
    """Strict JSON, read by :mod:`evalschema.strict_json`: duplicate keys, NaN and Infinity are errors, nesting is
    limited to ``max_depth``. Returns the value and the index where it ends; with ``partial``, the text may go on
    after the value (a piece of a larger document) and must start with it. Raises :class:`ReadProblem`."""
    try:
        return strict_json.read(text, max_depth=max_depth, partial=partial)
    except strict_json.JsonProblem as exc:
        raise ReadProblem(exc.code, exc.message, strict_json.position(text, exc.index), exc.index, exc.variant) from None


def parse_json(text: str, path: str = "-", line: int | None = None) -> Loaded:
    """Strict JSON: duplicate keys, NaN and Infinity are errors, not silently accepted."""
    offset = (line - 1) if line else 0
    try:
        document, _ = exact_value(text)
    except ReadProblem as exc:
        at = exc.where or (1, 1)
        return Loaded(
            path, problem=Finding("", exc.code, "error", exc.message, at[0] + offset, at[1]), line=line, problem_variant=exc.variant
        )
    return Loaded(path, document, line=line, _locate=lambda: json_positions(text, offset))


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
                    raise DuplicateKeyError(key, (mark.line + 1, mark.column + 1))
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
            return [Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", f"more than {YAML_NODE_LIMIT:,} nodes"))]
        with _deep_stack():
            nodes = list(yaml.compose_all(text, Loader=composer))
    except RecursionError:
        return [Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", f"nested more than {MAX_DEPTH} levels deep"))]
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
            out.append(Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", f"nested more than {MAX_DEPTH} levels deep", *at)))
            continue
        # nodes shared through aliases count once per use: the tree they expand to must stay within the node
        # limit too (the nodes as written already do: past it, only aliases can have taken the tree)
        if _expanded_size(node, YAML_NODE_LIMIT) > YAML_NODE_LIMIT:
            out.append(
                Loaded(
                    path, problem=Finding("", codes.INVALID_YAML, "error", f"aliases expand to more than {YAML_NODE_LIMIT:,} nodes", *at)
                )
            )
            continue
        try:
            with _deep_stack():
                document = constructor.construct_document(node)
        except DuplicateKeyError as exc:
            finding = Finding("", codes.DUPLICATE_KEY, "error", render(codes.DUPLICATE_KEY, name=exc.key), *exc.where)
            out.append(Loaded(path, problem=finding))
            continue
        except RecursionError:
            out.append(Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", "nested too deeply to read", *at)))
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
    return out or [Loaded(path, problem=Finding("", codes.INVALID_YAML, "error", "empty YAML document"))]


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


def _named(loaded: Loaded, path: str) -> Loaded:
    loaded.path = path
    return loaded


def read_text(path: Path) -> str | Finding:
    """The file's text, or a FILE_UNREADABLE finding."""
    data = read_bytes(path)
    return data if isinstance(data, Finding) else decode(data)


def read_bytes(path: Path) -> bytes | Finding:
    """The file's bytes, or a FILE_UNREADABLE finding: a device or a pipe would never end and is refused, and so
    is a file larger than the input size limit (counted while reading: a sparse file or one that grows is caught)."""
    unusual = irregular_file(path)
    if unusual is not None:
        return unusual
    try:
        # O_NONBLOCK: should the path become a FIFO after the check, opening it must not wait for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        return _open_problem(exc)
    with os.fdopen(fd, "rb") as handle:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return Finding("", codes.FILE_UNREADABLE, "error", "not a regular file (a device, pipe or socket)")
            return read_limited(handle)
        except OSError as exc:
            return _open_problem(exc)


def _open_problem(exc: OSError) -> Finding:
    if isinstance(exc, IsADirectoryError):
        return Finding("", codes.FILE_UNREADABLE, "error", "is a directory")
    if isinstance(exc, FileNotFoundError):
        return Finding("", codes.FILE_UNREADABLE, "error", "no such file")
    if isinstance(exc, PermissionError):
        return Finding("", codes.FILE_UNREADABLE, "error", "permission denied")
    return Finding("", codes.FILE_UNREADABLE, "error", f"cannot read: {exc.strerror or exc}")


def read_limited(handle: Any, limit: int | None = None) -> bytes | Finding:
    """Everything ``handle`` holds, or a FILE_UNREADABLE finding as soon as it passes ``limit`` bytes (the input
    size limit by default); memory never holds more than the limit and one chunk."""
    limit = max_input_bytes() if limit is None else limit
    chunks: list[bytes] = []
    total = 0
    try:
        while True:
            chunk = handle.read(min(1 << 22, limit + 1 - total))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                return Finding("", codes.FILE_UNREADABLE, "error", too_large_message(limit))
    except MemoryError:  # a limit set above the memory there is
        chunks.clear()
        return Finding("", codes.FILE_UNREADABLE, "error", f"not enough memory to read {total:,} bytes; lower {INPUT_BYTES_VARIABLE}")


def irregular_file(path: Path) -> Finding | None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return Finding("", codes.FILE_UNREADABLE, "error", "no such file")
    except OSError:
        return None  # let the read report it
    if stat.S_ISDIR(mode):
        return Finding("", codes.FILE_UNREADABLE, "error", "is a directory")
    if not stat.S_ISREG(mode):
        return Finding("", codes.FILE_UNREADABLE, "error", "not a regular file (a device, pipe or socket)")
    return None


def decode(data: bytes) -> str | Finding:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data[: exc.start].decode("utf-8", "replace"))
        return Finding("", codes.FILE_UNREADABLE, "error", f"not UTF-8 text (byte {exc.start})", line, column)


def iter_jsonl(lines: Iterator[str], path: str) -> Iterator[Loaded]:
    """One document per non-blank line, streamed."""
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield parse_json(line, path, number)


def load_text(text: str, path: str, form: str) -> Iterator[Loaded]:
    if form == "yaml":
        yield from parse_yaml(text, path)
    elif form == "jsonl":
        yield from iter_jsonl(iter(text.splitlines()), path)
    else:
        yield parse_json(text, path)


def _jsonl_file(path: Path) -> Iterator[Loaded]:
    """Stream a JSON Lines file: memory holds one line at a time."""
    unusual = irregular_file(path)
    if unusual is not None:
        yield Loaded(str(path), problem=unusual)
        return
    try:
        handle = path.open("rb")
    except OSError:
        text = read_text(path)
        yield Loaded(str(path), problem=text if isinstance(text, Finding) else None)
        return
    with handle:
        yield from _jsonl_lines(handle, str(path))


def _jsonl_lines(handle: Any, path: str) -> Iterator[Loaded]:
    """One document per non-blank line of a binary stream; a line longer than the input size limit is refused
    (and reading stops there: the rest of the input is not read into memory either)."""
    limit = max_input_bytes()
    number = 0
    try:
        while True:
            raw = handle.readline(limit + 1)
            if not raw:
                return
            number += 1
            if len(raw) > limit and not raw.endswith(b"\n"):
                yield Loaded(
                    path,
                    problem=Finding("", codes.FILE_UNREADABLE, "error", f"line {number} is {too_large_message(limit)}", number, 1),
                    line=number,
                )
                return
            if raw.strip():
                yield parse_json_bytes(raw.rstrip(b"\r\n"), path, number)
    except OSError as exc:
        yield Loaded(path, problem=Finding("", codes.FILE_UNREADABLE, "error", f"cannot read: {exc.strerror or exc}"), line=number or None)


def load_path(path: Path, form: str | None = None) -> Iterator[Loaded]:
    """Every document in one file (a JSON Lines file gives one per line)."""
    form = form or SUFFIXES.get(path.suffix.lower(), "json")
    if form == "jsonl":
        yield from _jsonl_file(path)
        return
    if form == "json":
        data = read_bytes(path)
        yield Loaded(str(path), problem=data) if isinstance(data, Finding) else _named(parse_json_bytes(data), str(path))
        return
    text = read_text(path)
    if isinstance(text, Finding):
        yield Loaded(str(path), problem=text)
        return
    yield from load_text(text, str(path), form)


def _stdin_bytes() -> bytes | Finding:
    """Standard input, up to the input size limit; a closed or write-only stdin is a finding, not a crash."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return Finding("", codes.FILE_UNREADABLE, "error", "standard input is closed")
    try:
        return read_limited(stream)
    except (OSError, ValueError) as exc:  # ValueError: a stream closed under us
        return Finding("", codes.FILE_UNREADABLE, "error", f"cannot read standard input: {getattr(exc, 'strerror', None) or exc}")


def load_stdin(form: str | None) -> Iterator[Loaded]:
    data = _stdin_bytes()
    if isinstance(data, Finding):
        yield Loaded("-", problem=data)
        return
    if form in (None, "json"):
        # one JSON document, or (unless told it is JSON) JSON Lines when the text holds several
        single = parse_json_bytes(data, "-")
        if form == "json" or single.problem is None or single.problem_variant != "trailing":
            yield single
            return
        form = "jsonl"
    text = decode(data)
    if isinstance(text, Finding):
        yield Loaded("-", problem=text)
        return
    yield from load_text(text, "-", form)


_MAGIC = re.compile(r"[*?\[]")


def _segment_matches(name: str, pattern: str) -> bool:
    if name.startswith(".") and not pattern.startswith("."):
        return False  # as the shell (and glob) do: a wildcard does not match a hidden name
    return fnmatch.fnmatchcase(name, pattern)


def _matches(parts: tuple[str, ...], patterns: tuple[str, ...]) -> bool:
    if not patterns:
        return not parts
    if patterns[0] == "**":
        return any(_matches(parts[i:], patterns[1:]) for i in range(len(parts) + 1) if all(not p.startswith(".") for p in parts[:i]))
    return bool(parts) and _segment_matches(parts[0], patterns[0]) and _matches(parts[1:], patterns[1:])


def _walk(root: Path, depth: int | None = None) -> Iterator[Path]:
    """Every file under ``root`` (symbolic links to files included), never following a link to a folder: a link
    loop cannot make the walk endless. ``depth``: at most this many levels below ``root``."""
    base = len(root.parts)
    for folder, folders, files in os.walk(root, followlinks=False):
        here = Path(folder)
        if depth is not None and len(here.parts) - base >= depth - 1:
            folders[:] = []
            if len(here.parts) - base > depth - 1:
                continue
        for name in files:
            yield here / name


def _glob(pattern: str) -> list[Path]:
    """The files a pattern names (``*``, ``?``, ``[…]`` within a name, ``**`` for any number of folders), found
    without following links to folders."""
    parts = Path(pattern).parts
    fixed = 0
    while fixed < len(parts) - 1 and not _MAGIC.search(parts[fixed]):
        fixed += 1
    root = Path(*parts[:fixed]) if fixed else Path(".")
    patterns = parts[fixed:]
    if not root.is_dir():
        return []
    depth = None if "**" in patterns else len(patterns)
    found = []
    for file in _walk(root, depth):
        relative = file.relative_to(root).parts
        if _matches(relative, patterns) and file.is_file():
            found.append(file if fixed else Path(*relative))
    return sorted(found)


def expand(arguments: list[str]) -> Iterator[Path | str]:
    """Files, folders (recursively: every .json, .jsonl, .ndjson, .yaml, .yml), globs, and ``-`` for stdin.
    Links to folders are not followed inside a folder or a ``**`` pattern (a link loop would never end)."""
    for argument in arguments:
        if argument == "-":
            yield "-"
            continue
        path = Path(argument)
        try:
            is_dir, exists = path.is_dir(), path.exists()
        except OSError:  # a name too long, say: the reader says so, for this path alone
            yield path
            continue
        if is_dir:
            yield from sorted(p for p in _walk(path) if p.suffix.lower() in SUFFIXES and p.is_file())
        elif not exists and _MAGIC.search(argument):
            matches = _glob(argument)
            if not matches:
                yield path  # reported as unreadable: a pattern that matches nothing is a mistake
            yield from matches
        else:
            yield path


def name_problem(path: str) -> Finding | None:
    """A FILE_UNREADABLE finding when a file name is not UTF-8 text (it could not be reported as JSON, and the
    TypeScript CLI cannot even open it): the same answer in every SDK."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return Finding("", codes.FILE_UNREADABLE, "error", "the file name is not UTF-8 text")
    return None
