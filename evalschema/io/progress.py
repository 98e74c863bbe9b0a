"""Progress on long reads: one line on a terminal's stderr — bytes read of the total, the rate and the time left —
redrawn at most a few times a second and cleared when the file is closed.

Nothing is drawn unless the CLI called :func:`enable` (it does so only when stderr is a terminal and ``-q`` was not
given), nor for a read that ends within ``PROGRESS_DELAY_SECONDS``, nor in another process than the one that enabled it (the
``-j`` workers are forked: their reads are not the terminal's). Reads are counted where they happen, in the raw file
under the input gate's buffer (:func:`evalschema.io.loader.open_regular`), so every reading style is seen.
"""

from __future__ import annotations

import io
import os
import time
from typing import TextIO

from evalschema_models.constants import PROGRESS_DELAY_SECONDS, PROGRESS_DELAY_VARIABLE

from ..core.display import visible


def _delay() -> float:
    """Seconds before the first line (short reads show nothing): PROGRESS_DELAY_SECONDS, or the variable's number."""
    try:
        return float(os.environ.get(PROGRESS_DELAY_VARIABLE, PROGRESS_DELAY_SECONDS))
    except ValueError:
        return float(PROGRESS_DELAY_SECONDS)


INTERVAL = 0.2  # seconds between redraws
_CLEAR = "\r\x1b[K"

_terminal: TextIO | None = None
_owner: int | None = None


def enable(stream: TextIO) -> None:
    """Draw progress lines on ``stream`` (a terminal) for the reads of this process."""
    global _terminal, _owner
    _terminal, _owner = stream, os.getpid()


def active() -> bool:
    return _terminal is not None and _owner == os.getpid()


def _size(count: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    raise AssertionError("unreachable")  # pragma: no cover


def line(name: str, done: int, total: int, seconds: float) -> str:
    """The progress line for ``done`` of ``total`` bytes read in ``seconds``."""
    rate = done / seconds if seconds > 0 else 0.0
    parts = [f"reading {visible(name)}: {_size(done)} of {_size(total)}"]
    if total > 0:
        parts[0] += f" ({min(100, 100 * done // total)} %)"
    if rate > 0:
        parts.append(f"{_size(rate)}/s")
        if total > done:
            parts.append(f"{(total - done) / rate:.0f} s left")
    return ", ".join(parts)


class WatchedFile(io.FileIO):
    """A file whose reads draw the progress line (see the module's docstring)."""

    def __init__(self, fd: int, name: str, total: int) -> None:
        super().__init__(fd, "rb", closefd=True)
        self._shown_name, self._total = name, total
        self._done = 0
        self._started = time.monotonic()
        self._next = self._started + _delay()
        self._drawn = False

    def readinto(self, buffer: bytearray | memoryview) -> int | None:  # type: ignore[override]
        count = super().readinto(buffer)
        if count:
            self._done += count
            now = time.monotonic()
            if now >= self._next and _terminal is not None and active():
                self._next = now + INTERVAL
                self._drawn = True
                _terminal.write(_CLEAR + line(self._shown_name, self._done, self._total, now - self._started))
                _terminal.flush()
        return count

    def readall(self) -> bytes:
        chunks = []
        while chunk := self.read(1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if self._drawn and _terminal is not None:
            self._drawn = False
            _terminal.write(_CLEAR)
            _terminal.flush()
        super().close()


def opened(fd: int, name: str, total: int) -> io.BufferedReader:
    """The regular file ``fd`` (of ``total`` bytes, named ``name``) as the input gate returns it: watched when
    progress is on."""
    return io.BufferedReader(WatchedFile(fd, name, total), buffer_size=1 << 16)
