"""``evalschema diff OLD NEW``: the classified changes between two schema folders.

OLD and NEW are release folders (``spec/releases/<version>/``) or the working ``schemas/`` folder; a bare
version (``1.0.0``) names a bundled release. Never writes. Exit status: 0 no breaking change, 1 at least one
breaking change, 2 usage error or unusable input.

The classifier is the generator's (``python -m codegen diff``, in the ``evalschema-codegen`` distribution:
not an extra of this one: see ``install_hint``). This command resolves bundled release names to their folders and runs it
as a separate process, so the runtime package never imports the generator or its dependencies.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_BREAKING, EXIT_USAGE = 0, 1, 2


def _folder(text: str) -> Path:
    from ..schemas import releases  # imported on use: registering the subcommand must not slow the other commands

    path = Path(text)
    if path.is_dir():
        return path
    if text in releases.available():
        root = releases.folder(text)
        if isinstance(root, Path):  # always, except for a package imported from a zip file
            return root
    raise argparse.ArgumentTypeError(f"{text!r} is neither a folder nor a bundled release ({', '.join(releases.available())})")


def _date(text: str) -> _dt.date:
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from None


GENERATOR = "codegen"


def install_hint() -> str:
    """The command that installs the generator, where this installation can tell: the generator's distribution
    (evalschema-codegen, in ``codegen/``) is published nowhere yet, so the hint names the checkout this package was
    installed from (PEP 610's ``direct_url.json``, written by pip for a folder or a file), or the generator's wheel
    beside the runtime's wheel in a release folder; otherwise how to get it from a checkout."""
    import json
    import shlex
    from importlib import metadata
    from urllib.parse import unquote, urlparse

    lead = "evalschema diff needs the generator's distribution (evalschema-codegen, published nowhere yet): "
    try:
        direct = json.loads(metadata.distribution("evalschema").read_text("direct_url.json") or "null")
    except (metadata.PackageNotFoundError, ValueError):
        direct = None
    url = urlparse(direct.get("url", "")) if isinstance(direct, dict) else None
    if url is not None and url.scheme == "file":
        source = Path(unquote(url.path))
        if (source / "codegen" / "pyproject.toml").is_file():
            return lead + f"pip install {shlex.quote(str(source / 'codegen'))}"
        beside = sorted(source.parent.glob("evalschema_codegen-*.whl")) if source.is_file() else []
        if beside:
            return lead + f"pip install {shlex.quote(str(beside[-1]))}"
    return (
        lead
        + "pip install ./codegen in a checkout of https://github.com/evalschema/evalschema (or the evalschema_codegen wheel of a release)"
    )


# the classifier walks schemas recursively: with this much stack, any schema the strict reader lets through (nested
# at most 1,000 levels) is compared, never a RecursionError
_CHILD = "import runpy, sys; sys.setrecursionlimit(20000); runpy.run_module('codegen', run_name='__main__', alter_sys=True)"


def _unreadable(folder: Path) -> list[str]:
    """What the strict reader (the one ``validate`` uses) says of each schema file in ``folder``: schemas get the
    same checks as documents (UTF-8, duplicate keys, NaN, nesting depth, the input size limit)."""
    from ..core.display import display_path, visible
    from ..io.loader import load_path

    problems = []
    for path in sorted(folder.glob("*.json")):
        if not path.is_file():
            continue
        for loaded in load_path(path, "json"):
            if loaded.problem is not None:
                where = f":{loaded.problem.line}:{loaded.problem.column}" if loaded.problem.line else ""
                problems.append(
                    f"{visible(display_path(path.name))}{where}: {loaded.problem.code}: {visible(loaded.problem.message)} "
                    f"(in {visible(display_path(str(folder)))})"
                )
    return problems


def run(args: argparse.Namespace) -> int:
    if importlib.util.find_spec(GENERATOR) is None:
        print(f"evalschema: {install_hint()}", file=sys.stderr)
        return EXIT_USAGE
    problems = _unreadable(args.old) + _unreadable(args.new)
    if problems:
        for problem in problems:
            print(f"error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    command = [sys.executable, "-c", _CHILD, "diff", str(args.old), str(args.new), "--format", args.format]
    if args.today is not None:
        command += ["--today", args.today.isoformat()]
    if args.expect_version_pins:
        command.append("--expect-version-pins")
    # the generator's exit statuses are this command's: 0 none breaking, 1 breaking, 2 unusable input
    done = subprocess.run(command, check=False, capture_output=True, text=True, encoding="utf-8", errors="backslashreplace")
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``diff`` on the ``evalschema`` command's subparsers; the handler is ``args.handler``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "diff",
        help="classify the changes between two schema versions (breaking / warning / info)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("old", type=_folder, help="old release folder, schema folder or bundled release version")
    p.add_argument("new", type=_folder, help="new release folder, schema folder or bundled release version")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--today", type=_date, help="date that decides whether a deprecation window is over (default: today)")
    p.add_argument(
        "--expect-version-pins",
        action="store_true",
        help="a field pinned to the schema's version (a const such as AsyncAPI's asyncapi: 2.6.0) changing is expected, not breaking",
    )
    p.set_defaults(handler=run)
    return p
