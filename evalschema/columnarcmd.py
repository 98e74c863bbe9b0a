"""``evalschema export --to parquet|arrow`` and ``evalschema import --from parquet|arrow``: result sets as columns
(see ``evalschema.columnar``).

``export`` reads result sets (JSON files, streamed; JSON Lines files, one result set per line; folders) and writes a
folder of three tables: ``runs``, ``results`` and ``grader_results``. ``import`` reads such a folder back and writes
the result sets as JSON (one) or JSON Lines (several), each equal to the one exported. Exit status: 0 done, 2 an input
that cannot be read or is not a result set, a missing extra, or an output that exists (nothing is written then).

These are the columnar formats of the ``import`` / ``export`` subcommands: ``add_parsers`` registers them on their
own; where ``import`` / ``export`` already exist, ``export`` and ``read`` are the functions to call for these formats.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

FORMATS = ("parquet", "arrow")
EXIT_OK, EXIT_UNREADABLE = 0, 2


def export(args: argparse.Namespace) -> int:
    from . import columnar
    from .loader import expand

    paths = [p for p in expand(args.paths) if isinstance(p, Path)]
    try:
        count = columnar.export_files(paths, args.output, args.to)
    except (columnar.Unexportable, FileExistsError, OSError) as exc:
        sys.stderr.write(f"evalschema: {exc}; nothing was written\n")
        return EXIT_UNREADABLE
    sys.stderr.write(f"wrote {count} result set(s) to {args.output}\n")
    return EXIT_OK


def import_(args: argparse.Namespace) -> int:
    from . import columnar
    from .atomic import write_atomic

    try:
        documents = list(columnar.read(args.folder))
    except (OSError, ValueError) as exc:  # pyarrow's errors for a file that is not Parquet/Arrow are ValueErrors
        sys.stderr.write(f"evalschema: {args.folder}: cannot read as {args.from_}: {exc}\n")
        return EXIT_UNREADABLE
    lines = [json.dumps(d, ensure_ascii=False) for d in documents]
    write_atomic(args.output, ("\n".join(lines) + "\n").encode("utf-8"))
    return EXIT_OK


def add_parsers(subparsers: Any) -> None:
    """Register ``export`` and ``import`` on the ``evalschema`` command's subparsers."""
    p = subparsers.add_parser("export", help="write result sets as columnar tables (Parquet or Arrow)")
    p.add_argument("paths", nargs="+", metavar="RESULTSET")
    p.add_argument("--to", choices=FORMATS, required=True)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FOLDER", help="a new folder")
    p.set_defaults(handler=export)
    p = subparsers.add_parser("import", help="read result sets back from columnar tables")
    p.add_argument("folder", type=Path, metavar="FOLDER")
    p.add_argument("--from", dest="from_", choices=FORMATS, required=True)
    p.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="JSON (one result set) or JSON Lines")
    p.set_defaults(handler=import_)
