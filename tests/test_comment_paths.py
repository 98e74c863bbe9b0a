"""Comments name symbols, not files (issue 38): every file path a Python comment or docstring of the SDK cites
exists (rooms move; a cited path that no longer exists misleads), and none cites a TypeScript module by its file
(name the symbol it mirrors). The TypeScript side: js/test/comments.test.ts."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "evalschema"
# a file path: folders and a name with one of these suffixes, not part of a longer word, URL or dotted name
CITED = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-]+\.(?:py|ts|mjs|json|md|toml|yml|yaml))\b")
BASES = [PACKAGE, ROOT, ROOT / "spec", ROOT / "schemas", ROOT / "generated", ROOT / "generated" / "schemas", ROOT / "js"]
# sample names, and files named by a standard rather than this repository (PEP 610's, in an installed package)
EXAMPLES = {"pack.yaml", "rs.json", "suite.json", "results.json", "out.json", "x.json", "a.json", "b.json", "direct_url.json"}
EXAMPLES |= {"summaries.json"}  # a member of an Inspect log archive


def _texts(source: str) -> list[str]:
    """The comments and docstrings of a module."""
    texts = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                texts.append(doc)
    return texts


def test_every_path_a_comment_cites_exists() -> None:
    stale, cited = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        for text in _texts(path.read_text(encoding="utf-8")):
            for name in CITED.findall(text):
                if name in EXAMPLES or name.startswith(("<", "*")):
                    continue
                cited += 1
                where = f"{path.relative_to(ROOT)}: {name}"
                if name.endswith(".ts") and not name.startswith("js/"):
                    stale.append(f"{where} (name the TypeScript symbol, or js/…)")
                elif not any((base / name).exists() for base in [path.parent, *BASES]):
                    stale.append(where)
    assert cited > 0
    assert stale == []
