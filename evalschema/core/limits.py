"""The limits every input is read under. Their values are generated from ``spec/constants.json`` (into
``evalschema_models.constants``, which ``js/src/core/limits.ts`` imports too); this module adds how they are applied.

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

# re-exported (``X as X``): the SDK reads the limits from here
from evalschema_models.constants import INPUT_BYTES_VARIABLE as INPUT_BYTES_VARIABLE
from evalschema_models.constants import MAX_DEPTH as MAX_DEPTH
from evalschema_models.constants import MAX_FINDINGS as MAX_FINDINGS
from evalschema_models.constants import MAX_INPUT_BYTES as MAX_INPUT_BYTES
from evalschema_models.constants import MAX_INPUT_BYTES_CEILING as MAX_INPUT_BYTES_CEILING
from evalschema_models.constants import MAX_VALUE_CHARS as MAX_VALUE_CHARS
from evalschema_models.constants import YAML_NODE_LIMIT as YAML_NODE_LIMIT


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
