"""The state kept across rows is exact, compact or not: the key table behaves as a dict, and the attempt rollup and
the duplicate-attempt rule give what the plain definitions give, whatever the attempt numbers (huge, negative,
2.0, booleans) and keys (empty, NUL, lone surrogates)."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.io import compact as compact_table
from evalschema.io.compact import DICT_KEYS, KeyTable
from evalschema.rules.annotated import AnnotatedRows
from evalschema.summary import SummaryBuilder, attempt_number

KEYS = st.binary(max_size=12) | st.sampled_from([b"", b"\x00", b"tc-1", b"1\x00tc", b"\xff" * 3])


# values as a table with runs meets them: mostly one more than the value before, and any 64-bit value
VALUES = st.one_of(st.just(None), st.integers(-(2**63), 2**63 - 1))


def _values(drawn: list[int | None]) -> list[int]:
    """``None``: one more than the value before (while that fits 64 bits)."""
    out: list[int] = []
    for value in drawn:
        out.append(value if value is not None else (out[-1] + 1 if out and out[-1] < 2**63 - 1 else 0))
    return out


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(
    st.lists(st.tuples(KEYS, VALUES), max_size=400),
    st.sampled_from([0, 1, 7, 100, DICT_KEYS]),
    st.booleans(),
    st.sampled_from([0, 3, compact_table.RUNS_SLACK]),
)
def test_key_table_is_a_dict(drawn: list[tuple[bytes, int | None]], dict_keys: int, runs: bool, slack: int) -> None:
    """In its dict, in its arrays, and moving from one to the other at any point; its arena offsets widened from
    4 to 8 bytes at any point too (past 4 GiB of keys, here past 40 bytes); with its values as runs, which it
    gives up for a value a key at any point too (``slack``: how soon runs cost more)."""
    operations = list(zip([key for key, _ in drawn], _values([value for _, value in drawn])))
    with (
        mock.patch.object(compact_table, "NARROW_STARTS", 40 if dict_keys == 1 else compact_table.NARROW_STARTS),
        mock.patch.object(compact_table, "RUNS_SLACK", slack),
    ):
        _check_key_table(operations, dict_keys, runs)


def _check_key_table(operations: list[tuple[bytes, int]], dict_keys: int, runs: bool = False) -> None:
    table, reference = KeyTable(dict_keys, runs=runs), dict[bytes, int]()
    for key, value in operations:
        expected = (reference[key], False) if key in reference else (value, True)
        reference.setdefault(key, value)
        assert table.setdefault(key, value) == expected
        if key.endswith(b"\x00"):
            table.replace(key, value // 2)
            reference[key] = value // 2
        if key.startswith(b"\x00"):
            table.add(key, 3)
            reference[key] += 3
        assert table.get(key) == reference[key]
    assert len(table) == len(reference)
    assert sorted(table.values()) == sorted(reference.values())
    assert sorted(table.items()) == sorted(reference.items())


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(
    st.lists(st.lists(st.tuples(KEYS, VALUES), max_size=40), max_size=30),
    st.sampled_from([0, 1, 7, 100, DICT_KEYS]),
    st.booleans(),
    st.sampled_from([0, 3, compact_table.RUNS_SLACK]),
)
def test_bulk_insertion_is_setdefault_in_order(drawn: list[list[tuple[bytes, int | None]]], dict_keys: int, runs: bool, slack: int) -> None:
    """``setdefault_many`` leaves the table ``setdefault`` one key at a time leaves, and reports exactly the keys
    that were present (a repeat inside one batch included), with the value found."""
    values = iter(_values([value for batch in drawn for _, value in batch]))
    batches = [[(key, next(values)) for key, _ in batch] for batch in drawn]
    with (
        mock.patch.object(compact_table, "NARROW_STARTS", 40 if dict_keys == 1 else compact_table.NARROW_STARTS),
        mock.patch.object(compact_table, "RUNS_SLACK", slack),
    ):
        table, reference = KeyTable(dict_keys, runs=runs), dict[bytes, int]()
        for batch in batches:
            expected = []
            for position, (key, value) in enumerate(batch):
                if key in reference:
                    expected.append((position, reference[key]))
                reference.setdefault(key, value)
            assert table.setdefault_many([key for key, _ in batch], [value for _, value in batch]) == expected
            assert len(table) == len(reference)
        assert sorted(table.items()) == sorted(reference.items())
        assert all(table.get(key) == value for key, value in reference.items())


ATTEMPTS = st.one_of(
    st.integers(-5, 6), st.sampled_from([2**59 - 1, 2**59, 2**60, 2**70, -(2**59), -(2**59) - 1, -(2**60) - 1, 2.0, 3.5, True, "2", None])
)
ROWS = st.lists(
    st.fixed_dictionaries(
        {"test_case_id": st.sampled_from(["a", "b", "", "\x00", "\ud800", "c" * 30]), "passed": st.booleans()},
        optional={"attempt": ATTEMPTS},
    ).map(lambda row: {**row, "grader_results": [{"grader_id": "g", "score": 1.0 if row["passed"] else 0.0, "passed": row["passed"]}]}),
    max_size=60,
)


def _rollup_by_definition(rows: list[dict[str, Any]]) -> tuple[int, int, int, int]:
    """SPEC 4.4 as written: per test case, its scored rows sorted by attempt (stable), then the three rates' counts."""
    per_case: dict[str, list[tuple[int, bool]]] = {}
    for row in rows:
        per_case.setdefault(row["test_case_id"], []).append((attempt_number(row), row["passed"]))
    cases = [sorted(attempts, key=lambda pair: pair[0]) for attempts in per_case.values()]
    return (
        len(cases),
        sum(1 for c in cases if c[0][1]),
        sum(1 for c in cases if any(p for _, p in c)),
        sum(1 for c in cases if all(p for _, p in c)),
    )


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(ROWS, st.booleans(), st.sampled_from([0, 2, DICT_KEYS]))
def test_attempt_rollup_is_exact(rows: list[dict[str, Any]], compact: bool, dict_keys: int) -> None:
    """``dict_keys``: where the compact tables move their keys from a dict into their arrays."""
    with mock.patch.object(compact_table, "DICT_KEYS", dict_keys):
        builder = SummaryBuilder(compact=compact)
        for row in rows:
            builder.add(row)
    rollup = builder.build().attempts
    if not any("attempt" in row for row in rows):
        assert rollup is None
        return
    assert rollup is not None
    cases, first, any_pass, all_pass = _rollup_by_definition(rows)
    assert rollup.test_cases == cases
    for rate, count in ((rollup.first_attempt_pass_rate, first), (rollup.any_pass_rate, any_pass), (rollup.all_pass_rate, all_pass)):
        assert rate == (count / cases if cases else None)


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(ROWS, st.integers(1, 7), st.booleans(), st.sampled_from([0, 2, DICT_KEYS]))
def test_duplicate_attempts_are_exact_in_any_batches(rows: list[dict[str, Any]], batch: int, compact: bool, dict_keys: int) -> None:
    """The first row of each (test_case_id, attempt) — 2.0 is 2, other non-integers have none — wherever batches
    are cut."""
    first: dict[tuple[str, int], int] = {}
    expected = []
    for index, row in enumerate(rows):
        attempt = row.get("attempt")
        if type(attempt) is float and attempt.is_integer():
            attempt = int(attempt)
        if "attempt" in row and type(attempt) is int:
            key = (row["test_case_id"], attempt)
            if key in first:
                expected.append((f"/results/{index}/attempt", f"(first at /results/{first[key]}/attempt)"))
            first.setdefault(key, index)
    with mock.patch.object(compact_table, "DICT_KEYS", dict_keys):
        checker = AnnotatedRows("resultset", "results", compact=compact)  # DUPLICATE_ATTEMPT: the schema's x-unique
        found = [
            (f.pointer, f.message[f.message.index("(first") :])
            for start in range(0, len(rows), batch)
            for f in checker.rows(rows[start : start + batch], start)
            if f.code == "DUPLICATE_ATTEMPT"
        ]
    assert found == expected


def test_row_numbers_as_values_take_a_run_each_time_a_row_brings_no_new_key() -> None:
    """The first row of each key (the duplicate-attempt table): 300,000 keys, one of every thousand rows a repeat;
    the table holds every value exactly and keeps them as one run per repeat, not one value per key."""
    table = KeyTable(dict_keys=1000, runs=True)
    row = 0
    for batch in range(300):
        keys = [b"tc-%d" % (batch * 1000 + k) for k in range(999)] + [b"tc-0"]  # the last row repeats the first
        found = table.setdefault_many(keys, list(range(row, row + 1000)))
        assert found == [(999, 0)]
        row += 1000
    assert len(table) == 300 * 999
    assert table.get(b"tc-0") == 0
    assert table.get(b"tc-299998") == 299 * 1000 + 998
    runs = table._runs
    assert runs is not None and len(runs[0]) == 300
    assert table.items() == [(b"tc-%d" % (b * 1000 + k), b * 1000 + k) for b in range(300) for k in range(999)]


def test_a_table_with_runs_takes_changes_and_refuses_what_64_bits_cannot_hold() -> None:
    """A value changed (``replace``, ``add``) leaves the runs for a value a key, the values kept; a value past 64
    bits is refused as a table without runs refuses it."""
    table = KeyTable(dict_keys=0, runs=True)
    for n in range(10):
        assert table.setdefault(b"k%d" % n, 100 + n) == (100 + n, True)
    table.replace(b"k3", -7)
    table.add(b"k4", 5)
    table.add(b"new", 2)
    expected = {b"k%d" % n: 100 + n for n in range(10)} | {b"k3": -7, b"k4": 109, b"new": 2}
    assert sorted(table.items()) == sorted(expected.items())
    assert table.setdefault(b"k5", 0) == (105, False)
    for runs in (True, False):
        full = KeyTable(dict_keys=0, runs=runs)
        full.setdefault(b"a", 2**63 - 1)
        with pytest.raises(OverflowError):
            full.setdefault(b"b", 2**63)  # one more than the value before, past 64 bits
        assert full.get(b"a") == 2**63 - 1 and full.get(b"b") is None
