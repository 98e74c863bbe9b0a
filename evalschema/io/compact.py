"""A compact exact table for the state kept across rows: the first row of each (test case, attempt), and each test
case's attempt rollup.

A ``dict`` spends well over 100 bytes on each short string key and integer value, so for a result set of a
million rows that state would outgrow the batch of rows being read. Past ``DICT_KEYS`` keys (a result set of more
than about 130,000 test cases; below it a plain ``dict`` holds them, at C speed) this table keeps them in arrays:
every key's bytes in one arena, in the order they came, with the arena offset where each starts and its value in
that same order, and an open-addressing hash table (linear probing, at most two-thirds full) whose slots hold only
the entry's number. About ``len(key) + 16`` bytes a key (values take 4 bytes until one needs 8). Keys are compared,
not only hashed, so it is exact; no hash is kept (4 bytes a key): growing hashes each key again from the arena,
about once for every key the table ends with.

A table made with ``runs`` keeps its values as runs: where each value is the one before plus one (the first row of
each key, when nearly every row brings a new key), a run is the entry it starts at and the value minus the entry
number along it, so such a table keeps nothing per key for its values. Once runs would cost more than a value a
key (16 bytes a run against 4 a value), or a value changes, it keeps one value per key as any table does.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator
from itertools import islice

_EMPTY = -1
DICT_KEYS = 1 << 17
NARROW_STARTS = 0xFFFFFFFF  # arena offsets up to this fit the 4-byte "I" array
RUNS_SLACK = 1024  # runs (16 bytes each) are kept while they cost no more than 4 bytes a key, for this many keys more
_SMALLEST, _LARGEST = -(2**63), 2**63 - 1
_TOO_LARGE = "a KeyTable value is a signed 64-bit integer"


class KeyTable:
    """Byte-string keys, each with a signed 64-bit integer value."""

    def __init__(self, dict_keys: int | None = None, *, runs: bool = False) -> None:
        self._small: dict[bytes, int] | None = {}  # None once the keys have moved into the arrays
        self._dict_keys = DICT_KEYS if dict_keys is None else dict_keys
        self._arena = bytearray()
        self._starts = array("I", [0])  # entry n's key is arena[starts[n]:starts[n + 1]]; "Q" past 4 GiB of keys
        self._values = array("i")  # entry n's value; "q" from the first value that needs more than 32 bits
        # with runs: the values as runs instead (run i: from entry entries[i] on, value = entry + offsets[i])
        self._runs: tuple[array[int], array[int]] | None = (array("q"), array("q")) if runs else None
        self._slots = array("i", [_EMPTY]) * 8  # an entry number, or empty

    def __len__(self) -> int:
        return len(self._small) if self._small is not None else len(self._starts) - 1

    def _spill(self) -> None:
        """Move the dict's keys into the arrays, for good: the slots sized for them at once (as many as growing
        one key at a time would end with), then the keys in bulk."""
        small, self._small = self._small or {}, None
        size = len(self._slots)
        while 3 * len(small) > 2 * size:
            size *= 2
        self._slots = array("i", [_EMPTY]) * size
        self._setdefault_arrays(list(small), list(small.values()))

    def _find(self, key: bytes) -> tuple[int, int]:
        """(the slot holding ``key``, its entry number) or (the empty slot where it belongs, -1)."""
        slots, starts, arena, mask, size = self._slots, self._starts, self._arena, len(self._slots) - 1, len(key)
        slot = hash(key) & mask
        while True:
            entry = slots[slot]
            if entry == _EMPTY:
                return slot, entry
            start = starts[entry]  # the entry's key compared in place: its length, then its bytes
            if starts[entry + 1] - start == size and arena.startswith(key, start):
                return slot, entry
            slot = (slot + 1) & mask

    def _append(self, slot: int, key: bytes, value: int) -> None:
        """A new entry for ``key``, in ``slot`` (empty, where ``_find`` stopped); the slots grow past 2/3 full. The
        value first: one past 64 bits is refused with nothing changed."""
        entry, arena = len(self._starts) - 1, self._arena
        if self._runs is not None:
            self._append_run(self._runs, entry, value)
        else:
            self._append_value(value)
        self._slots[slot] = entry
        arena += key
        end = len(arena)
        if end > NARROW_STARTS and self._starts.typecode == "I":
            self._starts = array("Q", self._starts)
        self._starts.append(end)
        if 3 * (entry + 1) > 2 * len(self._slots):
            self._grow()

    def _append_run(self, runs: tuple[array[int], array[int]], entry: int, value: int) -> None:
        """Entry ``entry``'s value in the runs: the last run goes on, or a new one starts."""
        if not _SMALLEST <= value <= _LARGEST:
            raise OverflowError(_TOO_LARGE)
        entries, offsets = runs
        offset = value - entry
        if offsets and offset == offsets[-1]:
            return
        if 4 * len(offsets) > entry + RUNS_SLACK or offset < _SMALLEST:
            self._dense(runs, entry)  # runs costing more than a value a key (or an offset past 64 bits)
            self._append_value(value)
            return
        entries.append(entry)
        offsets.append(offset)

    def _append_value(self, value: int) -> None:
        """The next entry's value, one per key."""
        try:
            self._values.append(value)
        except OverflowError:
            self._widen()
            self._values.append(value)

    def _dense(self, runs: tuple[array[int], array[int]], count: int) -> None:
        """One value per key from now on: the runs of the first ``count`` entries written out."""
        values = list(_run_values(runs, count))
        self._runs = None
        self._values = array("i")
        for value in values:
            self._append_value(value)

    def _value(self, entry: int) -> int:
        """Entry ``entry``'s value."""
        if self._runs is None:
            return self._values[entry]
        entries, offsets = self._runs
        return entry + offsets[bisect_right(entries, entry) - 1]

    def _set(self, entry: int, value: int) -> None:
        """Entry ``entry``'s value becomes ``value``."""
        if self._runs is not None:
            self._dense(self._runs, len(self))  # a change: runs no longer say it
        try:
            self._values[entry] = value
        except OverflowError:
            self._widen()
            self._values[entry] = value

    def _widen(self) -> None:
        """Values of 8 bytes from now on (past 8 bytes the value is refused, as the table only holds 64 bits)."""
        if self._values.typecode == "q":
            raise OverflowError(_TOO_LARGE)
        self._values = array("q", self._values)

    def setdefault(self, key: bytes, value: int) -> tuple[int, bool]:
        """The value of ``key`` and False, if it is present; else store ``value`` and return it with True."""
        small = self._small
        if small is not None:
            size = len(small)
            found = small.setdefault(key, value)
            if len(small) == size:
                return found, False
            if size >= self._dict_keys:
                self._spill()
            return value, True
        slot, entry = self._find(key)
        if entry != _EMPTY:
            return self._value(entry), False
        self._append(slot, key, value)
        return value, True

    def setdefault_many(self, keys: list[bytes], values: list[int]) -> list[tuple[int, int]]:
        """``setdefault`` of each key with its value, in order; (position in ``keys``, value found) for each key
        that was present. The same table as calling ``setdefault`` in a loop, at C speed while the dict holds the
        keys and none of them repeats (the common case: every key is new)."""
        small = self._small
        if small is not None and len(small) + len(keys) <= self._dict_keys:
            batch = dict(zip(keys, values))
            if len(batch) == len(keys) and small.keys().isdisjoint(batch):
                small.update(batch)
                return []
        if self._small is not None:
            found: list[tuple[int, int]] = []
            for position, (key, value) in enumerate(zip(keys, values)):
                first, added = self.setdefault(key, value)
                if not added:
                    found.append((position, first))
            return found
        return self._setdefault_arrays(keys, values)

    def _setdefault_arrays(self, keys: list[bytes], values: list[int]) -> list[tuple[int, int]]:
        """``setdefault_many`` once the keys are in the arrays."""
        found: list[tuple[int, int]] = []
        for position, key in enumerate(keys):
            slot, entry = self._find(key)
            if entry == _EMPTY:
                self._append(slot, key, values[position])
            else:
                found.append((position, self._value(entry)))
        return found

    def replace(self, key: bytes, value: int) -> None:
        """Change the value of a key that is present."""
        if self._small is not None:
            assert key in self._small, "replace() of a missing key"
            self._small[key] = value
            return
        _, entry = self._find(key)
        assert entry != _EMPTY, "replace() of a missing key"
        self._set(entry, value)

    def values(self) -> Iterator[int]:
        """Every value, one at a time (a list of a million would cost more than the table)."""
        if self._small is not None:
            return iter(self._small.values())
        return _run_values(self._runs, len(self)) if self._runs is not None else iter(self._values)

    def _keys(self) -> Iterator[bytes]:
        """Every key in entry order, one at a time (a list of a million would cost more than the table)."""
        arena, starts = self._arena, self._starts
        for start, end in zip(starts, islice(starts, 1, None)):
            yield bytes(arena[start:end])

    def _grow(self) -> None:
        """Twice the slots, every entry placed again by its key's hash (the arena, starts and values stay)."""
        size = 2 * len(self._slots)
        slots, mask = array("i", [_EMPTY]) * size, size - 1
        for entry, key in enumerate(self._keys()):
            slot = hash(key) & mask
            while slots[slot] != _EMPTY:
                slot = (slot + 1) & mask
            slots[slot] = entry
        self._slots = slots

    def items(self) -> list[tuple[bytes, int]]:
        """Every key with its value (in no particular order)."""
        if self._small is not None:
            return list(self._small.items())
        return list(zip(self._keys(), self.values()))

    def get(self, key: bytes) -> int | None:
        """The value of ``key``, or None."""
        if self._small is not None:
            return self._small.get(key)
        _, entry = self._find(key)
        return None if entry == _EMPTY else self._value(entry)

    def add(self, key: bytes, delta: int) -> None:
        """Add ``delta`` to the value of ``key`` (a missing key starts at 0), in one lookup."""
        if self._small is not None:
            if key in self._small:
                self._small[key] += delta
            else:
                self.setdefault(key, delta)
            return
        slot, entry = self._find(key)
        if entry != _EMPTY:
            self._set(entry, self._value(entry) + delta)
        else:
            self._append(slot, key, delta)


def _run_values(runs: tuple[array[int], array[int]], count: int) -> Iterator[int]:
    """The values of the first ``count`` entries held as runs, in entry order."""
    entries, offsets = runs
    for i, (first, offset) in enumerate(zip(entries, offsets)):
        last = entries[i + 1] if i + 1 < len(entries) else count
        yield from range(first + offset, last + offset)
