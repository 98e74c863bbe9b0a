"""Reading one large JSON document in pieces: the members of its root object one at a time, and the items of one
root array (a result set's ``results``) in batches. Memory holds a read chunk and one batch, never the file.

Each piece is read as strictly as a whole document is (``loader``): orjson when its reading is certainly exact,
the strict reader (``strict_json``) otherwise. A document that cannot be read gives the finding that reading it whole gives —
same code, message, line and column — with the same precedence: text that is not UTF-8 anywhere in the file
first, then the first problem in document order (a repeated key counts where its object closes).

How a piece is found without scanning it in Python: orjson parses a window of bytes from the piece's start and
stops with an error at the first byte after the value; when the bytes before that offset parse as one value, that
is the piece. An error at the window's end (a window that ends inside the value) doubles the window. Anything else
is decided by the strict reader, from its own state: orjson's error messages are never read. A piece is parsed twice by C code, never
walked byte by byte in Python. After the first row, a whole batch of rows is usually found in one step (see
``_rows``).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from evalschema_models import constants
from evalschema_models import rules as codes

from ..core.findings import escape_token
from ..core.limits import max_input_bytes, too_large_message
from ..core.messages import render
from .loader import BOM_MESSAGE, certainly_exact, exact_value
from .positions import MAX_DEPTH, Positions, json_positions
from .problem import ReadProblem
from .strict_json import read as strict_read

# Tuning of this reader, not of the format (findings do not depend on them). Measured on 100k rows (104 MB): 4 MiB
# reads and 2 MiB batches peaked at 85 MiB; 1 MiB and 256 KiB at 50 MiB, and ran 10 % faster (a batch's parsed
# rows stay in the CPU's caches through every stage)
CHUNK_BYTES = 1 << 20  # read 1 MiB at a time
BATCH_ITEMS = 1000  # rows read one by one are handed over together, so per-call costs are shared
BATCH_BYTES = 1 << 18  # …or as many as 256 KiB of text holds
# Reading member by member pays off for a result set's few members and many rows; a root with more members than
# this is no result set worth streaming (its members would each cost a Python round trip): it is read whole
MAX_MEMBERS = constants.MAX_MEMBERS
_FIRST_WINDOW = 1 << 12
_MAX_FIRST_WINDOW = 1 << 20  # one huge row must not make every later read reach that far ahead
_CUT_MARGIN = 16  # a syntax error this close to a window's end may only be the window's end
_SPACE = re.compile(rb"[ \t\r\n]*")
_STRUCTURE = re.compile(rb'["\[\]{}]')
_SCAN_FROM = 1 << 20  # a value still unfinished past this many bytes is scanned for its end (``scan_end``)
_NOT_CONTINUATION = bytes(i for i in range(256) if not 0x80 <= i <= 0xBF)


class _TooLarge(Exception):
    """One value (a member or a row) is larger than the input size limit."""


class NotStreamable(Exception):
    """The root is not an object: read the document whole instead (nothing was reported)."""


def _chars(data: bytes) -> int:
    """Characters in UTF-8 bytes that begin on a character boundary."""
    if data.isascii():  # most text, and a word at a time
        return len(data)
    return len(data) - len(data.translate(None, _NOT_CONTINUATION))


def _byte_offset(buf: bytes, start: int, chars: int) -> int:
    """How many bytes from ``buf[start]`` hold ``chars`` characters (orjson counts error positions in characters)."""
    size = chars
    while True:  # each round adds the continuation bytes found so far; ASCII text takes one round
        wider = chars + len(buf[start : start + size]) - _chars(buf[start : start + size])
        if wider == size:
            return size
        size = wider


def _advance(data: bytes, line: int, column: int, start: int = 0, end: int | None = None, ascii: bool = False) -> tuple[int, int]:
    """The line and 0-based column just after ``data[start:end]``, from (``line``, ``column``) before it. The span
    is counted in place, and with ``ascii`` (the caller knows ``data`` is ASCII) without looking at characters:
    finding where a batch of rows starts then copies none of its 2 MiB."""
    end = len(data) if end is None else end
    last = data.rfind(b"\n", start, end)  # memrchr: a file on one line is never counted byte by byte
    if last >= 0:
        line, column, start = line + data.count(b"\n", start, last + 1), 0, last + 1
    return line, column + (end - start if ascii else _chars(data[start:end]))


@dataclass
class Text:
    """A piece of the file's text and where it starts, to place findings inside it."""

    raw: bytes
    line: int  # 1-based line of raw[0]
    column: int  # 0-based column, in characters, of raw[0]

    def positions(self, prefix: str) -> Positions:
        """JSON Pointer → (line, column) in the file of every value in this piece, with pointers under ``prefix``."""
        inner = json_positions(self.raw.decode("utf-8"), self.line - 1, self.column)
        return {prefix + pointer: where for pointer, where in inner.items()}


@dataclass
class Opened:
    """The root object's opening brace."""

    line: int
    column: int  # 1-based


@dataclass
class Array:
    """The streamed array's opening bracket: its items follow as ``Rows``."""

    key: str
    line: int
    column: int  # 1-based


@dataclass
class Member:
    """A member of the root object, other than the streamed array."""

    key: str
    value: Any
    text: Text


@dataclass
class Rows:
    """Consecutive items of the streamed array ``array``: ``items[k]`` is item ``start + k``. ``text`` holds them,
    separated by commas; where each one starts and ends in it is worked out only when asked (for findings)."""

    array: str
    start: int
    items: list[Any]
    text: Text
    bounds: tuple[list[int], list[int]] | None = None

    def spans(self) -> tuple[list[int], list[int]]:
        """Where each item starts in ``text.raw``, and where its text ends (before the comma that follows)."""
        if self.bounds is None:
            self.bounds = _split(self.text.raw)
        return self.bounds

    def positions(self, indices: set[int]) -> Positions:
        """Positions of every value in the items with these indices (the document's numbering)."""
        out: Positions = {}
        for index, item in self.texts(indices).items():
            out.update(item.positions(f"/{escape_token(self.array)}/{index}"))
        return out

    def texts(self, indices: set[int]) -> dict[int, Text]:
        """The text of each item with these indices (the document's numbering), and where it starts."""
        out: dict[int, Text] = {}
        offsets, ends = self.spans()
        line, column, done = self.text.line, self.text.column, 0
        for k in sorted(i - self.start for i in indices):
            line, column = _advance(self.text.raw[done : offsets[k]], line, column)
            done = offsets[k]
            out[self.start + k] = Text(self.text.raw[offsets[k] : ends[k]], line, column)
        return out


def _string_end(buf: bytes, at: int, stop: int) -> int:
    """The index after the string whose opening quote is ``buf[at]``, or -1 if it does not close before ``stop``."""
    close = at + 1
    while True:
        close = buf.find(b'"', close, stop)  # memchr: a long string is crossed in C
        if close < 0:
            return -1
        before = close - 1
        while buf[before] == 0x5C:  # a quote after an odd number of backslashes is escaped
            before -= 1
        if (close - 1 - before) % 2 == 0:
            return close + 1
        close += 1


def _value_before(view: memoryview, pos: int, size: int) -> tuple[Any, int] | None:
    """The value and ``pos + size`` when the ``size`` bytes from ``pos`` are one whole JSON value (orjson stopped
    there, after the value); else ``None``. Decided by parsing, never by orjson's message."""
    if size <= 0:
        return None
    try:
        return orjson.loads(view[pos : pos + size]), pos + size
    except orjson.JSONDecodeError:
        return None


def _split(raw: bytes) -> tuple[list[int], list[int]]:
    """Where each value of a comma-separated run of JSON values starts and ends (the run is known to be valid:
    orjson read it)."""
    offsets: list[int] = []
    ends: list[int] = []
    view, window = memoryview(raw), _FIRST_WINDOW
    pos = _SPACE.match(raw, 0).end()  # type: ignore[union-attr]
    while pos < len(raw):
        end = min(len(raw), pos + window)
        while end < len(raw) and raw[end] & 0xC0 == 0x80:
            end -= 1
        try:
            orjson.loads(view[pos:end])
        except orjson.JSONDecodeError as exc:
            found = _value_before(view, pos, _byte_offset(raw, pos, exc.pos))
            if found is None:
                if end == len(raw):  # pragma: no cover - the run was read by orjson already
                    raise
                window *= 2
                continue
            stop = found[1]
        else:
            if end < len(raw):
                window *= 2
                continue
            stop = end
        offsets.append(pos)
        ends.append(stop)
        pos = _SPACE.match(raw, stop + 1).end()  # type: ignore[union-attr]
    return offsets, ends


# a ReadProblem among the pieces: the document cannot be read; nothing follows
Piece = Opened | Array | Member | Rows | ReadProblem


class _Reader:
    """A window on the file: ``buf`` holds the bytes from file offset ``offset``; reading is at ``buf[pos]``."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.buf = b""
        self.pos = 0
        self.offset = 0
        self.eof = False
        self.keep = 0  # buf[keep:] must survive a refill (the batch being gathered)
        self.mark, self.line, self.column = 0, 1, 0  # a position in buf whose line and 0-based column are known
        self.window = _FIRST_WINDOW
        self.limit = max_input_bytes()
        self.ascii = True  # whether every byte of ``buf`` is ASCII (as most JSON is), to count columns by length

    def fill(self) -> bool:
        """Read another chunk, dropping the bytes no longer needed; False at the end of the file. Raises
        ``_TooLarge`` when what must be kept (one value) has passed the input size limit."""
        if self.eof:
            return False
        drop = min(self.keep, self.pos, self.mark)
        if len(self.buf) - drop > 2 * self.limit + CHUNK_BYTES:  # a safety net: values are measured in ``value``
            raise _TooLarge
        chunk = self.handle.read(max(CHUNK_BYTES, len(self.buf) - drop))
        if not chunk:
            self.eof = True
            return False
        kept = self.buf[drop:]
        self.ascii = (self.ascii or kept.isascii()) and chunk.isascii()
        self.buf = kept + chunk
        self.offset += drop
        self.pos -= drop
        self.keep -= drop
        self.mark -= drop
        return True

    def where(self, index: int) -> tuple[int, int]:
        """Line and 0-based column of ``buf[index]``; indices asked about never go backwards."""
        self.line, self.column = _advance(self.buf, self.line, self.column, self.mark, index, self.ascii)
        self.mark = index
        return self.line, self.column

    def skip_space(self) -> int:
        """Move past whitespace; the byte there, or -1 at the end of the file."""
        while True:
            self.pos = _SPACE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return -1

    # --- problems -----------------------------------------------------------------------------------------

    def problem(self, code: str, message: str, line: int | None, column: int | None) -> ReadProblem:
        return ReadProblem(code, message=message, where=None if line is None or column is None else (line, column))

    def bad_byte(self) -> ReadProblem | None:
        """The first byte from ``mark`` to the end of the file that is not UTF-8 (the bytes before ``mark`` were
        read as text already). Consumes the rest of the file, up to the input size limit (past it, reading the
        file whole would have refused it as too large anyway): called once, when reading has stopped."""
        start, line, column = self.mark, self.line, self.column
        while True:
            if self.offset + start > self.limit:
                return None
            end = len(self.buf)
            if not self.eof:  # stop before the last character, which the next chunk may complete
                end -= 1
                while end > start and self.buf[end] & 0xC0 == 0x80:
                    end -= 1
            try:
                self.buf[start:end].decode("utf-8")
            except UnicodeDecodeError as exc:
                line, column = _advance(self.buf[start : start + exc.start], line, column)
                byte = self.offset + start + exc.start
                return ReadProblem(codes.FILE_UNREADABLE, "encoding", where=(line, column + 1), count=byte)
            if self.eof:
                return None
            line, column = _advance(self.buf[start:end], line, column)
            self.keep = self.pos = self.mark = end
            self.line, self.column = line, column
            self.fill()
            start = self.pos

    def syntax(self, index: int, context: str) -> ReadProblem:
        """The strict reader's finding for text that goes wrong at ``buf[index]``, found by letting it read the same
        context (``context`` stands for the document up to there) followed by the next bytes."""
        ahead = index - self.pos
        while len(self.buf) < self.pos + ahead + 64 and self.fill():  # the fragment's characters whole
            pass
        index = self.pos + ahead
        line, column = self.where(index)
        end = min(index + 64, len(self.buf))
        while end < len(self.buf) and self.buf[end] & 0xC0 == 0x80:  # never cut a character in two
            end -= 1
        fragment = self.buf[index:end].decode("utf-8", "replace")
        try:
            strict_read(context + fragment)
        except ReadProblem as problem:
            return self.problem(problem.code, problem.message, line, column + (problem.index or 0) - len(context) + 1)
        raise AssertionError(f"{context + fragment!r} parsed")  # pragma: no cover - only called on bad text

    # --- values -------------------------------------------------------------------------------------------

    def value(self, max_depth: int) -> tuple[Any, int] | ReadProblem:
        """The value at ``pos`` (not whitespace) as orjson reads it, and the index after it; ``pos`` stays."""
        window = self.window
        scanned = False
        while True:
            while self.pos + window >= len(self.buf) and self.fill():  # a byte past the window, to see where characters start
                pass
            end = min(self.pos + window, len(self.buf))
            while end < len(self.buf) and self.buf[end] & 0xC0 == 0x80:  # never cut a character in two
                end -= 1
            final = self.eof and end == len(self.buf)
            view = memoryview(self.buf)
            try:
                value = orjson.loads(view[self.pos : end])
            except orjson.JSONDecodeError as exc:
                size = _byte_offset(self.buf, self.pos, exc.pos)
                if self.pos + size < end:  # orjson stopped inside the window: after the value, or at a problem
                    found = _value_before(view, self.pos, size)
                    if found is not None:
                        if size > self.limit:  # a whole value, but larger than reading the file whole allows
                            raise _TooLarge from None
                        # the next value is likely alike: start from a window that holds four of this one
                        self.window = min(_MAX_FIRST_WINDOW, max(_FIRST_WINDOW, 4 * (found[1] - self.pos)))
                        return found
                elif not final:  # orjson ran out of text: the window ends inside the value
                    if end - self.pos > self.limit:  # the value goes on past the limit
                        raise _TooLarge from None
                    window = self.grown(window, scanned)
                    scanned = scanned or window > _SCAN_FROM
                    continue
                return self.exact(end, final, max_depth)
            if final:
                if end - self.pos > self.limit:
                    raise _TooLarge
                return value, end
            if end - self.pos > self.limit:
                raise _TooLarge
            window *= 2  # the value fills the window exactly: a number may go on past it

    def grown(self, window: int, scanned: bool) -> int:
        """The next window for a value that goes on past ``window`` bytes: twice as large, or, the first time that
        passes ``_SCAN_FROM``, large enough to hold the whole value as its quotes and brackets place it
        (``scan_end``): a value that goes on past the limit is refused then, as reading the file whole refuses it,
        not after rounds of parsing ever longer windows of it."""
        window *= 2
        if window > _SCAN_FROM and not scanned:
            stop = self.scan_end()
            if stop:
                window = max(window, stop - self.pos + _CUT_MARGIN)
        return window

    def scan_end(self) -> int:
        """Where the string, array or object at ``pos`` ends (the index after it), from its quotes and brackets
        alone (the parsers check the rest), or 0 if it is none of those or does not end before the end of the
        file. Raises ``_TooLarge`` if it goes on past the input size limit; reads at most the limit ahead."""
        if self.buf[self.pos] not in b'"[{':
            return 0
        while self.pos + self.limit + 1 > len(self.buf) and self.fill():
            pass
        buf, stop, depth, at = self.buf, min(len(self.buf), self.pos + self.limit + 1), 0, self.pos
        while True:
            match = _STRUCTURE.search(buf, at, stop)  # the next quote or bracket, found in C
            if match is None:
                break
            at = match.start()
            if buf[at] == ord('"'):
                at = _string_end(buf, at, stop)
                if at < 0:
                    break
                if depth == 0:
                    return at
                continue
            depth += 1 if buf[at] in b"[{" else -1
            at += 1
            if depth <= 0:
                return at
        if stop - self.pos > self.limit:
            raise _TooLarge
        return 0

    def exact(self, end: int, final: bool, max_depth: int) -> tuple[Any, int] | ReadProblem:
        """The strict reader's reading of the value at ``pos`` (orjson refused it: a problem, or something only
        it refuses, such as a lone surrogate)."""
        scanned = False
        while True:
            try:
                text = self.buf[self.pos : end].decode("utf-8")
            except UnicodeDecodeError:  # ``read`` finds the byte, from here on, and reports it
                self.where(self.pos)
                return self.problem(codes.FILE_UNREADABLE, render(codes.FILE_UNREADABLE, "not_text"), None, None)
            try:
                value, stop = exact_value(text, max_depth=max_depth, partial=True)
                if final or stop < len(text):  # a value that fills the window exactly may be a number cut short
                    size = len(text[:stop].encode("utf-8"))
                    if size > self.limit:
                        raise _TooLarge
                    return value, self.pos + size
            except ReadProblem as exc:
                # the text ended where more was expected, or went wrong so close to the window's end that a longer
                # window may read it (a literal or a number cut in two)
                cut = exc.variant == "end" or (exc.index is not None and exc.index >= len(text) - _CUT_MARGIN)
                if final or not cut:
                    line, column = self.where(self.pos)
                    if exc.where is None:
                        return self.problem(exc.code, exc.message, None, None)
                    at_line, at_column = exc.where
                    return self.problem(exc.code, exc.message, line + at_line - 1, at_column + (column if at_line == 1 else 0))
            if end - self.pos > self.limit:
                raise _TooLarge
            size = self.grown(end - self.pos, scanned)  # the window ended inside the value: read further
            scanned = scanned or size > _SCAN_FROM
            while self.pos + size >= len(self.buf) and self.fill():
                pass
            end = min(self.pos + size, len(self.buf))
            while end < len(self.buf) and self.buf[end] & 0xC0 == 0x80:
                end -= 1
            final = self.eof and end == len(self.buf)

    def checked(self, raw: bytes, value: Any, line: int, column: int, max_depth: int) -> Any:
        """orjson's value when its reading is certainly exact (as for a whole document), else the exact one."""
        if certainly_exact(raw, value):
            return value
        text = raw.decode("utf-8")
        try:
            return exact_value(text, max_depth=max_depth)[0]
        except ReadProblem as exc:
            at = exc.where
            where = (line + at[0] - 1, at[1] + (column if at[0] == 1 else 0)) if at else (None, None)
            return self.problem(exc.code, exc.message, *where)


def read(handle: IO[bytes], array: str = "results") -> Iterator[Piece]:
    """The pieces of a JSON document: ``Opened``, then ``Member``s, and the ``Array`` named ``array`` followed by
    its ``Rows``, in document order; or a ``ReadProblem`` and nothing after it. Raises :class:`NotStreamable`, before
    yielding anything, if the root is not an object, or later if it has more than ``MAX_MEMBERS`` members."""
    reader = _Reader(handle)
    return _read(reader, _pieces(reader, array))


def _read(reader: _Reader, pieces: Iterator[Piece]) -> Iterator[Piece]:
    try:
        for piece in pieces:
            if isinstance(piece, ReadProblem):
                # reading the file whole decodes it first: text that is not UTF-8 anywhere is the first problem
                yield reader.bad_byte() or piece
                return
            yield piece
    except _TooLarge:
        yield ReadProblem(codes.FILE_UNREADABLE, "value_too_large", detail=too_large_message(reader.limit))
    except OSError as exc:  # the disk or the network file system failed under the read
        yield ReadProblem(codes.FILE_UNREADABLE, "os_error", detail=exc.strerror or exc)


def _pieces(reader: _Reader, array: str) -> Iterator[Piece]:
    first = reader.skip_space()
    if reader.buf.startswith(b"\xef\xbb\xbf"):
        yield reader.problem(codes.INVALID_JSON, BOM_MESSAGE, 1, 1)
        return
    if first != ord("{"):
        raise NotStreamable("the root is not an object")
    line, column = reader.where(reader.pos)
    yield Opened(line, column + 1)
    reader.pos += 1
    yield from _root(reader, array)


def _root(reader: _Reader, array: str) -> Iterator[Piece]:
    """The root object's members from ``pos`` (just after its ``{``)."""
    seen: set[str] = set()
    repeated: tuple[str, int, int] | None = None  # reported when the root closes, as a parser would
    context = "{"  # stands for the text before
    while True:
        byte = reader.skip_space()
        if byte == ord("}") and context == "{":
            break
        if byte != ord('"'):
            yield reader.syntax(reader.pos, context)
            return
        line, column = reader.where(reader.pos)
        key = reader.value(MAX_DEPTH)
        if isinstance(key, ReadProblem):
            yield key
            return
        name, reader.pos = key
        if name in seen and repeated is None:
            repeated = (name, line, column + 1)
        seen.add(name)
        if len(seen) > MAX_MEMBERS:
            raise NotStreamable("too many members to be a result set read in pieces")
        if reader.skip_space() != ord(":"):
            yield reader.syntax(reader.pos, '{"k"')
            return
        reader.pos += 1
        byte = reader.skip_space()
        if byte == ord("[") and name == array:
            ok = yield from _rows(reader, array)
            if not ok:
                return
        else:
            member = _member(reader, name)
            yield member
            if isinstance(member, ReadProblem):
                return
        byte = reader.skip_space()
        if byte == ord("}"):
            break
        if byte != ord(","):
            yield reader.syntax(reader.pos, '{"k":0')
            return
        reader.pos += 1
        context = '{"k":0,'
    if repeated is not None:  # a parser finds it as the root closes, before it looks for more text
        key_name, key_line, key_column = repeated
        message = render(codes.DUPLICATE_KEY, name=key_name)
        yield reader.problem(codes.DUPLICATE_KEY, message, key_line, key_column)
        return
    reader.pos += 1
    if reader.skip_space() >= 0:
        yield reader.syntax(reader.pos, "{}")


def _member(reader: _Reader, name: str) -> Member | ReadProblem:
    if reader.skip_space() < 0:
        return reader.syntax(reader.pos, '{"k":')
    begin = reader.keep = reader.pos
    line, column = reader.where(begin)
    found = reader.value(MAX_DEPTH - 1)
    if isinstance(found, ReadProblem):
        return found
    value, end = found
    raw = reader.buf[reader.keep : end]
    value = reader.checked(raw, value, line, column, MAX_DEPTH - 1)
    if isinstance(value, ReadProblem):
        return value
    reader.pos = end
    return Member(name, value, Text(raw, line, column))


def _rows(reader: _Reader, array: str) -> Generator[Array | Rows | ReadProblem, None, bool]:
    """The items of the array at ``pos`` (its ``[``), in batches; returns whether the array was read.

    Rows usually start alike (``{"test_case_id":``): once the first row shows how, a batch is found in one step —
    the last such start within ``BATCH_BYTES``, preceded by a comma, such that orjson reads everything before
    that comma as a list of values. That can only succeed at a boundary between rows: cut anywhere inside a row,
    the text would leave a container (or a string) open. When no such start is found, rows are read one by one.
    """
    line, column = reader.where(reader.pos)
    yield Array(array, line, column + 1)
    reader.pos += 1
    count, context = 0, "["
    start_of_row: bytes | None = None
    while True:
        byte = reader.skip_space()
        if byte == ord("]") and context == "[":
            break
        if start_of_row is not None:
            leap = _leap(reader, start_of_row)
            if leap is not None:
                items, raw, comma = leap
                line, column = reader.where(reader.pos)
                rows = _checked_rows(reader, array, count, items, raw, line, column)
                yield rows
                if isinstance(rows, ReadProblem):
                    return False
                count += len(items)
                reader.pos = reader.keep = comma + 1
                context = "[0,"
                continue
        # the first row alone (it shows how rows start), later ones in batches
        batch = yield from _rows_one_by_one(reader, array, count, context, 1 if count == 0 else BATCH_ITEMS)
        if batch is None:
            return False
        if start_of_row is None:
            start_of_row = _start_of_row(batch.first_row)
        count += batch.count
        context = "[0,"
        if batch.closed:
            break
    reader.pos += 1
    return True


def _start_of_row(raw: bytes) -> bytes | None:
    """The text a row starts with, up to its first key's colon (``{"test_case_id":``), if it is an object."""
    match = _ROW_START.match(raw)
    return match.group() if match else None


_ROW_START = re.compile(rb'\{[ \t\r\n]*"[^"\\]{1,64}"[ \t\r\n]*:')


def _leap(reader: _Reader, start_of_row: bytes) -> tuple[list[Any], bytes, int] | None:
    """A batch of whole rows from ``pos``, found in one step: the rows, their text and where it ends (the comma
    after the last); ``None`` if the rows do not allow it here."""
    while len(reader.buf) < reader.pos + BATCH_BYTES and reader.fill():
        pass
    search_end = min(len(reader.buf), reader.pos + BATCH_BYTES)
    for _ in range(3):  # a row start inside a string, or inside a row, is refused by orjson: try an earlier one
        found = reader.buf.rfind(start_of_row, reader.pos + 1, search_end)
        if found < 0:
            return None
        search_end = found + len(start_of_row) - 1
        comma = found - 1
        while reader.buf[comma] in b" \t\r\n":
            comma -= 1
        if reader.buf[comma] != ord(",") or comma <= reader.pos:  # no rows before it: ",," is for the slow path to report
            continue
        if comma - reader.pos > reader.limit:  # rows may be over the limit (a small one): read them one by one, measured
            return None
        raw = reader.buf[reader.pos : comma]
        try:
            items = orjson.loads(b"".join((b"[", raw, b"]")))  # one copy (``+`` makes one per operand)
        except orjson.JSONDecodeError:
            continue
        return items, raw, comma
    return None


@dataclass
class _Batch:
    count: int
    first_row: bytes  # the text of its first row's start
    closed: bool  # the array ended with this batch


def _rows_one_by_one(
    reader: _Reader, array: str, start: int, context: str, limit: int
) -> Generator[Rows | ReadProblem, None, _Batch | None]:
    """Up to ``limit`` rows read one at a time, yielded as one batch; ``None`` if the text is broken."""
    reader.keep = reader.pos
    line, column = reader.where(reader.pos)
    items: list[Any] = []
    offsets: list[int] = []
    ends: list[int] = []
    closed = False
    while True:
        byte = reader.skip_space()
        found = reader.value(MAX_DEPTH - 2) if byte >= 0 else reader.syntax(reader.pos, context)
        if isinstance(found, ReadProblem):
            earlier = _flush(reader, array, start, items, offsets, ends, line, column) if items else None
            yield earlier if isinstance(earlier, ReadProblem) else found  # a repeated key in an earlier row comes first
            return None
        value, end = found
        items.append(value)
        offsets.append(reader.pos - reader.keep)
        ends.append(end - reader.keep)
        reader.pos = end
        byte = reader.skip_space()
        if byte not in (ord(","), ord("]")):
            earlier = _flush(reader, array, start, items, offsets, ends, line, column)
            yield earlier if isinstance(earlier, ReadProblem) else reader.syntax(reader.pos, "[0")
            return None
        closed = byte == ord("]")
        if not closed:
            context = "[0,"
        if closed or len(items) >= limit or ends[-1] >= BATCH_BYTES:
            break
        reader.pos += 1
    rows = _flush(reader, array, start, items, offsets, ends, line, column)
    yield rows
    if isinstance(rows, ReadProblem):
        return None
    if not closed:
        reader.pos += 1
    reader.keep = reader.pos
    return _Batch(len(items), rows.text.raw[:512], closed)


def _flush(
    reader: _Reader, array: str, start: int, items: list[Any], offsets: list[int], ends: list[int], line: int, column: int
) -> Rows | ReadProblem:
    raw = reader.buf[reader.keep : reader.keep + ends[-1]]
    return _checked_rows(reader, array, start, items, raw, line, column, (offsets, ends))


def _checked_rows(
    reader: _Reader,
    array: str,
    start: int,
    items: list[Any],
    raw: bytes,
    line: int,
    column: int,
    bounds: tuple[list[int], list[int]] | None = None,
) -> Rows | ReadProblem:
    """Rows read by orjson, checked as strictly as a whole document is read (else read again, exactly)."""
    rows = Rows(array, start, items, Text(raw, line, column), bounds)
    if certainly_exact(raw, items, listed=True):
        return rows
    exact = []
    done = 0
    for begin, end, item in zip(*rows.spans(), items):
        line, column = _advance(raw[done:begin], line, column)
        done = begin
        value = reader.checked(raw[begin:end], item, line, column, MAX_DEPTH - 2)
        if isinstance(value, ReadProblem):
            return value
        exact.append(value)
    rows.items = exact  # the exact reading of ``text``, which orjson's reading was not certain to be
    return rows
