"""``python -m codegen generate|check [--schemas DIR] [--out DIR] [--config PYPROJECT]``.

Also ``diff OLD NEW`` (classified changes between two schema folders; exit 1 when any is breaking), ``policy``
(version and deprecation policy of a releases folder and the working schemas; exit 1 on a violation),
``changelog`` (Markdown from a releases folder; ``--check`` compares with a file) and ``release`` (copy the
working schemas into a new, never overwritten, release folder with a manifest). See ``codegen/diff.py`` and
``codegen/policy.py``.

Defaults come from the ``[tool.codegen]`` table of ``./pyproject.toml`` when there is one (``schemas``,
``out``, ``catalogs``, ``retrieval`` (URL -> file of the schema folder; also ``--retrieve URL=FILE``, see
``codegen/load.py``), and ``layout``: a target's folder inside ``out``, e.g. ``python = "python/mypkg"`` to
make the Python output an importable package), else ``schemas/`` and ``generated/``. Exit status: 0 ok, 1 generated files are stale
(check), 2 bad input or usage.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import difflib
import sys
from pathlib import Path

from . import changelog, diff, embed, policy
from .catalog import load_catalog, load_config
from .ir import build
from .load import SchemaError, load
from .write import UnsafePath, diff_trees, read_tree, render_all, write_tree

RELEASE_COMMANDS = ("diff", "policy", "changelog", "release")


def _date(text: str) -> _dt.date:
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


def add_release_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("diff", help="classify the changes between two schema folders; never writes")
    p.add_argument("old", type=Path, help="old schema folder (a release folder's manifest.json is skipped)")
    p.add_argument("new", type=Path, help="new schema folder")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--today", type=_date, help="date that decides whether a deprecation window is over (default: today)")
    p.add_argument(
        "--expect-version-pins",
        action="store_true",
        help="a field pinned to the schema's version (AsyncAPI's asyncapi: const 2.6.0) changing is expected, not breaking",
    )
    p = sub.add_parser("policy", help="check releases and the working schemas against the version policy; never writes")
    p.add_argument("--releases", type=Path, required=True, help="folder of <version>/ release folders")
    p.add_argument("--schemas", type=Path, help="working schema folder (default: only the releases are checked)")
    p.add_argument("--today", type=_date, help="date that decides whether a deprecation window is over (default: today)")
    p = sub.add_parser("changelog", help="render a Markdown changelog from a releases folder")
    p.add_argument("--releases", type=Path, required=True)
    p.add_argument("--out", type=Path, help="write here (default: print)")
    p.add_argument("--check", action="store_true", help="compare with --out instead of writing; exit 1 when it differs")
    p = sub.add_parser("release", help="copy the working schemas into <releases>/<version>/ with a manifest; never overwrites")
    p.add_argument("--schemas", type=Path, required=True)
    p.add_argument("--releases", type=Path, required=True)
    p.add_argument("--date", type=_date, help="release date (default: today)")


def run_release_command(args: argparse.Namespace) -> int:
    try:
        if args.command == "diff":
            report = diff.diff(args.old, args.new, args.today, expect_version_pins=args.expect_version_pins)
            sys.stdout.write(report.to_json() if args.format == "json" else report.to_text())
            return 1 if report.breaking else 0
        if args.command == "policy":
            if not args.releases.is_dir():
                print(f"error: {args.releases}: no such releases folder", file=sys.stderr)
                return 2
            problems = policy.check(args.releases, args.schemas, args.today)
            for problem in problems:
                print(problem)
            print(f"policy: {len(problems)} violation(s)" if problems else "policy: ok", file=sys.stderr)
            return 1 if problems else 0
        if args.command == "changelog":
            text = changelog.render(args.releases)
            if args.check:
                if args.out is None:
                    print("error: --check needs --out", file=sys.stderr)
                    return 2
                current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
                if current != text:
                    print(
                        f"{args.out} is out of date; run: python -m codegen changelog --releases {args.releases} --out {args.out}",
                        file=sys.stderr,
                    )
                    return 1
                print(f"{args.out}: up to date")
                return 0
            if args.out is None:
                sys.stdout.write(text)
            else:
                args.out.write_text(text, encoding="utf-8")
                print(f"wrote {args.out}")
            return 0
        # release
        problems = policy.check(args.releases, args.schemas, args.date)
        if problems:
            for problem in problems:
                print(problem)
            print("release refused: the version policy does not hold", file=sys.stderr)
            return 1
        target = policy.cut_release(args.schemas, args.releases, (args.date or _dt.date.today()).isoformat())
        print(f"released {target}")
        return 0
    except SchemaError as exc:
        print(f"error: {exc.file}#{exc.pointer}: {exc.message}", file=sys.stderr)
        return 2
    except (FileExistsError, OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m codegen", description="Generate code and docs from a JSON Schema folder.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in (
        ("generate", "write the generated tree to --out"),
        ("check", "compare --out with a fresh render; never writes"),
    ):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--schemas", type=Path, help="schema folder (default: schemas/)")
        p.add_argument("--out", type=Path, help="output folder (default: generated/)")
        p.add_argument("--config", type=Path, default=Path("pyproject.toml"), help="pyproject.toml with a [tool.codegen] table")
        p.add_argument("--go-package", help="Go package name (default: [tool.codegen.options.go] package, else the schema folder's name)")
        p.add_argument(
            "--retrieve",
            action="append",
            default=[],
            metavar="URL=FILE",
            help="this URL is that file of the schema folder (URL/=PREFIX/: a URL prefix for a file-name prefix); beside [tool.codegen.retrieval]",
        )
    add_release_parsers(sub)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors already; keep 0 for --help
        return int(exc.code or 0)
    if args.command in RELEASE_COMMANDS:
        return run_release_command(args)
    try:
        config = load_config(args.config)
        base = args.config.parent
        args.schemas = args.schemas or base / config.get("schemas", "schemas")
        args.out = args.out or base / config.get("out", "generated")
        # catalogs belong to the project's own layout: only with its schema folder
        own_layout = args.schemas.resolve() == (base / config.get("schemas", "schemas")).resolve()
        catalogs = tuple(load_catalog(spec, base) for spec in config.get("catalogs", ())) if own_layout else ()
        retrieval = dict(config.get("retrieval", {})) if own_layout else {}
        for entry in args.retrieve:
            url, equals, target = entry.partition("=")
            if not equals:
                print(f"error: --retrieve {entry!r}: expected URL=FILE", file=sys.stderr)
                return 2
            retrieval[url] = target
        schemas = load(args.schemas, retrieval)
        layout = config.get("layout", {}) if own_layout else {}
        options = config.get("options", {}) if own_layout else {}
        if args.go_package:
            options = {**options, "go": {**options.get("go", {}), "package": args.go_package}}
        tree = render_all(build(schemas), schemas, catalogs, layout, options)
        # tables embedded in hand-written files (between marker comments): (path, current text, regenerated text)
        embeds = [embed.render(base, c.name, c.embed, c.records) for c in catalogs if c.embed is not None]
    except SchemaError as exc:
        print(f"error: {exc.file}#{exc.pointer}: {exc.message}", file=sys.stderr)
        return 2
    except UnsafePath as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug of codegen: still exit 2 (never 1, which means drift), no traceback
        print(
            f"error: {args.schemas}#: internal error in codegen ({type(exc).__name__}: {exc}); please report it with the schema folder",
            file=sys.stderr,
        )
        return 2
    if args.command == "generate":
        try:
            write_tree(tree, args.out)
            for path, current, regenerated in embeds:
                if regenerated != current:
                    path.write_text(regenerated, encoding="utf-8")
        except OSError as exc:
            print(f"error: writing {args.out}: {exc}; the previous tree is intact", file=sys.stderr)
            return 2
        print(f"wrote {len(tree)} files to {args.out}" + (f" and {len(embeds)} embedded table(s)" if embeds else ""))
        return 0
    diffs = diff_trees(tree, read_tree(args.out), args.out.as_posix().rstrip("/"))
    for path, current, regenerated in embeds:
        if regenerated != current:
            name = path.as_posix()
            lines = difflib.unified_diff(
                current.splitlines(keepends=True), regenerated.splitlines(keepends=True), name, name + " (regenerated)"
            )
            diffs.append(f"stale embedded table: {name}\n" + "".join(lines))
    if diffs:
        sys.stdout.write("".join(diffs))
        print(f"{len(diffs)} generated file(s) out of date; run: python -m codegen generate", file=sys.stderr)
        return 1
    print(f"{args.out}: up to date ({len(tree)} files)")
    return 0


def run() -> None:
    """The distribution's console script: the same as ``python -m codegen``."""
    sys.exit(main())


if __name__ == "__main__":
    run()
