"""Render every target into memory, write the tree atomically, or compare it with what is on disk."""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from .annotated import rows_stand_alone
from .catalog import Catalog
from .ir import IR
from .load import SchemaSet
from .targets import annotated, targets
from .targets.catalogs import render as render_catalogs

Tree = dict[str, bytes]  # posix relative path -> content


class UnsafePath(ValueError):
    pass


def _safe(rel: str) -> str:
    path = PurePosixPath(rel)
    if path.is_absolute() or not path.parts or any(p in ("..", "") for p in path.parts) or "\\" in rel:
        raise UnsafePath(f"refusing output path {rel!r}: it escapes the output directory")
    return str(path)


def render_all(
    ir: IR,
    schemas: SchemaSet,
    catalogs: tuple[Catalog, ...] = (),
    layout: dict[str, str] | None = None,
    options: dict[str, dict[str, Any]] | None = None,
) -> Tree:
    """Render every target and catalog; ``layout`` maps a target name to its folder (default: the name),
    ``options`` a target name to the options it takes."""
    folders = {
        target.name: (layout or {}).get(target.name, target.name if target.folder is None else target.folder) for target in targets()
    }
    folders = {name: _safe(folder) if folder else "" for name, folder in folders.items()}
    tree: Tree = {}
    for target in targets():
        for rel, content in target.run(ir, schemas, (options or {}).get(target.name, {})).items():
            tree[_safe(f"{folders[target.name]}/{_safe(rel)}" if folders[target.name] else rel)] = content
    if ir.annotated:  # the generic rules' tables (codegen/targets/annotated.py), beside the models of each language
        rules = annotated.ordered(ir.annotated, catalogs, (options or {}).get("annotated", {}))
        for name, rel, text in (
            ("python", "_annotated.py", annotated.python(rules)),
            ("typescript", "_annotated.ts", annotated.typescript(rules)),
        ):
            tree[_safe(f"{folders[name]}/{rel}" if folders[name] else rel)] = text.encode("utf-8")
        verdicts = rows_stand_alone(schemas)  # the streaming question of the same documents
        for name, rel, text in (
            ("python", "_rows.py", annotated.rows_python(verdicts)),
            ("typescript", "_rows.ts", annotated.rows_typescript(verdicts)),
        ):
            tree[_safe(f"{folders[name]}/{rel}" if folders[name] else rel)] = text.encode("utf-8")
    for rel, content in render_catalogs(catalogs).items():
        name, _, rest = _safe(rel).partition("/")
        path = _safe(f"{folders.get(name, name)}/{rest}")
        if path in tree:
            raise UnsafePath(f"catalog output {path!r} would overwrite a generated file")
        tree[path] = content
    return dict(sorted(tree.items()))


def write_file(path: Path, content: bytes) -> None:
    """One file write (a seam for tests)."""
    path.write_bytes(content)


def _recover(out: Path) -> None:
    """A run killed between its two renames leaves the previous tree aside as ``.<out>.old-*``: put it back."""
    if out.exists():
        return
    leftovers = sorted(out.parent.glob(f".{out.name}.old-*"), key=lambda p: p.stat().st_mtime)
    if leftovers:
        os.replace(leftovers[-1], out)


def write_tree(tree: Tree, out: Path) -> None:
    """Build the whole tree in a temp dir next to ``out``, then swap it in; on any failure ``out`` is untouched."""
    out = Path(out).absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    _recover(out)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    old: Path | None = None
    try:
        root = staging.resolve()
        for rel, content in tree.items():
            target = (staging / _safe(rel)).resolve()
            if root not in target.parents:
                raise UnsafePath(f"refusing output path {rel!r}: it escapes the output directory")
            target.parent.mkdir(parents=True, exist_ok=True)
            write_file(target, content)
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            old.rmdir()
            os.replace(out, old)
        os.replace(staging, out)
    except BaseException:
        if old is not None and not out.exists():
            os.replace(old, out)
            old = None
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def read_tree(out: Path) -> Tree:
    tree: Tree = {}
    if not out.is_dir():
        return tree
    for path in sorted(out.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            tree[path.relative_to(out).as_posix()] = path.read_bytes()
    return tree


def diff_trees(expected: Tree, actual: Tree, out_name: str = "out") -> list[str]:
    """Unified diffs (one string per stale, missing or extra file); empty when up to date."""
    diffs: list[str] = []
    for rel in sorted(set(expected) | set(actual)):
        want, have = expected.get(rel), actual.get(rel)
        if want == have:
            continue
        a = (have or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
        b = (want or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
        label_a = f"{out_name}/{rel}" if have is not None else "/dev/null"
        label_b = f"{out_name}/{rel} (regenerated)" if want is not None else "/dev/null"
        text = "".join(difflib.unified_diff(a, b, label_a, label_b))
        if not text.endswith("\n"):
            text += "\n"
        if want is None:
            text = f"extra file (not generated): {out_name}/{rel}\n" + text
        elif have is None:
            text = f"missing file: {out_name}/{rel}\n" + text
        diffs.append(text)
    return diffs
