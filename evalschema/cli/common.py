"""What the ``evalschema`` command and its subcommands share: the usage error, writing to a stream that may be
gone, the exit statuses, the expanded paths, the output check, and a source's entries under the command's options
(``evalschema.sources``). A module of its own so that a subcommand's module imports it, never the package's
``__init__`` (which imports the subcommands: no cycle)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from evalschema_models import constants

from ..io.loader import Loaded, expand
from ..sources import Checking, Entry, json_file, source_entries

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = constants.EXIT_OK, constants.EXIT_INVALID, constants.EXIT_UNREADABLE


class UsageError(Exception):
    pass


def write(text: str, stream: TextIO | None = None) -> None:
    """Write; if the reader has gone away (``| head``), stop writing but keep the exit status."""
    stream = stream or sys.stdout
    if stream is None:  # started with the stream closed (>&-): there is no one to tell
        return
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    except (OSError, ValueError):  # a stream open read-only, or closed under us: the exit status still tells
        pass


UNREADABLE_CODES = frozenset(constants.UNREADABLE_CODES)


STREAM_CHOICES: dict[str, bool | None] = constants.STREAM_CHOICES


def json_path(source: Path | str, form: str | None) -> Path | None:
    """The path, if this source is a JSON file (by extension or ``--input-format json``), to read by path."""
    return json_file(source, form)


def sources_of(args: argparse.Namespace) -> list[Path | str]:
    """The command's paths expanded (files, folders, globs, ``-``), once: every later step takes this list."""
    if getattr(args, "sources", None) is None:
        args.sources = list(expand(args.paths))
    sources: list[Path | str] = args.sources
    return sources


def skipped(source: Path | str, args: argparse.Namespace) -> bool:
    """Whether ``--only-declared`` leaves this source out: a file that does not declare itself ours."""
    if not getattr(args, "only_declared", False):
        return False
    from ..schemas.selection import declared

    return isinstance(source, Path) and source.is_file() and not declared(source)


def checking(args: argparse.Namespace) -> Checking:
    """What the command's options ask of each document."""
    return Checking(
        kind=args.kind,
        strict=args.strict,
        allow_unknown=args.allow_unknown,
        engine=args.engine,
        spec_version=args.spec_version,
        input_format=args.input_format,
        stream_rows=STREAM_CHOICES[args.stream],
    )


def source_reports(
    source: Path | str, args: argparse.Namespace, suite: dict[str, Any] | None, documents: Iterator[Loaded] | None = None
) -> Iterator[Entry]:
    """The entries of one source (``documents``: its documents when already read, e.g. a range of JSON Lines, whose
    file name was checked), unless ``--only-declared`` leaves it out: ``evalschema.sources.source_entries``."""
    if documents is None and skipped(source, args):
        return
    yield from source_entries(source, checking(args), suite, documents)
