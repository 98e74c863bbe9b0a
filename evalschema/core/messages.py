"""Messages are data: every finding's text is its ledger rule's ``message`` template (spec/ledger.json), filled
from named parameters by :func:`render`. ``js/src/core/messages.ts`` is the same renderer, so the two SDKs say the
same words by construction.

The parameters and how each is written are listed in spec/ledger.schema.json (``$defs/template``):

- quoted values (``value``, ``name``, …) go through :func:`show`: JSON, shortened; a number as ECMAScript's
  ``Number::toString`` writes the nearest IEEE double (the shortest decimal that reads back as it); an object or
  array by its shape only, so no finding dumps a whole document or a long regular expression;
- lists (``allowed``, ``names``, ``declared``) are their items quoted and joined by ``", "``, ``none`` when empty;
- capped lists (``defined``: the ids a suite defines, beside an undefined one) the same, but only their first
  ``MAX_LISTED`` items, then ``and N more``;
- optional values (``base``, ``new``: the two sides of a comparison) are quoted, or ``absent`` when missing or null;
- text (``type``, ``first``, ``detail``, ``statement``, …) is inserted as it is;
- ``suggestion`` is derived: the close matches :func:`difflib.get_close_matches` finds for ``name`` (or ``value``)
  among ``allowed`` (or ``declared``, or ``defined``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from evalschema_models.constants import (
    MAX_LISTED,
    MAX_SUGGESTIONS,
    MESSAGE_PARAMETERS,
    MESSAGE_VALUE_CHARS,
    MESSAGE_WORDS,
    SUGGESTION_CUTOFF,
)
from evalschema_models.rules import RULES

QUOTED = frozenset(MESSAGE_PARAMETERS["quoted"])
LISTS = frozenset(MESSAGE_PARAMETERS["lists"])
CAPPED = frozenset(MESSAGE_PARAMETERS["capped"])
OPTIONAL = frozenset(MESSAGE_PARAMETERS["optional"])
TEXT = frozenset(MESSAGE_PARAMETERS["text"])
DERIVED = frozenset(MESSAGE_PARAMETERS["derived"])
PARAMETERS = QUOTED | LISTS | CAPPED | OPTIONAL | TEXT | DERIVED

# compiled on first use (the re module keeps them): a valid document renders no message (start-up: ``evalschema.__main__``)
_PLACEHOLDER = r"\{([a-z_]+)\}"
_LONE_SURROGATE = "[\ud800-\udfff]"


def number(value: int | float) -> str:
    """A number as ECMAScript's ``Number::toString`` writes the nearest double: the shortest decimal that reads
    back as it, positional from 1e-7 to 1e21 (exclusive), otherwise ``d.ddde±x``; zero (either sign) as ``0``."""
    try:
        as_float = float(value)
    except OverflowError:
        return "Infinity" if value > 0 else "-Infinity"
    if as_float != as_float:
        return "NaN"
    if as_float in (float("inf"), float("-inf")):
        return "Infinity" if as_float > 0 else "-Infinity"
    if as_float == 0:
        return "0"
    from decimal import Decimal  # only a message with a number needs it (start-up: ``evalschema.__main__``)

    sign, digit_tuple, exponent = Decimal(repr(as_float)).as_tuple()  # repr is the shortest round trip
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    assert isinstance(exponent, int)
    k = len(digits)
    n = exponent + len(digit_tuple)  # the decimal point sits after n digits
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return ("-" if sign else "") + text


def show(value: Any, limit: int = MESSAGE_VALUE_CHARS) -> str:
    """A value as a message quotes it: scalars as JSON (shortened), containers by their shape only."""
    if isinstance(value, dict):
        return "an object" if value else "an empty object"
    if isinstance(value, (list, tuple)):
        return f"an array of {len(value)} item(s)"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return number(value)
    # JSON quoting as JSON.stringify does it: control characters and lone surrogates escaped, the rest as it is
    text = re.sub(_LONE_SURROGATE, lambda m: f"\\u{ord(m.group()):04x}", json.dumps(str(value), ensure_ascii=False))
    return text if len(text) <= limit else text[: limit - 2] + '…"'


def ordered(names: Iterable[Any]) -> list[str]:
    """The distinct strings of ``names`` in the order of their UTF-16 code units (JavaScript's ``sort()``): the
    order both SDKs list a capped list's ids in."""
    return sorted({c for c in names if isinstance(c, str)}, key=lambda c: c.encode("utf-16-be", "surrogatepass"))


def _may_match(word: str, name: str) -> bool:
    """Whether ``name`` can be close enough to ``word``: difflib's own ``quick_ratio`` bound (the characters they
    share, counted with repeats, whatever their order) reaches ``SUGGESTION_CUTOFF``. A name below it is never a
    close match, so leaving it out changes no suggestion; when none is left, difflib is not even loaded."""
    counts: dict[str, int] = {}
    for ch in name:
        counts[ch] = counts.get(ch, 0) + 1
    shared = 0
    for ch in word:
        if counts.get(ch, 0) > 0:
            counts[ch] -= 1
            shared += 1
    return 2.0 * shared / (len(word) + len(name)) >= SUGGESTION_CUTOFF if word or name else True


def suggest(word: Any, candidates: Iterable[Any]) -> str:
    """``"; did you mean "x"?"`` for the close matches of ``word`` among the string ``candidates``, or ``""``."""
    if not isinstance(word, str):
        return ""
    names = [c for c in ordered(candidates) if c != word and _may_match(word, c)]
    if not names:
        return ""
    import difflib  # here, not at the top: only a name with a close candidate pays for it

    matches = difflib.get_close_matches(word, names, n=MAX_SUGGESTIONS, cutoff=SUGGESTION_CUTOFF)
    return "; did you mean " + " or ".join(show(m) for m in matches) + "?" if matches else ""


@cache
def template(code: str, variant: str = "default") -> str:
    """The ledger's message template of rule ``code`` (its ``variant``, when it has several)."""
    message = RULES[code]["message"]
    if isinstance(message, str):
        if variant != "default":
            raise KeyError(f"{code} has no message variant {variant!r}")
        return message
    return str(message[variant])


def _fill(name: str, params: Mapping[str, Any], code: str) -> str:
    if name == "statement" and name not in params:
        return str(RULES[code]["statement"])
    if name == "suggestion":
        word = params["name"] if "name" in params else params.get("value")
        return suggest(word, params.get("allowed", params.get("declared", params.get("defined", ()))))
    if name in OPTIONAL:
        return MESSAGE_WORDS["absent"] if params.get(name) is None else show(params[name])
    value = params[name]
    if name in LISTS:
        return ", ".join(show(item) for item in value) or MESSAGE_WORDS["empty_list"]
    if name in CAPPED:
        items = list(value)
        shown = ", ".join(show(item) for item in items[:MAX_LISTED]) or MESSAGE_WORDS["empty_list"]
        return shown + (f" and {len(items) - MAX_LISTED} {MESSAGE_WORDS['more']}" if len(items) > MAX_LISTED else "")
    if name in TEXT:
        return str(value)
    return show(value)


def render(code: str, variant: str = "default", **params: Any) -> str:
    """Rule ``code``'s message (``variant``) with its placeholders filled from ``params``."""
    return re.sub(_PLACEHOLDER, lambda m: _fill(m.group(1), params, code), template(code, variant))
