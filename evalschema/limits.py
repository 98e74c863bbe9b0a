"""The limits every input is read under: one place, mirrored by ``js/src/limits.ts`` (a test checks they are equal).

- ``MAX_INPUT_BYTES``: the most evalschema holds of one input at a time — a file or stdin read whole, one
  JSON Lines line, one member or row of a result set read in pieces. Larger input is refused *while it is
  read* (FILE_UNREADABLE), whatever the file system says its size is. ``EVALSCHEMA_MAX_INPUT_BYTES`` changes it.
- ``MAX_FINDINGS``: findings listed per document (errors and warnings together); the rest are counted.
- ``YAML_NODE_LIMIT``: nodes in one YAML document, as written and as its aliases expand it.
- ``MAX_VALUE_CHARS``: a value quoted in a message (a key, a string, a file name) is shortened to this many
  characters.
"""

from __future__ import annotations

import os

MAX_INPUT_BYTES = 128 << 20
MAX_INPUT_BYTES_CEILING = 1 << 30  # the variable can raise the limit this far, no further
MAX_FINDINGS = 1000
MAX_VALUE_CHARS = 200
# A YAML document (Python only: the TypeScript SDK reads JSON) may have at most this many nodes, as written and as
# its aliases expand it; JSON documents are bounded by the input size limit alone.
YAML_NODE_LIMIT = 1_500_000
INPUT_BYTES_VARIABLE = "EVALSCHEMA_MAX_INPUT_BYTES"


def max_input_bytes() -> int:
    """``MAX_INPUT_BYTES``, or the positive whole number in ``EVALSCHEMA_MAX_INPUT_BYTES`` (anything else in it is
    ignored: a limit is never lifted by a typo), at most ``MAX_INPUT_BYTES_CEILING``."""
    text = os.environ.get(INPUT_BYTES_VARIABLE, "").strip()
    if text.isascii() and text.isdigit() and 0 < len(text) <= 15 and int(text) > 0:
        return min(int(text), MAX_INPUT_BYTES_CEILING)
    return MAX_INPUT_BYTES


def too_large_message(limit: int) -> str:
    return f"larger than the input size limit of {limit:,} bytes ({INPUT_BYTES_VARIABLE} sets it)"


def shorten(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    """``text``, cut to ``limit`` characters with a note of how many were left out."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit:,} more characters)"
