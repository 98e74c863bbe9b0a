"""Replace a file atomically: readers see the old content or the new, never a half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _umask() -> int:
    """The process's umask (reading it means setting it: set it straight back)."""
    current = os.umask(0o022)
    os.umask(current)
    return current


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, flush it to disk, then rename it over ``path``.

    An existing file keeps its mode; a new one gets the mode ``open()`` would give it (0666 less the umask), not
    the 0600 of the temporary file."""
    path = Path(path)
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or Path("."))
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
