"""Showing text from documents and file names safely: what is printed is one line that cannot act on a terminal
or forge a line of its own (a GitHub workflow command, say)."""

from __future__ import annotations

import math
import re
from typing import Any

from evalschema_models import constants


def display_path(path: str) -> str:
    """A file name as a report shows it: bytes that are not UTF-8 (kept by Python as lone surrogates) become U+FFFD,
    as the TypeScript CLI shows them."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace") if not path.isascii() else path


# Characters that would move the cursor, recolour or retitle a terminal, reorder text, or start a new line (and
# so forge a line of their own, such as a GitHub workflow command): shown escaped in text and GitHub output.
# (Compiled on first use, the re module keeping it: JSON output never needs it; start-up: ``evalschema.__main__``.)
_UNSAFE = "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
_NAMED = constants.DISPLAY_ESCAPES


def visible(text: str) -> str:
    """``text`` with every control, line-separating or bidirectional-override character escaped (``\\n``,
    ``\\x1b``, ``\\u202e``): printed, it is one line that cannot act on the terminal."""

    def escape(match: re.Match[str]) -> str:
        ch = match.group()
        return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")

    return re.sub(_UNSAFE, escape, text)


def terminal_line(text: str) -> str:
    """One printed line that quotes input (a loss report entry, a compare line, a grader's row): ``visible(text)``,
    and, should it start with ``::`` (after blanks, which GitHub's runner trims before it looks), its first colon
    escaped (``\\x3a``): a GitHub workflow command (``::error file=…``) comes only from the ``github`` renderer."""
    shown = visible(text)
    rest = shown.lstrip()
    if rest.startswith("::"):
        return shown[: len(shown) - len(rest)] + "\\x3a" + rest[1:]
    return shown


def finite(value: Any) -> Any:
    """``value`` with every number JSON cannot hold (an overflowed sum: infinity, NaN) as ``None`` (``null``), as
    ``JSON.stringify`` writes it."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value
