"""The date and date-time formats' fast path (one regular expression each) agrees with the field-by-field
definition.

``is_date_time`` accepts a string when the one-match grammar does, else asks ``by_fields``: it equals ``by_fields``
exactly when the grammar never accepts a string ``by_fields`` refuses — checked here on generated timestamps
(every field at and around its bounds, February 29th of leap and common years, leap seconds, offsets) and on
mutated ones.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.core import rfc3339

two = st.integers(0, 99).map(lambda n: f"{n:02d}")
stamps = st.builds(
    "{}-{}-{}{}{}:{}:{}{}{}".format,
    st.sampled_from([0, 1900, 2000, 2023, 2024, 2100, 9999]).map(lambda y: f"{y:04d}") | st.integers(0, 9999).map(lambda y: f"{y:04d}"),
    st.integers(0, 13).map(lambda n: f"{n:02d}"),
    st.integers(0, 32).map(lambda n: f"{n:02d}"),
    st.sampled_from(["T", "t", " ", "x"]),
    st.integers(0, 25).map(lambda n: f"{n:02d}"),
    two,
    st.integers(0, 61).map(lambda n: f"{n:02d}"),
    st.sampled_from(["", ".5", ".123456789", "."]),
    st.sampled_from(["Z", "z", "", "+00:00", "-00:01", "+23:59", "+24:00", "-05:60", "+5:30"]),
)


@settings(max_examples=3000, deadline=None)
@given(stamps)
def test_fast_path_accepts_only_what_the_fields_accept(value: str) -> None:
    assert rfc3339.is_date_time(value) == rfc3339.by_fields(value), value


@settings(max_examples=2000, deadline=None)
@given(stamps, st.integers(0, 40), st.characters(codec="utf-8"))
def test_fast_path_on_mutated_stamps(value: str, at: int, char: str) -> None:
    for mutated in (value[:at] + char + value[at:], value[:at] + char + value[at + 1 :], value[:at] + value[at + 1 :]):
        assert rfc3339.is_date_time(mutated) == rfc3339.by_fields(mutated), mutated


def test_the_fast_path_is_taken_and_the_slow_one_kept() -> None:
    """Most timestamps are decided by the one match; February 29th and a leap second still need the fields."""
    assert rfc3339._COMMON_DATE_TIME.fullmatch("2026-11-30T09:46:23Z")
    assert rfc3339._COMMON_DATE_TIME.fullmatch("2026-12-31T23:59:59.5+05:30")
    assert not rfc3339._COMMON_DATE_TIME.fullmatch("2024-02-29T00:00:00Z") and rfc3339.is_date_time("2024-02-29T00:00:00Z")
    assert not rfc3339.is_date_time("2023-02-29T00:00:00Z")
    assert rfc3339.is_date_time("2026-06-30T23:59:60Z") and not rfc3339.is_date_time("2026-06-30T12:59:60Z")
    assert rfc3339.is_date_time("2026-07-01T05:29:60+05:30")


@settings(max_examples=3000, deadline=None)
@given(stamps, st.integers(0, 12), st.characters(codec="utf-8"))
def test_date_fast_path_accepts_only_what_the_fields_accept(stamp: str, at: int, char: str) -> None:
    value = stamp[:10]
    for candidate in (value, value[:at] + char + value[at:], value[:at] + char + value[at + 1 :], value + stamp[10:12]):
        assert rfc3339.is_date(candidate) == rfc3339.date_by_fields(candidate), candidate


@settings(max_examples=2000, deadline=None)
@given(stamps, st.integers(0, 40), st.sampled_from(["", "\n", "\r\n", " ", "Z", "\u0660", "x"]))
def test_the_rust_pattern_is_the_python_expression(value: str, at: int, extra: str) -> None:
    """The fast engine's first pass runs each COMMON expression as a JSON Schema ``pattern`` in jsonschema-rs
    (``schema_path._fast_screen``): it must accept exactly what Python's ``fullmatch`` accepts — a trailing newline
    or a non-ASCII digit included."""
    import jsonschema_rs

    from evalschema.engine.schema_path import _with_format_patterns

    for name in rfc3339.COMMON:
        screen = jsonschema_rs.validator_for(_with_format_patterns({"type": "string", "format": name}), validate_formats=False)
        python = re.compile(rfc3339.COMMON[name], re.ASCII)  # as rfc3339 compiles it
        for candidate in (
            value,
            value[:10],
            value[:at] + extra + value[at:],
            value[:at] + extra + value[at + 1 :],
            value + extra,
            value[:10] + extra,
        ):
            assert screen.is_valid(candidate) == (python.fullmatch(candidate) is not None), (name, candidate)


_NODE = """
import { readFileSync } from "node:fs";
const { isDate, isDateTime } = await import(process.argv[2] + "/schemas/formats.js");
const values = JSON.parse(readFileSync(process.argv[3], "utf-8"));
process.stdout.write(JSON.stringify(values.map((v) => [isDate(v), isDateTime(v)])));
"""


def _spread() -> list[str]:
    """Timestamps at and around every field's bounds, and each cut, widened and mutated (a fixed seed)."""
    import random

    pick = random.Random(17)
    years, offsets = (
        ["0000", "1900", "2000", "2023", "2024", "2100", "9999"],
        ["Z", "z", "", "+00:00", "-00:01", "+23:59", "+24:00", "-05:60", "+5:30"],
    )
    extras = ["", "\n", " ", "Z", "\u0660", "x", "T", ".", "-", "9", "\u00e9"]
    values = []
    for _ in range(6000):
        stamp = (
            f"{pick.choice(years) if pick.random() < 0.5 else f'{pick.randrange(10000):04d}'}-{pick.randrange(14):02d}-"
            f"{pick.randrange(33):02d}{pick.choice('Tt x')}{pick.randrange(26):02d}:{pick.randrange(61):02d}:"
            f"{pick.randrange(62):02d}{pick.choice(['', '.5', '.123456789', '.'])}{pick.choice(offsets)}"
        )
        at, extra = pick.randrange(len(stamp) + 1), pick.choice(extras)
        values += [stamp, stamp[:10], stamp[:at] + extra + stamp[at:], stamp[:at] + extra + stamp[at + 1 :], stamp + extra]
    return values


def test_typescript_formats_agree_with_python(built_js: Path, tmp_path: Path) -> None:
    """``isDate``/``isDateTime`` of the TypeScript SDK decide every timestamp of a spread as ``is_date``/``is_date_time``
    do (both read their grammar and days table from spec/constants.json; the algorithm is written in each)."""
    values = _spread()
    data, script = tmp_path / "values.json", tmp_path / "formats.mjs"
    data.write_text(json.dumps(values), encoding="utf-8")
    script.write_text(_NODE, encoding="utf-8")
    run = subprocess.run(["node", str(script), built_js.parent.as_uri(), str(data)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    answers = json.loads(run.stdout)
    differences = [
        (value, typescript, [rfc3339.is_date(value), rfc3339.is_date_time(value)])
        for value, typescript in zip(values, answers, strict=True)
        if typescript != [rfc3339.is_date(value), rfc3339.is_date_time(value)]
    ]
    assert differences == [], differences[:10]
    assert sum(answer[1] for answer in answers) > 1000 and sum(answer[0] for answer in answers) > 1000  # a spread, not all refused
