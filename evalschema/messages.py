"""Wording shared by every finding that quotes a value or suggests a fix (mirrored by ``js/src/messages.ts``).

Values are quoted as JSON and shortened, so that no finding dumps a whole document or a long regular expression;
suggestions are the close matches :func:`difflib.get_close_matches` finds among the allowed names or values.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from typing import Any

VALUE_LIMIT = 60  # characters of a quoted value shown in a message
SUGGESTIONS = 3  # close matches offered at most
CUTOFF = 0.75  # stricter than difflib's default 0.6: one or two close names, not every similar one


def show(value: Any, limit: int = VALUE_LIMIT) -> str:
    """A value as a message quotes it: scalars as JSON (shortened), containers by their shape only."""
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    if isinstance(value, list):
        return f"an array of {len(value)} item(s)"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, (int, float)):
        return repr(value)
    text = json.dumps(str(value), ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 2] + '…"'


def suggest(word: Any, candidates: Iterable[Any]) -> str:
    """``"; did you mean "x"?"`` for the close matches of ``word`` among the string ``candidates``, or ``""``."""
    if not isinstance(word, str):
        return ""
    names = sorted({c for c in candidates if isinstance(c, str) and c != word})
    matches = difflib.get_close_matches(word, names, n=SUGGESTIONS, cutoff=CUTOFF)
    return "; did you mean " + " or ".join(show(m) for m in matches) + "?" if matches else ""


def one_of(value: Any, allowed: Iterable[Any]) -> str:
    """The message of a value outside an enumeration: every allowed value, and the close ones."""
    options = list(allowed)
    return f"{show(value)} is not one of {', '.join(show(o) for o in options)}{suggest(value, options)}"


def unknown_property(name: str, declared: Iterable[str]) -> str:
    return f"unknown property {show(name)}{suggest(name, declared)}"
