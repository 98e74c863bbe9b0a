"""The one definition of the ``date`` and ``date-time`` formats (SPEC §3.1, "Formats"), used by every path.

RFC 3339 §5.6 as written, not as a language's date type can hold it: ``full-date`` years 0000–9999 in the
proleptic Gregorian calendar (0000 is a leap year), ``T``/``t`` between date and time, seconds 00–60, an optional
fraction, and ``Z``/``z`` or a ``±hh:mm`` offset. Second 60 (a leap second, §5.7) is accepted only where the time,
moved to UTC by its offset, is 23:59:60 — on any day: which days had one is a table no document validator keeps.
Only ASCII digits count; nothing may follow the last character (no trailing newline).
"""

from __future__ import annotations

import re

from evalschema_models import constants

# The grammar and the days table are data (spec/constants.json, generated); the algorithm is here.
_DATE, _TIME = constants.DATE_FIELDS, constants.TIME_FIELDS  # compiled on first use: only the fallback needs them
_DAYS = constants.DAYS_IN_MONTH


def _days_in(year: int, month: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return 29 if month == 2 and leap else _DAYS[month - 1]


def is_date(value: object) -> bool:
    """RFC 3339 ``full-date``; a non-string is not this format's business (JSON Schema: formats apply to strings)."""
    if not isinstance(value, str):
        return True
    return re.fullmatch(_COMMON_DATE, value, re.ASCII) is not None or date_by_fields(value)


def date_by_fields(value: str) -> bool:
    """``date``, decided field by field (what the one-match fast path of :func:`is_date` must agree with)."""
    match = re.fullmatch(_DATE, value, re.ASCII)
    return match is not None and _real_day(match)


def _real_day(match: re.Match[str]) -> bool:
    year, month, day = (int(group) for group in match.groups())
    return 1 <= month <= 12 and 1 <= day <= _days_in(year, month)


# The whole grammar with every field in range, as one regular expression (generated: COMMON_DATE,
# COMMON_DATE_TIME): a value that matches is valid without another look (nearly all of them: the check runs once per
# timestamp of every row). February 29th and second 60 are left to the field-by-field checks, which need the year
# and the offset. Written in the syntax Python and ECMA-262 share: the fast engine also runs them, in Rust, as
# ``pattern``s (``engine.schema_path``).
COMMON = {"date": constants.COMMON_DATE, "date-time": constants.COMMON_DATE_TIME}
_COMMON_DATE = constants.COMMON_DATE  # compiled on first use: result sets hold date-times, not dates
_COMMON_DATE_TIME = re.compile(constants.COMMON_DATE_TIME, re.ASCII)


def is_date_time(value: object) -> bool:
    """RFC 3339 ``date-time`` (a time zone is required)."""
    if not isinstance(value, str):
        return True
    return _COMMON_DATE_TIME.fullmatch(value) is not None or by_fields(value)


def by_fields(value: str) -> bool:
    """``date-time``, decided field by field (what the one-match fast path of :func:`is_date_time` must agree with)."""
    if len(value) < 20 or value[10] not in "Tt":
        return False
    date, time = re.compile(_DATE, re.ASCII).fullmatch(value, 0, 10), re.compile(_TIME, re.ASCII).fullmatch(value, 11)
    if date is None or time is None or not _real_day(date):
        return False
    hour, minute, second = int(time[1]), int(time[2]), int(time[3])
    offset = 0
    if time[4] is not None:
        offset_hour, offset_minute = int(time[5]), int(time[6])
        if offset_hour > 23 or offset_minute > 59:
            return False
        offset = (offset_hour * 60 + offset_minute) * (1 if time[4] == "+" else -1)
    if hour > 23 or minute > 59 or second > 60:
        return False
    # a leap second is the last second of a UTC day
    return second < 60 or (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


FORMATS = {"date": is_date, "date-time": is_date_time}


# Why a value is not valid: the first part found wrong, the shape first (date, T, time, zone), then the ranges in
# reading order (the reason texts are data:
# FORMAT_PROBLEMS, spec/constants.json; the grammar is DATE_FIELDS and TIME_FIELDS). js/src/schemas/formats.ts
# ``formatProblem`` is the same walk.


def _digits(text: str) -> bool:
    return text != "" and all("0" <= c <= "9" for c in text)


def _day_problem(year: int, month: int, day: int) -> str | None:
    if not 1 <= month <= 12:
        return "month"
    return None if 1 <= day <= _days_in(year, month) else "day"


def _clock_end(time: str) -> int | None:
    """Where ``hh:mm:ss`` and its optional fraction end in ``time`` (the zone starts there), or ``None``."""
    if not (len(time) >= 8 and _digits(time[0:2]) and time[2] == ":" and _digits(time[3:5]) and time[5] == ":" and _digits(time[6:8])):
        return None
    if time[8:9] != ".":
        return 8
    end = 9
    while end < len(time) and "0" <= time[end] <= "9":
        end += 1
    return end if end > 9 else None


def problem(format_name: str, value: object) -> str | None:
    """Why ``value`` is not a valid ``format_name`` (``date`` or ``date-time``): a key of FORMAT_PROBLEMS, or
    ``None`` when it is valid (or no reason is known)."""
    if not isinstance(value, str) or format_name not in FORMATS or FORMATS[format_name](value):
        return None
    date = re.match(_DATE, value, re.ASCII)  # the date's fields at the start
    if date is None:
        return "date_shape"
    day = _day_problem(*map(int, date.groups()))
    rest = value[10:]
    if format_name == "date":
        return day or ("date_has_time" if rest[:1] in ("T", "t", " ") else "date_shape")
    if rest == "":
        return "time_missing"
    if rest[0] not in "Tt":
        return "separator"
    clock = _clock_end(rest[1:])
    if clock is None:
        return "time_shape"
    if clock == len(rest) - 1:
        return "offset_missing"
    time = re.fullmatch(_TIME, rest[1:], re.ASCII)
    if time is None:
        return "offset_shape"
    if day is not None:
        return day
    hour, minute, second = int(time[1]), int(time[2]), int(time[3])
    if hour > 23:
        return "hour"
    if minute > 59:
        return "minute"
    if second > 60:
        return "second"
    if time[4] is not None and (int(time[5]) > 23 or int(time[6]) > 59):
        return "offset_range"
    return "leap_second" if second == 60 else None
