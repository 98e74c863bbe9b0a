"""No data table is written by hand in either SDK: a literal collection (list, tuple, set, dict, array, object) that
names two or more ledger rule codes, or three or more document kinds, is a table that belongs in spec/ (the ledger,
spec/constants.json) or the schemas, generated into the SDKs by codegen. Algorithms may name a code or a kind; only
tables are refused."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CODES = {rule["id"] for rule in json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]}
KINDS = set(json.loads((ROOT / "spec" / "constants.json").read_text(encoding="utf-8"))["constants"]["KINDS"]["value"])


def _names(nodes: list[ast.expr | None]) -> list[str]:
    """The codes and kinds the elements name: string literals, and ``codes.X`` attributes."""
    out = []
    for node in nodes:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "codes":
            out.append(node.attr)
    return out


def _is_table(names: list[str]) -> bool:
    return len(set(names) & CODES) >= 2 or len(set(names) & KINDS) >= 3


def python_tables(source: str) -> list[int]:
    """Line numbers of the literal tables in a Python module."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            elements: list[ast.expr | None] = list(node.elts)
        elif isinstance(node, ast.Dict):
            if node.values and all(isinstance(v, ast.Name) for v in node.values):
                continue  # a dispatch to functions (kind → its rules) is code, not data
            elements = [*node.keys, *node.values]
        else:
            continue
        if _is_table(_names(elements)):
            lines.append(node.lineno)
    return lines


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_INNERMOST = re.compile(r"[\[{]([^\[\]{}]*)[\]}]")


def typescript_tables(source: str) -> list[int]:
    """Line numbers of the literal tables (innermost ``[...]`` and ``{...}``) in a TypeScript module."""
    text = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    lines = []
    for match in _INNERMOST.finditer(text):
        body = match.group(1)
        names = re.findall(r"\bcodes\.([A-Z][A-Z0-9_]*)", body) + re.findall(r"[\"'`]([A-Za-z][A-Za-z0-9_]*)[\"'`]", body)
        if _is_table(names) and not body.lstrip().startswith(("const ", "let ", "return ", "if ")):
            lines.append(text.count("\n", 0, match.start()) + 1)
    return lines


def test_no_hand_written_table_in_the_python_sdk() -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "evalschema").rglob("*.py"))
        for line in python_tables(path.read_text(encoding="utf-8"))
    ]
    assert hits == [], "literal tables of rule codes or kinds (generate them from spec/ instead)"


def test_no_hand_written_table_in_the_typescript_sdk() -> None:
    sources = sorted(p for p in (ROOT / "js" / "src").rglob("*.ts") if "generated" not in p.relative_to(ROOT / "js" / "src").parts)
    hits = [f"{path.relative_to(ROOT)}:{line}" for path in sources for line in typescript_tables(path.read_text(encoding="utf-8"))]
    assert hits == [], "literal tables of rule codes or kinds (generate them from spec/ instead)"


def test_the_scan_finds_a_table() -> None:
    """The scans are able to fail: each finds the tables these SDKs used to hold."""
    assert python_tables(
        'X = frozenset({"FILE_UNREADABLE", "INVALID_JSON"})\nY = {"type": codes.TYPE_MISMATCH, "required": codes.REQUIRED_FIELD}'
    )
    assert python_tables('KINDS = ("testcase", "grader", "suite", "resultset", "pack")')
    assert typescript_tables("export const K = {\n  type: codes.TYPE_MISMATCH,\n  required: codes.REQUIRED_FIELD,\n};")
    assert typescript_tables('export const KINDS = ["testcase", "grader", "suite", "resultset", "pack"] as const;')
    assert not python_tables('raise Problem(codes.INVALID_JSON, "nested too deep")')
    assert not python_tables('RULES = {"grader": grader_rules, "suite": suite_rules, "pack": pack_rules}')
