"""The committed allow-list of third-party validator bugs (tests/oracle_allowlist.json), shared by the oracle test
and the README-recipe test: an oracle's verdict that differs is excused only when the document holds a string
(a key or a value) that fully matches an entry of that oracle."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ENTRIES: list[dict[str, str]] = json.loads((Path(__file__).with_name("oracle_allowlist.json")).read_text(encoding="utf-8"))["entries"]


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def excuse(oracle: str, document: Any) -> int | None:
    """The index of the entry that excuses ``oracle``'s verdict on ``document``, if one does."""
    for index, entry in enumerate(ENTRIES):
        if entry["oracle"] == oracle and any(re.fullmatch(entry["strings"], s, re.DOTALL) for s in strings(document)):
            return index
    return None


def stale(oracles: set[str], used: set[int]) -> list[dict[str, str]]:
    """Entries of these oracles that excused nothing in a run (fixed upstream? then remove them)."""
    return [entry for index, entry in enumerate(ENTRIES) if entry["oracle"] in oracles and index not in used]
