"""A catalog's ``groups``: the records' keys by the value of a field, written into Python and TypeScript — how the
rules ledger names each code rule's unit (``RULES_BY_UNIT``) without either SDK restating a rule id."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from codegen_helpers import FIXTURES, run_codegen


def _project(tmp_path: Path, records: list[dict[str, Any]], groups: str = '["unit"]') -> Path:
    shutil.copytree(FIXTURES, tmp_path / "schemas")
    (tmp_path / "rules.json").write_text(json.dumps({"rules": records}), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.codegen]\nschemas = "schemas"\nout = "out"\n\n[[tool.codegen.catalogs]]\nname = "rules"\nsource = "rules.json"\n'
        f'items = "/rules"\nkey = "id"\ngroups = {groups}\n',
        encoding="utf-8",
    )
    return tmp_path / "pyproject.toml"


def test_groups_map_each_value_to_its_records_keys_in_order(tmp_path: Path) -> None:
    records = [
        {"id": "B_RULE", "unit": "second"},
        {"id": "A_RULE", "unit": "first"},
        {"id": "C_RULE"},  # no unit: in no group
        {"id": "D_RULE", "unit": "second"},
    ]
    proc = run_codegen("generate", "--config", str(_project(tmp_path, records)))
    assert proc.returncode == 0, proc.stderr
    namespace: dict[str, Any] = {}
    exec((tmp_path / "out" / "python" / "rules.py").read_text(encoding="utf-8"), namespace)
    assert namespace["RULES_BY_UNIT"] == {"second": ("B_RULE", "D_RULE"), "first": ("A_RULE",)}
    assert list(namespace["RULES_BY_UNIT"]) == ["second", "first"]
    ts = (tmp_path / "out" / "typescript" / "rules.ts").read_text(encoding="utf-8")
    assert 'export const RULES_BY_UNIT = {\n  "second": ["B_RULE", "D_RULE"],\n  "first": ["A_RULE"],\n} as const;' in ts
    assert run_codegen("check", "--config", str(tmp_path / "pyproject.toml")).returncode == 0


def test_a_catalog_without_groups_writes_no_group_table(tmp_path: Path) -> None:
    proc = run_codegen("generate", "--config", str(_project(tmp_path, [{"id": "A_RULE", "unit": "u"}], "[]")))
    assert proc.returncode == 0, proc.stderr
    assert "_BY_" not in (tmp_path / "out" / "python" / "rules.py").read_text(encoding="utf-8")
    assert "_BY_" not in (tmp_path / "out" / "typescript" / "rules.ts").read_text(encoding="utf-8")


def test_a_group_value_that_is_no_string_is_refused_with_its_location(tmp_path: Path) -> None:
    proc = run_codegen("generate", "--config", str(_project(tmp_path, [{"id": "A_RULE", "unit": ["u"]}])))
    assert proc.returncode == 2 and "rules.json#/rules/0/unit:" in proc.stderr, proc.stderr


def test_groups_must_name_fields(tmp_path: Path) -> None:
    proc = run_codegen("generate", "--config", str(_project(tmp_path, [{"id": "A_RULE"}], '["not a field"]')))
    assert proc.returncode == 2 and "groups must be a list of field names" in proc.stderr, proc.stderr


def test_the_records_page_is_one_section_per_record_after_a_narrow_index() -> None:
    """A catalog's docs page: an index table of the key and the short fields, then one section per record with
    its doc field and every other field — not one table as wide as the longest message (issue 41)."""
    import tomllib

    from codegen_helpers import REPO

    catalogs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["codegen"]["catalogs"]
    columns = next(c for c in catalogs if c["name"] == "rules")["columns"]
    ledger = json.loads((REPO / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]
    page = (REPO / "generated" / "docs" / "rules.md").read_text(encoding="utf-8")
    index = [line for line in page.splitlines() if line.startswith("| [")]
    assert [line.split("]", 1)[0][3:] for line in index] == [rule["id"] for rule in ledger]
    assert max(len(line) for line in index) <= 160  # one table of every field had lines of 1,015 characters
    sections = page.split("\n## ")[1:]
    assert [section.split("\n", 1)[0] for section in sections] == [rule["id"] for rule in ledger]
    for rule, section in zip(ledger, sections, strict=True):
        assert " ".join(rule["statement"].split()) in section
        for field in columns:
            value = rule.get(field)
            if field not in ("id", "statement") and value not in (None, "", []):
                assert f"- **{field}**:" in section, (rule["id"], field)
