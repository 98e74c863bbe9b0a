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
from multiprocessing.connection import Connection, Pipe
from typing import Any

import orjson

from .io import stream
from .io.loader import certainly_exact
from .rules.registry import Stage

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
