"""A compact exact table for the state kept across rows: the first row of each (test case, attempt), and each test
case's attempt rollup.

A ``dict`` spends well over 100 bytes on each short string key and integer value, so for a result set of a
million rows that state would outgrow the batch of rows being read. This table keeps every key's bytes in one
arena and its slots in machine-integer arrays: about ``len(key) + 40`` bytes per key. It is exact (keys are
compared, not only hashed): an open-addressing hash table with linear probing, at most two-thirds full. Its
probing runs in Python, so the first ``DICT_KEYS`` keys live in a plain ``dict`` (C speed, about 110 bytes a key):
only state that outgrows it — a result set of more than about 130,000 test cases — moves into the arrays.
"""

from __future__ import annotations

from array import array

_EMPTY = -1
DICT_KEYS = 1 << 17


class KeyTable:
    """Byte-string keys, each with a signed 64-bit integer value."""

    def __init__(self, dict_keys: int | None = None) -> None:
        self._small: dict[bytes, int] | None = {}  # None once the keys have moved into the arrays
        self._dict_keys = DICT_KEYS if dict_keys is None else dict_keys
        self._arena = bytearray()
        self._offsets = array("q", [_EMPTY]) * 8  # where each slot's key starts in the arena; -1: empty
        self._lengths = array("i", [0]) * 8
        self._values = array("q", [0]) * 8
        self._count = 0

    def __len__(self) -> int:
        return len(self._small) if self._small is not None else self._count

    def _spill(self) -> None:
        """Move the dict's keys into the arrays, for good."""
        small, self._small = self._small, None
        for key, value in (small or {}).items():
            self.setdefault(key, value)

    def _slot(self, key: bytes) -> int:
        """The slot holding ``key``, or the empty slot where it belongs."""
        offsets, lengths, arena, mask, size = self._offsets, self._lengths, self._arena, len(self._offsets) - 1, len(key)
        slot = hash(key) & mask
        while True:
            start = offsets[slot]
            if start == _EMPTY or (lengths[slot] == size and arena[start : start + size] == key):
                return slot
            slot = (slot + 1) & mask

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
        slot = self._slot(key)
        if self._offsets[slot] != _EMPTY:
            return self._values[slot], False
        self._offsets[slot] = len(self._arena)
        self._lengths[slot] = len(key)
        self._values[slot] = value
        self._arena += key
        self._count += 1
        if 3 * self._count > 2 * len(self._offsets):
            self._grow()
        return value, True

    def replace(self, key: bytes, value: int) -> None:
        """Change the value of a key that is present."""
        if self._small is not None:
            assert key in self._small, "replace() of a missing key"
            self._small[key] = value
            return
        slot = self._slot(key)
        assert self._offsets[slot] != _EMPTY, "replace() of a missing key"
        self._values[slot] = value

    def values(self) -> list[int]:
        if self._small is not None:
            return list(self._small.values())
        return [value for start, value in zip(self._offsets, self._values) if start != _EMPTY]

    def _grow(self) -> None:
        old = zip(self._offsets, self._lengths, self._values)
        size = 2 * len(self._offsets)
        offsets, lengths, values = array("q", [_EMPTY]) * size, array("i", [0]) * size, array("q", [0]) * size
        mask, arena = size - 1, self._arena
        for start, length, value in old:
            if start == _EMPTY:
                continue
            slot = hash(bytes(arena[start : start + length])) & mask
            while offsets[slot] != _EMPTY:
                slot = (slot + 1) & mask
            offsets[slot], lengths[slot], values[slot] = start, length, value
        self._offsets, self._lengths, self._values = offsets, lengths, values

    def items(self) -> list[tuple[bytes, int]]:
        """Every key with its value (in no particular order)."""
        if self._small is not None:
            return list(self._small.items())
        arena = self._arena
        return [
            (bytes(arena[start : start + length]), value)
            for start, length, value in zip(self._offsets, self._lengths, self._values)
            if start != _EMPTY
        ]

    def get(self, key: bytes) -> int | None:
        """The value of ``key``, or None."""
        if self._small is not None:
            return self._small.get(key)
        slot = self._slot(key)
        return None if self._offsets[slot] == _EMPTY else self._values[slot]

    def add(self, key: bytes, delta: int) -> None:
        """Add ``delta`` to the value of ``key`` (a missing key starts at 0), in one lookup."""
        if self._small is not None:
            if key in self._small:
                self._small[key] += delta
            else:
                self.setdefault(key, delta)
            return
        slot = self._slot(key)
        if self._offsets[slot] != _EMPTY:
            self._values[slot] += delta
            return
        self.setdefault(key, delta)
