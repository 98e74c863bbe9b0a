"""Where each value of a JSON or YAML text starts: JSON Pointer → (line, column), both 1-based.

Only computed for documents that have findings, so valid documents never pay for it.
"""

from __future__ import annotations

import re
from typing import Any

from evalschema_models import constants

from ..core.findings import escape_token
from . import strict_json
from .strict_json import beyond_double as beyond_double  # re-exported: it lived here

Positions = dict[str, tuple[int, int]]

# possessive and "unrolled": the re module keeps a backtracking state for every repetition it may return to, so
# '"(?:[^"\\]|\\.)*"' took gigabytes for a string of 20 MB; this form keeps none, whatever the string holds
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_SPACE = re.compile(r"[ \t\r\n]*")


class _Scanner:
    """A small iterative JSON scanner that records the start of every value (no recursion: deep input is fine)."""

    def __init__(self, text: str, first_column: int = 0) -> None:
        self.text = text
        self.first_column = first_column
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def where(self, index: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        if hi == 0 or index < self.line_starts[1]:  # the first line, which may start mid-line in a file
            return 1, index + 1 + self.first_column
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= index:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, index - self.line_starts[lo] + 1

    def scan(self, base_line: int = 0) -> Positions:
        text, out = self.text, {}
        # stack frames: [container type, pointer, next index or pending key]
        stack: list[list[Any]] = []
        i = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
        pointer = ""
        expecting_value = True
        while i < len(text):
            if expecting_value:
                line, column = self.where(i)
                out[pointer] = (line + base_line, column)
                char = text[i]
                if char == "{":
                    stack.append(["o", pointer, None])
                    i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
                    if i < len(text) and text[i] == "}":
                        stack.pop()
                        i += 1
                        expecting_value = False
                        continue
                    key = _STRING.match(text, i)
                    if key is None:
                        return out
                    stack[-1][2] = key.group()
                    i = _SPACE.match(text, key.end()).end()  # type: ignore[union-attr]
                    i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]  # the colon
                    pointer = stack[-1][1] + "/" + escape_token(_unquote(key.group()))
                    continue
                if char == "[":
                    stack.append(["a", pointer, 0])
                    i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
                    if i < len(text) and text[i] == "]":
                        stack.pop()
                        i += 1
                        expecting_value = False
                        continue
                    pointer = stack[-1][1] + "/0"
                    continue
                token = _STRING.match(text, i) if char == '"' else _SCALAR.match(text, i)
                if token is None:
                    return out
                i = token.end()
                expecting_value = False
                continue
            i = _SPACE.match(text, i).end()  # type: ignore[union-attr]
            if not stack or i >= len(text):
                return out
            frame, char = stack[-1], text[i]
            if char == ",":
                i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
                if frame[0] == "a":
                    frame[2] += 1
                    pointer = f"{frame[1]}/{frame[2]}"
                else:
                    key = _STRING.match(text, i)
                    if key is None:
                        return out
                    i = _SPACE.match(text, key.end()).end()  # type: ignore[union-attr]
                    i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
                    pointer = frame[1] + "/" + escape_token(_unquote(key.group()))
                expecting_value = True
            elif char in "]}":
                stack.pop()
                i += 1
            else:
                return out
        return out


def _unquote(token: str) -> str:
    value = strict_json.read(token)[0]
    return value if isinstance(value, str) else token


def json_positions(text: str, base_line: int = 0, first_column: int = 0) -> Positions:
    """Positions of every value in a JSON text (stops quietly at the first syntax error). The text may be a piece of
    a file: it starts on line ``base_line + 1``, at column ``first_column + 1``."""
    return _Scanner(text, first_column).scan(base_line)


def yaml_positions(node: Any) -> Positions:
    """Positions of every value in a composed PyYAML node tree."""
    import yaml

    out: Positions = {}
    stack: list[tuple[Any, str]] = [(node, "")]
    budget = 1_000_000  # the loader already refused documents whose aliases expand beyond this
    while stack and budget:
        budget -= 1
        current, pointer = stack.pop()
        out.setdefault(pointer, (current.start_mark.line + 1, current.start_mark.column + 1))
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                stack.append((value, f"{pointer}/{escape_token(str(key.value))}"))
        elif isinstance(current, yaml.SequenceNode):
            for index, value in enumerate(current.value):
                stack.append((value, f"{pointer}/{index}"))
    return out


def locate(positions: Positions, pointer: str) -> tuple[int, int] | None:
    """The position of ``pointer``, or of its nearest existing ancestor (a missing property's parent)."""
    while True:
        if pointer in positions:
            return positions[pointer]
        if not pointer:
            return None
        pointer = pointer[: pointer.rfind("/")]


MAX_DEPTH = constants.MAX_DEPTH  # containers nested deeper than this are refused, by every SDK
