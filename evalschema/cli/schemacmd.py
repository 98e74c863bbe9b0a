"""``evalschema schema KIND``: print a bundled single-file schema, for validators and editors that cannot resolve
our ``$id``s (every ``$ref`` in it is local; nothing is fetched). ``--catalog`` prints the SchemaStore-style
catalog that maps file-name patterns to the schemas; ``--dir`` prints the folder that holds them all."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..schemas.registry import KINDS, bundled_dir


def run(args: argparse.Namespace) -> int:
    folder = bundled_dir()
    if args.dir:
        sys.stdout.write(f"{folder}\n")
        return 0
    name = "catalog.json" if args.catalog else f"{args.kind}.json"
    sys.stdout.write((folder / name).read_text(encoding="utf-8"))
    return 0


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``schema`` on the ``evalschema`` command's subparsers; the handler is ``args.handler``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "schema", help="print a bundled single-file schema (for check-jsonschema, Ajv, editors)", description=__doc__
    )
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("kind", nargs="?", choices=KINDS, help="the document kind")
    which.add_argument("--catalog", action="store_true", help="the catalog of file-name patterns (SchemaStore format)")
    which.add_argument("--dir", action="store_true", help="the folder holding the bundled schemas and the catalog")
    p.set_defaults(handler=run)
    return p
