"""A second process for one result set read in pieces (``validate -j 2`` on one file, ``validate_file(jobs=2)``).

This process reads the input. Of the batches of rows it finds, it hands some to the helper unread (whenever the
helper has fewer than two to go: ``stream.read``'s ``defer``) and reads and checks the others itself. The helper
reads a batch with orjson, as the reader would have, and runs each stage's ``part`` on its rows — the work that
needs no other row: the schema's check, the rules of a row, the batch's keys and summary — and answers with what
they found. This process ``join``s the parts of every batch in reading order, whoever computed them, so the report
is the one a single process gives (``tests/test_stream.py`` checks that on every document it streams). Parsing and
checking each row happen once, in one of the two processes: on two cores the wall time is near half the work.

The helper is handed each batch's text — the bytes this process has just read, never the file, so a pipe, or a
file that changes under us, is still read once. A batch it does not vouch for — orjson does not read it as a list
of rows (the text is broken there, or the batch's end was no row's end), or its reading is not certainly the exact
one — is read here from its first byte (the reader kept the text: ``stream.resume``), and what was read after it
is dropped. So is every batch still with the helper should it fail or be killed.

Forked, where ``os.fork`` exists: the child starts with the modules loaded, the stages made and the schema
compiled, and leaves with ``os._exit``, never returning into the caller's code.
"""

from __future__ import annotations

import os
import pickle
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe
from typing import Any

import orjson

from .core.findings import Finding
from .io import stream
from .io.loader import certainly_exact
from .rules.registry import Batch, Stage

# A deeper pipe to the helper (Linux: F_SETPIPE_SZ; up to /proc/sys/fs/pipe-max-size, 1 MiB by default) holds two
# batches (256 KiB at most each: ``stream.BATCH_BYTES``), so the helper has the next one as it finishes one.
_PIPE_BYTES = 1 << 20
_SET_PIPE_SIZE = 1031  # F_SETPIPE_SZ (fcntl names it from Python 3.10 on Linux only)
_FRAME_BYTES = 16  # what a message costs in the pipe beyond its bytes (multiprocessing writes a length first)
_REFUSED = b""  # the answer for a batch the helper does not vouch for (an answer is a pickle otherwise)

Parts = tuple[int, list[Any]]  # a batch's row count, and each stage's part of it


def available() -> bool:
    """Whether a helper can be started here (it is forked)."""
    return hasattr(os, "fork")


class RowsHelper:
    """The helper process of one stream of rows, running the ``part`` of the stages ``run`` (this process joins
    them): ``hand`` it batches, take each one's ``answer`` in the same order, then ``close`` it."""

    def __init__(self, run: list[Stage]) -> None:
        for stage in run:
            stage.part([])  # whatever a stage compiles or loads on first use, once, before the fork, for both
        inbox, self._to_helper = Pipe(duplex=False)
        self._from_helper, outbox = Pipe(duplex=False)
        # ``ahead``: how many batches may be with the helper at once — as many as the pipe holds: a batch handed must
        # never wait for room while the helper waits for this process to take a long answer
        self.ahead = 1  # the pipe's depth unknown: one at a time (the helper, idle, takes it at once)
        try:
            import fcntl  # POSIX, like fork

            depth = fcntl.fcntl(self._to_helper.fileno(), _SET_PIPE_SIZE, _PIPE_BYTES)
            self.ahead = max(1, depth // (stream.BATCH_BYTES + _FRAME_BYTES))
        except OSError:  # not Linux, or a lower system limit
            pass
        self.failed = False
        try:
            self.pid = os.fork()
        except OSError:  # no process to be had (a process limit, memory): the caller goes on alone
            for end in (inbox, outbox, self._to_helper, self._from_helper):
                end.close()
            raise
        if self.pid == 0:  # the helper
            status = 70
            try:
                self._to_helper.close()
                self._from_helper.close()
                _serve(inbox, outbox, run)
                status = 0
            finally:
                os._exit(status)
        inbox.close()
        outbox.close()

    def hand(self, text: bytes) -> None:
        """The next batch's text (comma-separated rows, as read). If the helper is gone, its answer is ``None``."""
        if self.failed:
            return
        try:
            self._to_helper.send_bytes(text)
        except OSError:
            self._stop()

    def ready(self) -> bool:
        """Whether the next answer has come (or the helper is gone: then it is ``None``), so ``answer`` will not wait."""
        try:
            return self.failed or self._from_helper.poll()
        except OSError:
            self._stop()
            return True

    def answer(self) -> Parts | None:
        """The next batch's row count and parts (in the order the batches were handed); ``None`` when the helper
        does not vouch for that batch, or is gone (then ``failed``)."""
        if self.failed:
            return None
        try:
            reply = self._from_helper.recv_bytes()
        except (EOFError, OSError):
            self._stop()
            return None
        return None if reply == _REFUSED else pickle.loads(reply)

    def close(self) -> None:
        """Stop the helper (if it still runs) and wait for it to end."""
        self._stop()

    def _stop(self) -> None:
        if self.pid <= 0:
            return
        self.failed = True
        self._to_helper.close()  # the helper reads the end of its input, or fails to answer: either way it leaves
        self._from_helper.close()
        os.waitpid(self.pid, 0)
        self.pid = -1


def _serve(inbox: Connection, outbox: Connection, run: list[Stage]) -> None:
    """The helper's loop: each batch handed read and run through the stages' ``part``, until the input ends."""
    while True:
        try:
            text = inbox.recv_bytes()
        except EOFError:  # this process is done, or stopped early
            return
        try:
            items = orjson.loads(b"".join((b"[", text, b"]")))  # one copy (``+`` makes one per operand)
        except orjson.JSONDecodeError:
            outbox.send_bytes(_REFUSED)
            continue
        if not certainly_exact(text, items, listed=True):
            outbox.send_bytes(_REFUSED)
            continue
        parts = [stage.part(items) for stage in run]
        count = len(items)
        del items  # freed before the answer is written, while the other process reads it
        outbox.send_bytes(pickle.dumps((count, parts), protocol=pickle.HIGHEST_PROTOCOL))


@dataclass
class _Waiting:
    """A batch read, not yet joined: its rows (text, and the row count when known) and each stage's part of it,
    or where it starts when it is with the helper (``parts`` then come from it)."""

    rows: stream.Rows
    count: int
    parts: list[Any] | None
    at: stream.Resume | None = None


class Split:
    """``pipeline.StreamSource.feed_split``'s bookkeeping: the batches of the array ``array`` read, in order, until
    they are joined (``on_rows`` sees each one as it is)."""

    AHEAD = 2  # batches with the helper, unanswered: one it works on, one waiting in the pipe (at most its ``ahead``)
    # batches read and not joined (each holds its text, 256 KiB at most, and the reader keeps its file text from the
    # oldest one), before this process waits: 8 held 4-5 MiB more at 1 GiB and was no faster at 100k (measured)
    WAITING = 4

    def __init__(self, run: list[Stage], array: str, on_rows: Callable[[stream.Rows, list[Finding]], None]) -> None:
        self.run, self.array, self.on_rows = run, array, on_rows
        self.helper: RowsHelper | None = None  # started as the rows begin
        self.waiting: deque[_Waiting] = deque()
        self.handed = 0  # of the waiting batches, those with the helper
        self.joined = 0  # rows joined so far: the next batch's first row

    def defer(self) -> bool:
        """Whether to hand the batch found next to the helper (``stream.read``'s ``defer``)."""
        return self.helper is not None and not self.helper.failed and self.handed < min(self.AHEAD, self.helper.ahead)

    def add(self, piece: stream.Rows | stream.Deferred) -> None:
        if isinstance(piece, stream.Deferred):
            assert self.helper is not None
            self.helper.hand(piece.rows.text.raw)
            self.waiting.append(_Waiting(piece.rows, 0, None, piece.at))
            self.handed += 1
            return
        parts = [stage.part(piece.items) for stage in self.run]
        self.waiting.append(_Waiting(piece, len(piece.items), parts))
        piece.items = []  # the rows are done with: freed now, not when the batch is joined

    def settle(self, *, everything: bool) -> Iterator[stream.Piece] | None:
        """Join the waiting batches that can be, in order (``everything``: all of them, waiting for the helper;
        otherwise those ready, and more only when too many wait). If the helper did not vouch for one, the
        pieces from its first byte on, read again here: the later batches are dropped."""
        while self.waiting:
            oldest = self.waiting[0]
            if oldest.parts is None:
                assert self.helper is not None and oldest.at is not None
                if not everything and len(self.waiting) < self.WAITING and not self.helper.ready():
                    return None
                answer = self.helper.answer()
                self.handed -= 1
                if answer is None:
                    return self._resume(oldest.at)
                oldest.count, oldest.parts = answer
                stream.settled(oldest.at)
            self.waiting.popleft()
            oldest.rows.start = self.joined
            batch = Batch([], self.joined, oldest.rows.positions)
            self.on_rows(oldest.rows, [f for stage, part in zip(self.run, oldest.parts) for f in stage.join(part, batch)])
            self.joined += oldest.count
        return None

    def _resume(self, at: stream.Resume) -> Iterator[stream.Piece]:
        assert self.helper is not None
        if not self.helper.failed:
            for _ in range(self.handed):  # the helper's answers for the batches dropped
                self.helper.answer()
        self.waiting.clear()
        self.handed = 0
        return stream.resume(at, self.array, self.joined, self.defer)
