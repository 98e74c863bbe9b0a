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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from evalschema_models import rules as codes
from evalschema_models.constants import INPUT_SUFFIXES

from ..core.findings import Finding
from ..core.limits import INPUT_BYTES_VARIABLE, MAX_DEPTH, max_input_bytes, too_large_message
from ..core.messages import render
from .loaded import Loaded as Loaded  # where it always was, for every reader of documents
from .problem import ReadProblem

if TYPE_CHECKING:  # the positions and the strict reader are imported when needed: a valid document needs neither
    from .positions import Positions

SUFFIXES: dict[str, str] = INPUT_SUFFIXES


BOM_MESSAGE = render(codes.INVALID_JSON, "bom")


def _position(before: str) -> tuple[int, int]:
    """The 1-based line and column (in characters) just after ``before``."""
    return before.count("\n") + 1, len(before) - before.rfind("\n")


# The fast path (orjson) keeps the last of duplicate keys, so it is checked with C-speed scans that count colons.
# Outside strings a colon only ever ends a key, so the text's colons are its keys plus the colons inside its
# strings; orjson writes the parsed value back with each key once and every string's colons as they were —
# unless the text wrote one as a \u003a escape, which the written value shows as a colon. So, with no such
# escape, equal counts mean no key was dropped. Texts where the count could be off, and integers too long for
# the double orjson would turn them into, take the exact path; so does any mismatch, which then names the duplicate.
_ESCAPED_COLONS = (b"\\u003a", b"\\u003A")
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
    if b"\\u00" in data and any(escape in data for escape in _ESCAPED_COLONS):
        return True
    return _LONG_INTEGER in data.translate(_DIGITS)


def certainly_exact(data: bytes, value: Any, *, listed: bool = False) -> bool:
    """Whether ``value``, orjson's reading of ``data`` (with ``listed``: of the list ``[`` + data + ``]``), is the
    exact reading. Text written as orjson writes (compact, UTF-8, its number forms — JSON Lines and most
    harnesses' output) is when the value written back is the same bytes: nothing was dropped, merged or rounded.
    Any other text is decided by counting colons (above)."""
    try:
        written = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # deeper than orjson writes (255 levels): take the exact path
        return False
    if written == data if not listed else len(written) == len(data) + 2 and written.startswith(data, 1):
        return True
    return not needs_exact_path(data) and data.count(b":") == written.count(b":")


def _fast_parse(data: bytes) -> tuple[bool, Any]:
    """(True, value) when orjson's reading is certainly the exact one; (False, None) to take the exact path."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False, None
    return (True, value) if certainly_exact(data, value) else (False, None)


def parse_json_bytes(data: bytes, path: str = "-", line: int | None = None) -> Loaded:
    """Parse JSON bytes: orjson when its reading is certainly exact, else the strict standard-library path."""
    ok, value = _fast_parse(data)
    if ok:
        offset = (line - 1) if line else 0
        return Loaded(path, value, line=line, _locate=lambda: _json_positions(data.decode("utf-8"), offset))
    text = decode(data)
    if isinstance(text, Finding):
        return Loaded(path, problem=Finding("", text.code, "error", text.message, line or text.line, text.column), line=line)
    return parse_json(text, path, line)


def _json_positions(text: str, offset: int) -> Positions:
    from .positions import json_positions

    return json_positions(text, offset)


def exact_value(text: str, *, max_depth: int = MAX_DEPTH, partial: bool = False) -> tuple[Any, int]:
    """Strict JSON, read by :mod:`evalschema.strict_json`: duplicate keys, NaN and Infinity are errors, nesting is
    limited to ``max_depth``. Returns the value and the index where it ends; with ``partial``, the text may go on
    after the value (a piece of a larger document) and must start with it. Raises :class:`ReadProblem`."""
    from . import strict_json

    return strict_json.read(text, max_depth=max_depth, partial=partial)


def parse_json(text: str, path: str = "-", line: int | None = None) -> Loaded:
    """Strict JSON: duplicate keys, NaN and Infinity are errors, not silently accepted."""
    offset = (line - 1) if line else 0
    try:
        document, _ = exact_value(text)
    except ReadProblem as problem:
        at = problem.where or (1, 1)
        return Loaded(
            path,
            problem=Finding("", problem.code, "error", problem.message, at[0] + offset, at[1]),
            line=line,
            problem_variant=problem.variant,
        )
    return Loaded(path, document, line=line, _locate=lambda: _json_positions(text, offset))


def parse_yaml(text: str, path: str = "-") -> list[Loaded]:
    """Every document of a YAML stream, safely (:mod:`evalschema.io.yaml_reader`, imported when YAML is read:
    PyYAML costs start-up time a JSON document should not pay)."""
    from .yaml_reader import parse_yaml as parse

    return parse(text, path)


def _named(loaded: Loaded, path: str) -> Loaded:
    loaded.path = path
    return loaded


def read_text(path: Path) -> str | Finding:
    """The file's text, or a FILE_UNREADABLE finding."""
    data = read_bytes(path)
    return data if isinstance(data, Finding) else decode(data)


def open_regular(path: str | os.PathLike[str]) -> BinaryIO | Finding:
    """The input gate's opener: ``path`` opened for reading if it is a regular file, else a FILE_UNREADABLE
    finding — at once, without blocking: a device, a FIFO, a socket or a folder is never read from (a FIFO
    without a writer would wait for ever, ``/dev/zero`` would never end). The file is opened non-blocking (should
    the path become a FIFO after any check, opening it must not wait for a writer), checked on the open
    descriptor, then set back to blocking reads. Every command that reads a file opens it here; how much it may
    read is :func:`read_limited`'s (whole) or :func:`limited_lines`' (line by line) to count."""
    try:
        # O_NONBLOCK: should the path become a FIFO after the check, opening it must not wait for a writer
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return _open_problem(exc)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            os.close(fd)
            return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "directory"))
        if not stat.S_ISREG(mode):
            os.close(fd)
            return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "not_regular"))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except OSError as exc:
        os.close(fd)
        return _open_problem(exc)
    from . import progress

    if progress.active():  # a terminal watches: the read is counted as it happens
        return progress.opened(fd, os.fspath(path), os.fstat(fd).st_size)
    return os.fdopen(fd, "rb")


def read_bytes(path: Path) -> bytes | Finding:
    """The file's bytes, or a FILE_UNREADABLE finding: a device or a pipe would never end and is refused, and so
    is a file larger than the input size limit (counted while reading: a sparse file or one that grows is caught)."""
    unusual = irregular_file(path)
    if unusual is not None:
        return unusual
    handle = open_regular(path)
    if isinstance(handle, Finding):
        return handle
    with handle:
        try:
            return read_limited(handle)
        except OSError as exc:
            return _open_problem(exc)


def _open_problem(exc: OSError) -> Finding:
    if isinstance(exc, IsADirectoryError):
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "directory"))
    if isinstance(exc, FileNotFoundError):
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "missing"))
    if isinstance(exc, PermissionError):
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "permission"))
    return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "os_error", detail=exc.strerror or exc))


def read_limited(handle: Any, limit: int | None = None) -> bytes | Finding:
    """Everything ``handle`` holds, or a FILE_UNREADABLE finding as soon as it passes ``limit`` bytes (the input
    size limit by default); memory never holds more than the limit and one chunk."""
    limit = max_input_bytes() if limit is None else limit
    chunks: list[bytes] = []
    total = 0
    try:
        size = os.fstat(handle.fileno()).st_size  # a regular file says how much there is: one read, no joining
    except (AttributeError, OSError, ValueError):  # no descriptor (a test's BytesIO), or stdin closed
        size = 0
    try:
        while True:
            chunk = handle.read(min(max(1 << 22, size + 1 if not chunks else 0), limit + 1 - total))
            if not chunk:
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                return Finding("", codes.FILE_UNREADABLE, "error", too_large_message(limit))
    except MemoryError:  # a limit set above the memory there is
        chunks.clear()
        return Finding(
            "",
            codes.FILE_UNREADABLE,
            "error",
            render(codes.FILE_UNREADABLE, "out_of_memory", detail=f"{total:,}", keyword=INPUT_BYTES_VARIABLE),
        )


def irregular_file(path: Path) -> Finding | None:
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "missing"))
    except OSError:
        return None  # let the read report it
    if stat.S_ISDIR(mode):
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "directory"))
    if not stat.S_ISREG(mode):
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "not_regular"))
    return None


def decode(data: bytes) -> str | Finding:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data[: exc.start].decode("utf-8", "replace"))
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "encoding", count=exc.start), line, column)


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
    handle = open_regular(path)
    if isinstance(handle, Finding):
        yield Loaded(str(path), problem=handle)
        return
    with handle:
        yield from jsonl_lines(handle, str(path))


def limited_lines(handle: Any, limit: int | None = None) -> Iterator[tuple[int, bytes] | Finding]:
    """(line number, line) for each line of a binary stream, blank ones too; a line longer than ``limit`` (the
    input size limit by default) is a FILE_UNREADABLE finding, and reading stops there: the rest of the input is
    not read into memory either. ``OSError`` from the stream is the caller's."""
    limit = max_input_bytes() if limit is None else limit
    number = 0
    while True:
        raw = handle.readline(limit + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limit and not raw.endswith(b"\n"):
            message = render(codes.FILE_UNREADABLE, "line_too_large", count=number, detail=too_large_message(limit))
            yield Finding("", codes.FILE_UNREADABLE, "error", message, number, 1)
            return
        yield number, raw


def jsonl_lines(handle: Any, path: str) -> Iterator[Loaded]:
    """One document per non-blank line of a binary stream; a line longer than the input size limit is refused
    (and reading stops there)."""
    number = 0
    try:
        for item in limited_lines(handle):
            if isinstance(item, Finding):
                yield Loaded(path, problem=item, line=item.line)
                return
            number, raw = item
            if raw.strip():
                yield parse_json_bytes(raw.rstrip(b"\r\n"), path, number)
    except OSError as exc:
        yield Loaded(
            path,
            problem=Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "os_error", detail=exc.strerror or exc)),
            line=number or None,
        )


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
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "stdin_closed"))
    try:
        return read_limited(stream)
    except (OSError, ValueError) as exc:  # ValueError: a stream closed under us
        return Finding(
            "", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "stdin_error", detail=getattr(exc, "strerror", None) or exc)
        )


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


def not_an_object(line: int | None = None) -> Finding:
    """The finding for a document that was read but is not a JSON object, where only a result set will do."""
    return Finding("", codes.TYPE_MISMATCH, "error", render(codes.TYPE_MISMATCH, "not_object"), line)


def name_problem(path: str) -> Finding | None:
    """A FILE_UNREADABLE finding when a file name is not UTF-8 text (it could not be reported as JSON, and the
    TypeScript CLI cannot even open it): the same answer in every SDK."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return Finding("", codes.FILE_UNREADABLE, "error", render(codes.FILE_UNREADABLE, "file_name"))
    return None
