"""The output gate: every command that writes files asks one :class:`Outputs` for them.

A command names its inputs and its outputs once, before any work; the gate refuses at once (:class:`Refused`, an
``OSError``: exit 2, the user's path named) an output that is

- a device, a FIFO, a socket, a folder or a symbolic link (it is never opened: a FIFO would block),
- an existing file the user may not write (tried with a non-blocking open for writing that changes nothing),
- in a folder that does not exist or is not a folder (the folder is named),
- one of the command's inputs (compared by device and inode: a hard link or a link to it counts too),
- the same file as another output of the same command.

Each output is written to a temporary file in its target's folder (created at once, so a folder the user may not
write is refused before any work). When the command's block ends without error every temporary file is flushed to
disk and only then renamed over its target, all of them (an existing target is linked aside first, so a rename
that fails puts back the ones already made): several outputs appear together or not at all. An output the command
never asked for (:meth:`Outputs.stream`, :meth:`Outputs.folder`) is not created: a command that refuses its input
and returns leaves every target as it was. New files get the
mode ``open()`` would give them (0666 less the umask), an existing file keeps its mode. On any error, on SIGINT
and on SIGTERM the temporary files are removed; no message names one. A write that fails (a full disk) is
:class:`WriteFailed`, naming the user's path.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import shutil
import signal
import stat
import threading
from collections.abc import Iterable
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from ..core.display import display_path, visible

__all__ = ["Outputs", "Refused", "WriteFailed", "shown"]


def shown(path: str | os.PathLike[str]) -> str:
    """A path as a message shows it: escaped (text gate), bytes that are not UTF-8 as U+FFFD."""
    return visible(display_path(os.fspath(path)))


class Refused(OSError):
    """An output the gate will not write; nothing was written. ``path``: as the user gave it."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(errno.EINVAL, reason, shown(path))
        self.path, self.reason = os.fspath(path), reason

    def __str__(self) -> str:
        return f"{self.filename}: {self.reason}"


class WriteFailed(OSError):
    """Writing an output failed (a full disk, an I/O error); every temporary file is removed, no target changed."""

    def __init__(self, path: str | os.PathLike[str], cause: OSError) -> None:
        # the system's words for the error first: a library's text for it may name the temporary file
        reason = cause.strerror or (os.strerror(cause.errno) if cause.errno else str(cause) or "the write failed")
        super().__init__(cause.errno or errno.EIO, reason, shown(path))
        self.path, self.reason = os.fspath(path), reason

    def __str__(self) -> str:
        return f"{self.filename}: cannot write: {self.reason}"


def _kind(mode: int) -> str:
    """What a path that is not a regular file is, for the refusal."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a socket" if stat.S_ISSOCK(mode) else "not a file"


def _umask() -> int:
    current = os.umask(0o022)  # reading the umask means setting it: set it straight back
    os.umask(current)
    return current


class _Stream(io.BufferedWriter):
    """A temporary file as the command sees it: a failed write names the user's path, never the temporary one."""

    def __init__(self, fd: int, target: str) -> None:
        super().__init__(io.FileIO(fd, "wb", closefd=True))
        self._target = target

    def write(self, data: Any) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            raise WriteFailed(self._target, exc) from None

    def flush(self) -> None:
        try:
            super().flush()
        except OSError as exc:
            raise WriteFailed(self._target, exc) from None


class _Output:
    __slots__ = ("given", "key", "staging", "stream", "target", "temporary", "used")

    def __init__(self, given: str, target: Path, key: tuple[Any, ...]) -> None:
        self.given, self.target, self.key = given, target, key
        self.temporary: Path | None = None  # a file's temporary file (registered before it is created)
        self.staging: Path | None = None  # a new folder's staging folder
        self.stream: _Stream | None = None
        self.used = False  # whether the command asked for it: one it never asked for is not created


# Every temporary path of every open gate, for the signal handler (which may run between any two bytecodes).
_LIVE: dict[int, Outputs] = {}
_PREVIOUS: dict[int, Any] = {}
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _remove(path: Path, folder: bool = False) -> None:
    with contextlib.suppress(OSError):
        if folder:
            shutil.rmtree(path)
        else:
            path.unlink()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """Remove every temporary file, then do what the signal would have done without the gate."""
    for gate in list(_LIVE.values()):
        gate.abandon()
    previous = _PREVIOUS.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)  # Python's own SIGINT handler raises KeyboardInterrupt
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _watch(gate: Outputs) -> None:
    if not _LIVE and threading.current_thread() is threading.main_thread():
        for signum in _SIGNALS:
            previous = signal.getsignal(signum)
            if previous is signal.SIG_IGN or previous is None:
                continue  # an ignored signal stays ignored; one set outside Python is left alone
            _PREVIOUS[signum] = previous
            signal.signal(signum, _on_signal)
    _LIVE[id(gate)] = gate


def _unwatch(gate: Outputs) -> None:
    _LIVE.pop(id(gate), None)
    if not _LIVE and threading.current_thread() is threading.main_thread():
        for signum, previous in list(_PREVIOUS.items()):
            if signal.getsignal(signum) is _on_signal:
                signal.signal(signum, previous)
            del _PREVIOUS[signum]


def _identity(path: Path) -> tuple[Any, ...] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return (info.st_dev, info.st_ino)


def _temporary_name(target: Path, ending: str) -> Path:
    # a short, hidden name beside the target (a long target name must not make it too long to create)
    return target.with_name(f".{target.name[:64]}.{secrets.token_hex(6)}{ending}")


class Outputs:
    """One command's outputs, checked together against its inputs; used as a context manager.

    ``files``: paths to write a file at; ``folders``: paths to create a new folder at (they must not exist);
    ``inputs``: every file the command reads (so that no output replaces one). On leaving the ``with`` block
    without error, every output appears; with an error, none does."""

    def __init__(
        self,
        files: Iterable[str | os.PathLike[str]] = (),
        *,
        folders: Iterable[str | os.PathLike[str]] = (),
        inputs: Iterable[str | os.PathLike[str]] = (),
    ) -> None:
        self._outputs: dict[str, _Output] = {}
        self._done = False
        self._folders: set[str] = set()
        read = {key: os.fspath(p) for p in inputs if (key := _identity(Path(p))) is not None}
        seen: dict[tuple[Any, ...], str] = {}
        planned = [(os.fspath(p), False) for p in files] + [(os.fspath(p), True) for p in folders]
        for given, folder in planned:
            output = self._check(given, folder)
            if output.key in read:
                raise Refused(given, "is an input; the output would replace it")
            if output.key in seen:
                raise Refused(given, f"is also the output {shown(seen[output.key])}: each output needs a path of its own")
            seen[output.key] = given
            self._outputs[given] = output
            if folder:
                self._folders.add(given)
        if self._outputs:  # a command without outputs this time (no --html) leaves the signals alone
            _watch(self)
        try:
            for output in self._outputs.values():
                self._stage(output)
        except BaseException:
            self.abandon()
            raise

    @staticmethod
    def _check(given: str, folder: bool) -> _Output:
        path = Path(given)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            mode = None
        except NotADirectoryError:
            raise Refused(path.parent, "not a folder") from None
        except (OSError, ValueError) as exc:
            raise Refused(given, getattr(exc, "strerror", None) or str(exc)) from None
        parent = path.parent
        if mode is None:
            try:
                parent_mode = os.stat(parent).st_mode
            except FileNotFoundError:
                raise Refused(parent, "no such folder") from None
            except OSError as exc:
                raise Refused(parent, exc.strerror or str(exc)) from None
            if not stat.S_ISDIR(parent_mode):
                raise Refused(parent, "not a folder")
            real_parent = Path(os.path.realpath(parent))
            return _Output(given, real_parent / path.name, ("new", str(real_parent), path.name))
        if folder:
            raise Refused(given, "exists")
        if stat.S_ISLNK(mode):
            raise Refused(given, "is a symbolic link; name the file itself")
        if not stat.S_ISREG(mode):
            raise Refused(given, f"not a regular file ({_kind(mode)}); an output goes to a regular file or a new path")
        try:  # may the user write it? An open for writing that neither truncates nor blocks changes nothing
            os.close(os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)))
        except OSError as exc:
            raise Refused(given, exc.strerror or str(exc)) from None
        info = os.stat(path)
        return _Output(given, Path(os.path.realpath(path)), (info.st_dev, info.st_ino))

    def _stage(self, output: _Output) -> None:
        """Create the output's temporary file (or staging folder) now: a folder the user may not write is refused
        before the command does any work."""
        given = output.given
        try:
            if given in self._folders:
                output.staging = _temporary_name(output.target, ".partial")
                output.staging.mkdir()
                return
            output.temporary = _temporary_name(output.target, ".tmp")
            fd = os.open(output.temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
        except OSError as exc:  # the folder, as the user named it (never the temporary name)
            output.temporary = output.staging = None
            raise Refused(Path(given).parent, exc.strerror or str(exc)) from None
        output.stream = _Stream(fd, given)

    # --- what the command uses ----------------------------------------------------------------------------------

    def stream(self, path: str | os.PathLike[str]) -> io.BufferedWriter:
        """The binary stream to write the output ``path`` to (one of the files named when the gate was made)."""
        output = self._outputs[os.fspath(path)]
        stream, output.used = output.stream, True
        if stream is None:
            raise ValueError(f"{shown(path)}: not a file output of this command")
        return stream

    def folder(self, path: str | os.PathLike[str]) -> Path:
        """The staging folder to fill for the new folder ``path`` (renamed to ``path`` on success)."""
        output = self._outputs[os.fspath(path)]
        staging, output.used = output.staging, True
        if staging is None:
            raise ValueError(f"{shown(path)}: not a folder output of this command")
        return staging

    def write(self, path: str | os.PathLike[str], data: bytes) -> None:
        self.stream(path).write(data)

    def write_in(self, folder: str | os.PathLike[str], relative: str | os.PathLike[str], data: bytes) -> None:
        """Write the file ``relative`` (subfolders made as needed) inside the new folder output ``folder``; a
        failure (a full disk) names ``folder/relative`` as the user will see it, never the staging folder."""
        staged = self.folder(folder) / relative
        try:
            staged.parent.mkdir(parents=True, exist_ok=True)
            with open(staged, "xb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())  # on disk before the folder is renamed into place, as a file output is
        except OSError as exc:
            raise WriteFailed(Path(folder) / relative, exc) from None

    def written(self, path: str | os.PathLike[str]) -> Path:
        """The file written so far for the output ``path``, flushed, to read back before it is committed (a
        converter validates what it is about to write). Never shown to the user: messages name ``path``."""
        output = self._outputs[os.fspath(path)]
        if output.stream is None or output.temporary is None:
            raise ValueError(f"{shown(path)}: not a file output of this command")
        output.stream.flush()
        return output.temporary

    def commit(self) -> None:
        """Flush every output to disk, then rename them all into place (putting back those already renamed if
        one rename fails)."""
        if self._done:
            return
        umask = _umask()
        try:
            self._drop_unused()
            for output in self._outputs.values():
                if output.stream is not None:
                    output.stream.flush()
                    try:
                        existing = os.stat(output.target).st_mode & 0o7777
                    except FileNotFoundError:
                        existing = 0o666 & ~umask
                    try:
                        os.fchmod(output.stream.fileno(), existing)
                        os.fsync(output.stream.fileno())
                    except OSError as exc:
                        raise WriteFailed(output.given, exc) from None
                    output.stream.close()
            self._rename_all()
        except BaseException:
            self.abandon()
            raise
        self._done = True
        _unwatch(self)

    def _rename_all(self) -> None:
        done: list[tuple[_Output, Path | None]] = []
        backups: list[Path] = []
        try:
            for output in self._outputs.values():
                source = output.temporary or output.staging
                assert source is not None
                backup: Path | None = None
                if output.temporary is not None and output.target.exists():
                    backup = _temporary_name(output.target, ".old")
                    try:
                        os.link(output.target, backup)
                        backups.append(backup)
                    except OSError:  # a file system without hard links: no way back for this one
                        backup = None
                if output.staging is not None and output.target.exists():
                    raise Refused(output.given, "exists")  # appeared while the command ran
                try:
                    os.replace(source, output.target) if output.temporary is not None else os.rename(source, output.target)
                except OSError as exc:
                    raise WriteFailed(output.given, exc) from None
                output.temporary = output.staging = None
                done.append((output, backup))
        except BaseException:
            for output, backup in reversed(done):
                with contextlib.suppress(OSError):
                    if backup is not None:
                        os.replace(backup, output.target)
                    else:
                        _remove(output.target, folder=output.given in self._folders)
            raise
        finally:
            for backup in backups:
                _remove(backup)
        for folder in {o.target.parent for o in self._outputs.values()}:
            with contextlib.suppress(OSError):  # the renames themselves on disk (not every system can sync a folder)
                fd = os.open(folder, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

    def _drop_unused(self) -> None:
        """Forget the outputs the command never asked for (it decided not to write them, e.g. it refused its
        input): their temporary files go and their targets stay as they were."""
        for given, output in list(self._outputs.items()):
            if not output.used:
                if output.stream is not None:
                    with contextlib.suppress(OSError, ValueError):
                        output.stream.close()
                if output.temporary is not None:
                    _remove(output.temporary)
                if output.staging is not None:
                    _remove(output.staging, folder=True)
                del self._outputs[given]

    def abandon(self) -> None:
        """Remove every temporary file and staging folder; no target is touched."""
        for output in self._outputs.values():
            if output.stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    output.stream.close()  # the raw file is closed even when flushing the rest fails
                output.stream = None
            if output.temporary is not None:
                _remove(output.temporary)
                output.temporary = None
            if output.staging is not None:
                _remove(output.staging, folder=True)
                output.staging = None
        if not self._done:
            self._done = True
            _unwatch(self)

    def __enter__(self) -> Outputs:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, trace: TracebackType | None) -> None:
        if kind is None:
            self.commit()
        else:
            self.abandon()
