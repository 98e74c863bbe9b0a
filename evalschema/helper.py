"""A second process for one result set read in pieces (``validate -j 2`` on one file, ``validate_file(jobs=2)``).

While this process reads the rows and runs the rules on them, the helper checks the same batches against the
schema's first pass (jsonschema-rs: the largest part of the schema stage) and, when a claimed summary is to be
checked, builds the reference summary of the rows. The two halves of the work take about as long, so on two cores
the wall time is near the larger half instead of the sum.

The helper is handed each batch's text — the bytes this process has just read, never the file, so a pipe, or a
file that changes under us, is still read once — and reads it with orjson as the reader did; a batch whose orjson
reading was not certainly exact goes as its exact items, pickled. It answers one byte per batch, in order:
whether the schema's first pass found those rows valid. A batch it does not vouch for goes through the schema
stage here, as it would without a helper, so the report is the same either way (the test suite checks that).

Forked, where ``os.fork`` exists: the child starts with the modules loaded and the screen compiled, and leaves
with ``os._exit``, never returning into the caller's code. Should it fail or be killed, this process notices when
a reply does not come and does the rest of the work itself.
"""

from __future__ import annotations

import os
import pickle
from multiprocessing.connection import Connection, Pipe
from typing import Any

import orjson

from .engine.schema_path import rows_pass_screen
from .rules.registry import Batch
from .summary.stage import ReferenceSummary
from .summary.states import Summary

_VALID, _ASK = b"\x01", b"\x00"
# A batch's text is JSON, which never starts with this byte; a pickle (protocol 2 and later) always does.
_PICKLED = 0x80
_END = b""
# A deeper pipe to the helper (Linux: F_SETPIPE_SZ; up to /proc/sys/fs/pipe-max-size, 1 MiB by default) lets this
# process hand over a few batches ahead instead of waiting for the helper to take each one.
_PIPE_BYTES = 1 << 20
_SET_PIPE_SIZE = 1031  # F_SETPIPE_SZ (fcntl names it from Python 3.10 on Linux only)


def available() -> bool:
    """Whether a helper can be started here (it is forked)."""
    return hasattr(os, "fork")


class RowsHelper:
    """The helper process of one stream of rows: ``hand`` each batch as it is read, then take each ``verdict`` in
    the same order, then ``summary`` (or ``close`` to stop it early)."""

    def __init__(self, kind: str, array: str, version: str | None, *, summary: bool) -> None:
        rows_pass_screen([], kind, array, version)  # compiled before the fork, once, for both processes
        inbox, self._to_helper = Pipe(duplex=False)
        self._from_helper, outbox = Pipe(duplex=False)
        try:
            import fcntl  # POSIX, like fork

            fcntl.fcntl(self._to_helper.fileno(), _SET_PIPE_SIZE, _PIPE_BYTES)
        except OSError:  # not Linux, or a lower system limit: the default depth works, with more waiting
            pass
        self.summarizing = summary
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
                _serve(inbox, outbox, kind, array, version, summary)
                status = 0
            finally:
                os._exit(status)
        inbox.close()
        outbox.close()

    def hand(self, text: bytes | bytearray, items: list[Any] | None = None) -> None:
        """The next batch: its text (comma-separated rows, as read), or, when orjson's reading of it was not the
        exact one, ``items``, the exact reading."""
        if self.failed:
            return
        try:
            if items is None:
                self._to_helper.send_bytes(text)
            else:
                self._to_helper.send_bytes(pickle.dumps(items, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:  # the helper is gone: every verdict from here on is to ask the schema stage
            self._stop()

    def verdict(self) -> bool:
        """Whether the schema's first pass found the next batch valid (in the order they were handed); ``False``
        when it did not, or the helper is gone."""
        if self.failed:
            return False
        try:
            return self._from_helper.recv_bytes() == _VALID
        except (EOFError, OSError):
            self._stop()
            return False

    def summary(self) -> Summary | None:
        """The reference summary of every batch handed, after the last verdict was taken; ``None`` if the helper
        was not asked for one, or is gone. The helper ends here."""
        found: Summary | None = None
        if not self.failed:
            try:
                self._to_helper.send_bytes(_END)
                reply = pickle.loads(self._from_helper.recv_bytes())
                found = reply if isinstance(reply, Summary) else None
            except (EOFError, OSError, pickle.UnpicklingError):
                found = None
        self._stop()
        return found

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


def _serve(inbox: Connection, outbox: Connection, kind: str, array: str, version: str | None, summary: bool) -> None:
    """The helper's loop: a verdict per batch handed, then the reference summary (pickled) when the input ends."""
    reference = ReferenceSummary() if summary else None
    while True:
        try:
            message = inbox.recv_bytes()
        except EOFError:  # the reader stopped early (a problem in the input, or an interruption)
            return
        if message == _END:
            break
        items = pickle.loads(message) if message[0] == _PICKLED else orjson.loads(b"".join((b"[", message, b"]")))
        outbox.send_bytes(_VALID if rows_pass_screen(items, kind, array, version) else _ASK)
        if reference is not None:
            reference.rows(Batch(items))
        del items
    outbox.send_bytes(pickle.dumps(reference.build() if reference is not None else None, protocol=pickle.HIGHEST_PROTOCOL))
