"""Replace one file atomically through the output gate (:class:`evalschema.io.gate.Outputs`): readers see the old
content or the new, never a half-written file."""

from __future__ import annotations

import os
from collections.abc import Iterable

from .gate import Outputs


def write_atomic(path: str | os.PathLike[str], data: bytes, *, inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Write ``data`` to ``path`` through the output gate (refused, as ``Refused``, when ``path`` is a device, a
    FIFO, a folder, a symbolic link, one of ``inputs``, or in a folder that does not exist). An existing file keeps
    its mode; a new one gets 0666 less the umask."""
    with Outputs([path], inputs=inputs) as outputs:
        outputs.write(path, data)
