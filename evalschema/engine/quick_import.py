"""Importing jsonschema-rs without ``email.utils``, for the command's start-up.

jsonschema-rs's module init records when it was built: it parses its build stamp (``Tue, 27 Oct 2026 10:17:51
+0000``) with ``email.utils.parsedate_to_datetime``, and importing ``email.utils`` pulls in ``socket``, ``random``,
``calendar``, ``locale``, ``base64`` and the ``email`` charset machinery — about a fifth of the start-up of validating
one small document, for one date nobody reads. :func:`import_jsonschema_rs` lends the import a module that has only
that function; the real ``email.utils`` is untouched and imports as usual afterwards.

Only the command calls it, first thing, while it runs a single thread: during the import another thread importing
``email.utils`` would get the loan.
"""

from __future__ import annotations

import sys
import types
from datetime import datetime, timedelta, timezone

_MONTHS = {
    name: number for number, name in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1)
}


def parsedate_to_datetime(text: str) -> datetime:
    """``email.utils.parsedate_to_datetime`` for the form a build stamp takes (RFC 2822: day name, four-digit year,
    numeric zone); any other text goes to the real function."""
    try:
        _, day, month, year, clock, zone = text.split()
        hour, minute, second = (int(part) for part in clock.split(":"))
        if len(year) != 4 or len(zone) != 5 or zone[0] not in "+-" or not zone[1:].isdigit() or zone == "-0000":
            raise ValueError(text)  # "-0000" means "zone unknown": a naive datetime, as the real function says
        offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:])) * (-1 if zone[0] == "-" else 1)
        return datetime(int(year), _MONTHS[month], int(day), hour, minute, second, tzinfo=timezone(offset))
    except (ValueError, KeyError):
        if isinstance(sys.modules.get("email.utils"), _Loan):
            del sys.modules["email.utils"]  # the import asking has the loan in hand; the real module takes its place
        from email.utils import parsedate_to_datetime as real

        return real(text)


class _Loan(types.ModuleType):
    """What ``import email.utils`` gives jsonschema-rs's init."""


def import_jsonschema_rs() -> None:
    """Import ``jsonschema_rs`` with the loan in place (unless it or ``email.utils`` is already imported)."""
    if "jsonschema_rs" in sys.modules or "email.utils" in sys.modules:
        return
    loan = _Loan("email.utils")
    loan.parsedate_to_datetime = parsedate_to_datetime  # type: ignore[attr-defined]
    sys.modules["email.utils"] = loan
    try:
        import jsonschema_rs  # noqa: F401
    finally:
        if sys.modules.get("email.utils") is loan:
            del sys.modules["email.utils"]
