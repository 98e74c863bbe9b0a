"""``python -m codegen generate|check [--schemas DIR] [--out DIR] [--config PYPROJECT]``.

Defaults come from the ``[tool.codegen]`` table of ``./pyproject.toml`` when there is one (``schemas``,
``out``, ``catalogs``, and ``layout``: a target's folder inside ``out``, e.g. ``python = "python/mypkg"`` to
make the Python output an importable package), else ``schemas/`` and ``generated/``. Exit status: 0 ok, 1 generated files are stale
(check), 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .catalog import load_catalog, load_config
from .ir import build
from .load import SchemaError, load
from .write import UnsafePath, diff_trees, read_tree, render_all, write_tree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen", description="Generate code and docs from a JSON Schema folder.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (("generate", "write the generated tree to --out"), ("check", "compare --out with a fresh render; never writes")):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--schemas", type=Path, help="schema folder (default: schemas/)")
        p.add_argument("--out", type=Path, help="output folder (default: generated/)")
        p.add_argument("--config", type=Path, default=Path("pyproject.toml"), help="pyproject.toml with a [tool.codegen] table")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors already; keep 0 for --help
        return int(exc.code or 0)
    try:
        config = load_config(args.config)
        base = args.config.parent
        args.schemas = args.schemas or base / config.get("schemas", "schemas")
        args.out = args.out or base / config.get("out", "generated")
        # catalogs belong to the project's own layout: only with its schema folder
        own_layout = args.schemas.resolve() == (base / config.get("schemas", "schemas")).resolve()
        catalogs = tuple(load_catalog(spec, base) for spec in config.get("catalogs", ())) if own_layout else ()
        schemas = load(args.schemas)
        layout = config.get("layout", {}) if own_layout else {}
        tree = render_all(build(schemas), schemas, catalogs, layout)
    except SchemaError as exc:
        print(f"error: {exc.file}#{exc.pointer}: {exc.message}", file=sys.stderr)
        return 2
    except UnsafePath as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "generate":
        write_tree(tree, args.out)
        print(f"wrote {len(tree)} files to {args.out}")
        return 0
    diffs = diff_trees(tree, read_tree(args.out), args.out.as_posix().rstrip("/"))
    if diffs:
        sys.stdout.write("".join(diffs))
        print(f"{len(diffs)} generated file(s) out of date; run: python -m codegen generate", file=sys.stderr)
        return 1
    print(f"{args.out}: up to date ({len(tree)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
