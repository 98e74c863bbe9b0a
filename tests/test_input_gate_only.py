"""Every command reads the user's files through the one input gate (issue 38): outside ``evalschema/io`` no module
opens a file itself — no ``open()``, ``Path.open``, ``read_bytes``/``read_text`` on a path, ``os.open``/``fdopen``
— except the reads listed below, each of a file that is ours (a schema or release packaged with the SDK) or not a
local path (object storage through fsspec). A reader of its own once let the streamed path open a FIFO by name."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evalschema"
OPENERS = {"open", "fdopen", "read_bytes", "read_text"}

# (module, what is opened): the reads that are not of a user's file
OURS = {
    ("cli/common.py", "os.open(os.devnull, os.O_WRONLY)"),  # stdout replaced by the null device when it is closed
    ("cli/diffcmd.py", "metadata.distribution('evalschema').read_text('direct_url.json')"),  # our install's metadata
    ("cli/distributed.py", "fs.open(path, 'rb')"),  # object storage (fsspec), planning a remote file's ranges
    ("cli/distributed.py", "fs.open(remote, 'rb')"),  # object storage, copied to a local file the gate then reads
    ("cli/distributed.py", "target.open('wb')"),  # that local copy, a temporary file of ours
    ("cli/schemacmd.py", "(folder / name).read_text(encoding='utf-8')"),  # a packaged schema
    ("cli/summarizecmd.py", "(schema_dir() / name).read_text(encoding='utf-8')"),  # a packaged schema
    ("report/page.py", "source.read_text(encoding='utf-8')"),  # the packaged report template
    ("columnar.py", "(arrow_dir() / 'resultset.arrow.json').read_text('utf-8')"),  # the packaged Arrow schema
    ("compare/core.py", "(schema_dir() / 'comparison.json').read_text(encoding='utf-8')"),  # a packaged schema
    ("interop/inspect_ai.py", "archive.open(name)"),  # a member of a zip the gate opened (counted as it inflates)
    ("schemas/registry.py", "entry.read_bytes()"),  # packaged schemas
    ("schemas/releases.py", "(folder(version) / MANIFEST).read_text(encoding='utf-8')"),  # a packaged release
    ("schemas/releases.py", "(where / name).read_text(encoding='utf-8')"),
    ("schemas/selection.py", "(bundled_dir() / 'catalog.json').read_text(encoding='utf-8')"),  # the packaged catalog
}


def _opens() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = str(path.relative_to(PACKAGE))
        if module.startswith("io/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id == "open":
                found.add((module, ast.unparse(node)))
            elif isinstance(func, ast.Attribute) and func.attr in OPENERS:
                found.add((module, ast.unparse(node)))
    return found


def test_only_the_input_gate_opens_a_users_file() -> None:
    # the gate's own readers, imported by name (read_bytes of evalschema.io.loader), are calls of a Name: allowed
    assert _opens() == OURS
