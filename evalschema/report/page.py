"""The HTML reports' one page: the shared template (``templates/report.html`` in a checkout, packaged with both SDKs
as the schemas are), filled with a report's data as JSON. The page draws itself from that data with its inline
script, so the Python and the TypeScript SDK write byte-equal pages when their data is equal — nothing that formats,
escapes or lays out a value exists twice. ``js/src/report/page.ts`` mirrors this module line for line.

The data is written as ``JSON.stringify`` writes it (numbers as ECMAScript prints them, object keys in UTF-16 code
unit order, no spaces), with every character outside printable ASCII and each of ``<``, ``>`` and ``&`` as a
``\\u`` escape: no ``</script>``, ``<!--`` or line separator (U+2028) can end or break the script element it sits in.
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import UTC, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

from evalschema_models.constants import REPORT_DATE_VARIABLE

from ..schemas.data import package_data

PLACEHOLDER = "@@EVALSCHEMA_DATA@@"
DATE_VARIABLE = REPORT_DATE_VARIABLE  # a reproducible page: the time it says it was made
_CHECKOUT = Path(__file__).resolve().parents[2]
_EPOCH = re.compile(r"[0-9]{1,12}")
_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


@cache
def template() -> str:
    """The page: package data of an installed distribution, the repository's ``templates/`` otherwise."""
    bundled = package_data("_templates", "report.html")
    source = bundled if bundled.is_file() else _CHECKOUT / "templates" / "report.html"
    text = source.read_text(encoding="utf-8")
    if text.count(PLACEHOLDER) != 1:
        raise RuntimeError(f"{source}: the report template must hold its data placeholder exactly once")
    return text


def generated_at() -> str:
    """Now, or the time the REPORT_DATE_VARIABLE variable gives (seconds since 1970, UTC), as ``YYYY-MM-DDTHH:MM:SSZ``."""
    given = os.environ.get(DATE_VARIABLE, "")
    moment = datetime.fromtimestamp(int(given), UTC) if _EPOCH.fullmatch(given) else datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def render_page(data: dict[str, Any]) -> str:
    """The template with ``data`` in its placeholder."""
    before, after = template().split(PLACEHOLDER)
    return before + page_json(data) + after


def page_json(value: Any) -> str:
    """``value`` as the page embeds it (see the module's docstring)."""
    out: list[str] = []
    _write(value, out)
    return re.sub("[<>&]", lambda m: _SAFE[m.group()], "".join(out))


def _write(value: Any, out: list[str]) -> None:
    if value is None or value is True or value is False:
        out.append("null" if value is None else "true" if value else "false")
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=True))
    elif isinstance(value, (int, float)):
        out.append(js_number(value))
    elif isinstance(value, dict):
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16)):
            out.append("," if i else "")
            out.append(json.dumps(str(key), ensure_ascii=True) + ":")
            _write(value[key], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            out.append("," if i else "")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"not JSON data: {type(value).__name__}")


def _utf16(key: Any) -> bytes:
    """JavaScript's default sort order: UTF-16 code units (an astral character sorts below U+E000)."""
    return str(key).encode("utf-16-be", "surrogatepass")


def js_number(value: float) -> str:
    """A number as ``JSON.stringify`` writes it: integers exact up to 2^53 (a larger one as the double nearest it),
    the shortest digits that read back (Python's ``repr`` finds the same), with ECMAScript's choice of point or
    exponent (Number::toString); infinities and NaN as ``null``."""
    if isinstance(value, int) and abs(value) <= 2**53:
        return str(value)
    try:
        number = float(value)
    except OverflowError:
        return "null"
    if not math.isfinite(number):
        return "null"
    if number == 0:
        return "0"
    _, digits, exponent = Decimal(repr(abs(number))).normalize().as_tuple()
    assert isinstance(exponent, int)
    s = "".join(map(str, digits))
    k, n = len(s), exponent + len(s)  # the value is 0.s × 10^n
    minus = "-" if number < 0 else ""
    if k <= n <= 21:
        return minus + s + "0" * (n - k)
    if 0 < n <= 21:
        return minus + s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return minus + "0." + "0" * -n + s
    e = n - 1
    return minus + (s if k == 1 else s[0] + "." + s[1:]) + "e" + ("+" if e >= 0 else "-") + str(abs(e))
