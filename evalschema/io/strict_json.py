"""The strict JSON reader: one grammar (RFC 8259) and one error vocabulary (the ledger's INVALID_JSON variants).

orjson is the fast path (``loader``); this reader is what decides when it fails or cannot be trusted: it yields
the value, and for an unreadable text the ledger code, message variant, parameters and index of the offending
character (or of the end of the text) from its own state — never from a third-party parser's message.
``js/src/io/strictJson.ts`` is the same state machine, so both SDKs refuse the same texts with the same findings.

Strictness, in the order the reader meets it: a number out of a double's range or ``NaN``/``Infinity`` when it is
read, nesting past ``max_depth`` at the bracket that goes past it, a repeated key when its object closes
(reported at the first repeated key). Iterative: deep input cannot exhaust the stack.
"""

from __future__ import annotations

import re
from typing import Any

from evalschema_models import constants
from evalschema_models import rules as codes

from .problem import ReadProblem

MAX_DEPTH = constants.MAX_DEPTH
_DOUBLE_DIGITS = 309  # the largest finite double, 1.79e308, has 309 digits

_SPACE = re.compile(r"[ \t\r\n]*")
_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')  # a run of string characters that need no decoding
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_CONSTANTS = ("-Infinity", "Infinity", "NaN")

# what the reader expected where it stopped (the {detail} of the "end" and "unexpected" variants): spec/constants.json
VALUE = constants.JSON_EXPECTED["value"]
KEY = constants.JSON_EXPECTED["key"]
COLON = constants.JSON_EXPECTED["colon"]
OBJECT_NEXT = constants.JSON_EXPECTED["object_next"]
ARRAY_NEXT = constants.JSON_EXPECTED["array_next"]
STRING_END = constants.JSON_EXPECTED["string_end"]
ESCAPE_HEX = constants.JSON_EXPECTED["escape_hex"]


def beyond_double(token: str) -> bool:
    """Whether a JSON number is too large for an IEEE 754 double (RFC 8259, section 6): implementations would not
    agree on its value (JavaScript reads Infinity), so it is refused, integer or not."""
    if any(c in token for c in ".eE"):
        return float(token) in (float("inf"), float("-inf"))
    digits = token.lstrip("-")
    if len(digits) != _DOUBLE_DIGITS:
        return len(digits) > _DOUBLE_DIGITS
    try:
        float(int(token))
    except OverflowError:
        return True
    return False


def position(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column (in characters) of ``text[index]``."""
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


def _unexpected(text: str, i: int, expected: str) -> ReadProblem:
    if i >= len(text):
        return ReadProblem(codes.INVALID_JSON, "end", index=len(text), detail=expected)
    return ReadProblem(codes.INVALID_JSON, "unexpected", index=i, value=text[i], detail=expected)


def _string(text: str, i: int) -> tuple[str, int]:
    """The string whose opening quote is at ``i - 1``, and the index after its closing quote."""
    parts: list[str] = []
    n = len(text)
    while True:
        j = _PLAIN.match(text, i).end()  # type: ignore[union-attr]
        if j >= n:
            raise ReadProblem(codes.INVALID_JSON, "end", index=n, detail=STRING_END)
        c = text[j]
        if c == '"':
            if not parts:
                return text[i:j], j + 1
            parts.append(text[i:j])
            return "".join(parts), j + 1
        parts.append(text[i:j])
        if c != "\\":
            raise ReadProblem(codes.INVALID_JSON, "control", index=j, value=c)
        if j + 1 >= n:
            raise ReadProblem(codes.INVALID_JSON, "end", index=n, detail=STRING_END)
        e = text[j + 1]
        if e != "u":
            decoded = _ESCAPES.get(e)
            if decoded is None:
                raise ReadProblem(codes.INVALID_JSON, "escape", index=j + 1, value=e)
            parts.append(decoded)
            i = j + 2
            continue
        code = _hex(text, j + 2)
        i = j + 6
        if 0xD800 <= code <= 0xDBFF and text.startswith("\\u", i):
            low = _hex(text, i + 2)
            if 0xDC00 <= low <= 0xDFFF:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                i += 6
        parts.append(chr(code))


def _hex(text: str, at: int) -> int:
    match = _HEX4.match(text, at)
    if match is None:
        bad = at
        while bad < len(text) and bad < at + 4 and text[bad] in "0123456789abcdefABCDEF":
            bad += 1
        raise _unexpected(text, bad, ESCAPE_HEX)
    return int(match.group(), 16)


def _scalar(text: str, i: int) -> tuple[Any, int]:
    """The number, literal or string at ``i`` (not a container)."""
    c = text[i]
    if c == '"':
        return _string(text, i + 1)
    if c == "n" and text.startswith("null", i):
        return None, i + 4
    if c == "t" and text.startswith("true", i):
        return True, i + 4
    if c == "f" and text.startswith("false", i):
        return False, i + 5
    for name in _CONSTANTS:
        if text.startswith(name, i):
            raise ReadProblem(codes.INVALID_JSON, "constant", index=i, keyword=name)
    match = _NUMBER.match(text, i)
    if match is None:
        if c == "-":
            raise _unexpected(text, i + 1, VALUE)
        raise _unexpected(text, i, VALUE)
    token = match.group()
    if match.group(1) is None and match.group(2) is None:
        if len(token) >= _DOUBLE_DIGITS and beyond_double(token):
            raise ReadProblem(codes.INVALID_JSON, "range", index=i, detail=token[:40])
        return int(token), match.end()
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise ReadProblem(codes.INVALID_JSON, "range", index=i, detail=token[:40])
    return value, match.end()


def read(text: str, start: int = 0, *, max_depth: int = MAX_DEPTH, partial: bool = False) -> tuple[Any, int]:
    """The value of a JSON text and the index where it ends. With ``partial``, the value starts at ``start`` (no
    whitespace before it) and text may follow it; otherwise the whole text (from ``start``) must be one value,
    with whitespace around it only. Raises :class:`~evalschema.io.problem.ReadProblem`."""
    try:
        return _read(text, start, max_depth=max_depth, partial=partial)
    except ReadProblem as problem:
        problem.where = position(text, problem.index or 0)
        raise


def _read(text: str, start: int, *, max_depth: int, partial: bool) -> tuple[Any, int]:
    n = len(text)
    space = _SPACE.match
    if not partial:
        if text.startswith("\ufeff", start):
            raise ReadProblem(codes.INVALID_JSON, "bom", index=start)
        start = space(text, start).end()  # type: ignore[union-attr]
    # open containers: [value, pending key or None, first repeated key (name, index) or None, seen keys]
    stack: list[list[Any]] = []
    i = start
    while True:
        # a value starts at i
        if i >= n:
            raise _unexpected(text, i, VALUE)
        c = text[i]
        if c == "{" or c == "[":
            if len(stack) >= max_depth:
                raise ReadProblem(codes.INVALID_JSON, "depth", index=i, limit=MAX_DEPTH)
            i = space(text, i + 1).end()  # type: ignore[union-attr]
            if c == "[":
                if i < n and text[i] == "]":
                    value: Any = []
                    i += 1
                else:
                    stack.append([[], None, None, None])
                    continue
            elif i < n and text[i] == "}":
                value = {}
                i += 1
            else:
                frame: list[Any] = [{}, None, None, set()]
                stack.append(frame)
                i = _key(text, i, frame)
                continue
        else:
            value, i = _scalar(text, i)
        # a value ends at i: put it in its container, and close every container that ends here
        while True:
            if not stack:
                if not partial:
                    i = space(text, i).end()  # type: ignore[union-attr]
                    if i < n:
                        raise ReadProblem(codes.INVALID_JSON, "trailing", index=i, value=text[i])
                return value, i
            frame = stack[-1]
            container = frame[0]
            i = space(text, i).end()  # type: ignore[union-attr]
            if frame[3] is None:  # an array
                container.append(value)
                if i < n and text[i] == ",":
                    i = space(text, i + 1).end()  # type: ignore[union-attr]
                    break
                if i < n and text[i] == "]":
                    i += 1
                    value = stack.pop()[0]
                    continue
                raise _unexpected(text, i, ARRAY_NEXT)
            container[frame[1]] = value
            if i < n and text[i] == ",":
                i = _key(text, space(text, i + 1).end(), frame)  # type: ignore[union-attr]
                break
            if i < n and text[i] == "}":
                if frame[2] is not None:
                    name, at = frame[2]
                    raise ReadProblem(codes.DUPLICATE_KEY, "default", index=at, name=name)
                i += 1
                value = stack.pop()[0]
                continue
            raise _unexpected(text, i, OBJECT_NEXT)


def _key(text: str, i: int, frame: list[Any]) -> int:
    """Read the key at ``i`` and its colon into ``frame``; the index of the value after them."""
    if i >= len(text) or text[i] != '"':
        raise _unexpected(text, i, KEY)
    key, after = _string(text, i + 1)
    if key in frame[3]:
        if frame[2] is None:
            frame[2] = (key, i)
    else:
        frame[3].add(key)
    frame[1] = key
    after = _SPACE.match(text, after).end()  # type: ignore[union-attr]
    if after >= len(text) or text[after] != ":":
        raise _unexpected(text, after, COLON)
    return _SPACE.match(text, after + 1).end()  # type: ignore[union-attr]
