"""Which files are evalschema documents, for tools that are handed every JSON and YAML file of a repository
(the pre-commit hook, ``evalschema validate --only-declared``).

A file declares itself in one of two ways (README, "pre-commit"):
- by its name: the file-name patterns of the schema catalog (``*.resultset.json``, ``*.pack.yaml``, …; a JSON
  Lines file follows the JSON name: ``*.resultset.jsonl``, ``*.resultset.ndjson``);
- by its content: a ``$schema`` naming a schema of this specification or of a compatible format, in the first
  64 KiB of the file (where a document's ``$schema`` stands; for JSON Lines, on the first lines).
Anything else (``package.json``, ``tsconfig.json``, a CI workflow) is not ours and is left alone.
"""

from __future__ import annotations

import json
import re
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path

from ..core.findings import Finding
from ..io.loader import open_regular
from .identify import schema_uri_kind
from .registry import bundled_dir

HEAD = 64 * 1024
_JSON_LINES = (".jsonl", ".ndjson")
# `"$schema": "<uri>"` in JSON, and `$schema: <uri>` (quoted or not) in YAML
_SCHEMA_ENTRY = rb"""["']?\$schema["']?\s*:\s*["']?(?P<uri>[^\s"',}]+)"""  # compiled on first use (--only-declared)


@cache
def name_patterns() -> tuple[str, ...]:
    """The file-name patterns of the bundled schema catalog (``catalog.json``)."""
    catalog = json.loads((bundled_dir() / "catalog.json").read_text(encoding="utf-8"))
    return tuple(pattern for entry in catalog["schemas"] for pattern in entry["fileMatch"])


def named(path: Path) -> bool:
    name = path.name
    for suffix in _JSON_LINES:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)] + ".json"
    return any(fnmatchcase(name, pattern) for pattern in name_patterns())


def declares_schema(path: Path) -> bool:
    handle = open_regular(path)  # the input gate: a FIFO or a device is never read (it would block or never end)
    if isinstance(handle, Finding):
        return False
    try:
        with handle:
            head = handle.read(HEAD)
    except OSError:
        return False
    return any(schema_uri_kind(m["uri"].decode("utf-8", "replace")) for m in re.finditer(_SCHEMA_ENTRY, head))


def declared(path: Path) -> bool:
    """Whether the file declares itself an evalschema document, by its name or by a ``$schema``."""
    return named(path) or declares_schema(path)
