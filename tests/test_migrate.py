"""``evalschema migrate`` output is ready to commit (issue 14, item 11): comments stay where they belong (inline,
standalone, the file's last), emptied lists go, placeholders are marked so that ``validate --strict`` fails until a
person decides them, and JSON keeps its formatting — only the migrated lines differ. Golden files for each case."""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evalschema.migrate import migrate_text

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "migrate"
SCRIPT = Path(sys.executable).with_name("evalschema")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("name", ["pack-comments.yaml", "pack-inline.json"])
def test_migrate_matches_the_reviewed_golden_file(name: str, tmp_path: Path) -> None:
    pack = tmp_path / name
    shutil.copy(DATA / name, pack)
    assert run("migrate", str(pack)).returncode == 0
    golden = DATA / name.replace(".", ".migrated.")
    assert pack.read_text() == golden.read_text()
    assert run("migrate", "--check", str(pack)).returncode == 0  # nothing left to migrate


def removed_and_added(name: str) -> tuple[list[str], list[str]]:
    before = (DATA / name).read_text().splitlines()
    after = (DATA / name.replace(".", ".migrated.")).read_text().splitlines()
    diff = list(difflib.unified_diff(before, after, lineterm="", n=0))
    return [d[1:] for d in diff if d.startswith("-") and not d.startswith("---")], [
        d[1:] for d in diff if d.startswith("+") and not d.startswith("+++")
    ]


def test_yaml_comments_stay_with_what_they_describe() -> None:
    removed, added = removed_and_added("pack-comments.yaml")
    text = (DATA / "pack-comments.migrated.yaml").read_text()
    # the file's last comment is still last; the kept validators' comments are untouched
    assert text.endswith("\n# Owned by the support team; ask in #support-evals before changing.\n")
    assert "      # block rude words outright\n      - type: banned_words\n" in text
    # the dropped line's inline comment stays in place, on its own line
    assert "        # always blocked\n        message:" in text
    # the moved validators' comments (standalone above it, inline on it) go with the evals they became
    assert (
        "      # evalschema migrate: was the observe-only validator /prompts/support/validators/1; placeholder trigger, metric and threshold: a human must choose them\n"
        "      # from the validator: log only: we watch the length, we do not block on it\n"
        "      # from the validator: was observe-only\n"
        "      - id: max_length_observed\n"
    ) in text
    assert [a for a in added if a.lstrip().startswith("# from the validator")] == [
        "      # from the validator: log only: we watch the length, we do not block on it",
        "      # from the validator: was observe-only",
        "      # from the validator: only logged for now",
    ]
    # no comment is left behind where a validator was, and the emptied validators list is gone
    assert removed == [
        "        fail_on_violation: true  # always blocked",
        "      # log only: we watch the length, we do not block on it",
        "      - type: max_length  # was observe-only",
        "        fail_on_violation: false",
        "        params:",
        "          max_characters: 1000",
        "    validators:",
        "      - id: pii",
        "        fail_on_violation: false  # only logged for now",
        '        params: {handler: "checks:pii"}',
    ]
    assert "validators:" not in text.split("  billing:")[1]


def test_json_diff_shows_only_the_migration() -> None:
    removed, added = removed_and_added("pack-inline.json")
    # the inline objects and arrays that were not migrated are byte-for-byte the same lines
    text = (DATA / "pack-inline.migrated.json").read_text()
    for kept in [
        '"template_engine": {"version": "v1", "syntax": "{{variable}}"},',
        '{"type": "regex_match", "params": {"pattern": "^[^<>]*$"}}',
        '"variables": [{"name": "account", "type": "string", "required": true}]',
    ]:
        assert kept in text
    assert removed == [
        '        {"type": "banned_words", "fail_on_violation": true, "params": {"words": ["inappropriate", "banned"]}},',
        "        {",
        '          "type": "max_length",',
        '          "fail_on_violation": false,',
        '          "params": {"max_characters": 1000}',
        "        },",
        '        {"id": "tone", "type": "sentiment", "trigger": "every_turn"}',  # gains the comma before the new eval
        '      "validators": [',
        '        {"id": "pii", "type": "custom", "fail_on_violation": false, "params": {"handler": "checks:pii"}}',
    ]
    assert added[0] == '        {"type": "banned_words", "params": {"words": ["inappropriate", "banned"]}},'
    assert json.loads(text)["prompts"]["billing"]["evals"][0]["id"] == "pii_observed"


@pytest.mark.parametrize("name", ["pack-comments.migrated.yaml", "pack-inline.migrated.json"])
def test_placeholders_fail_strict_until_a_person_decides(name: str, tmp_path: Path) -> None:
    path = DATA / name
    assert run("validate", str(path)).returncode == 0
    strict = run("validate", "--strict", "--format", "json", str(path))
    assert strict.returncode == 1
    (entry,) = json.loads(strict.stdout)["files"]
    assert [(e["code"], e["pointer"]) for e in entry["errors"]] == [
        ("MIGRATION_PLACEHOLDER", "/prompts/support/evals/1/extensions/evalschema.migration"),
        ("MIGRATION_PLACEHOLDER", "/prompts/billing/evals/0/extensions/evalschema.migration"),
    ]
    # a person decides: removes the markers (and would choose trigger, metric and threshold)
    decided = tmp_path / name
    document = json.loads(path.read_text()) if name.endswith(".json") else None
    if document is not None:
        for prompt in document["prompts"].values():
            for entry_ in prompt.get("evals", []):
                entry_.pop("extensions", None)
        decided.write_text(json.dumps(document, indent=2))
    else:
        lines = path.read_text().splitlines(True)
        start = [i for i, line in enumerate(lines) if line.strip() == "extensions:"]
        for i in reversed(start):
            del lines[i : i + 8]  # extensions, the marker, from, decide and its 3 items, note
        decided.write_text("".join(lines))
    assert run("validate", "--strict", str(decided)).returncode == 0


def test_migrate_text_on_a_pack_with_nothing_to_do_is_the_identity() -> None:
    text = (DATA / "pack-comments.migrated.yaml").read_text()
    assert migrate_text(text, "yaml")[0] == text


def _pack_of(prompts: int) -> str:
    """``pack-comments.yaml`` with its two prompts repeated under new names until there are ``prompts`` of them."""
    text = (DATA / "pack-comments.yaml").read_text()
    head, rest = text.split("prompts:\n", 1)
    body = rest.split("\n# Owned", 1)[0] + "\n"
    copies = [
        body.replace("  support:\n    id: support", f"  support{i}:\n    id: support{i}").replace(
            "  billing:\n    id: billing", f"  billing{i}:\n    id: billing{i}"
        )
        for i in range(prompts // 2)
    ]
    return head + "prompts:\n" + "".join(copies)


def test_a_yaml_pack_is_parsed_once_whatever_its_number_of_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: ``migrate`` became quadratic when every prompt's new evals parsed the whole file again (to guess
    its indentation). Work is counted, not timed: one parse for 2 prompts and for 60."""
    from ruamel.yaml import YAML

    parses: list[int] = []
    load = YAML.load

    def counted(self: YAML, stream: object) -> object:
        parses.append(1)
        return load(self, stream)

    monkeypatch.setattr(YAML, "load", counted)
    for prompts in (2, 60):
        parses.clear()
        migrated, plan = migrate_text(_pack_of(prompts), "yaml")
        assert len(plan.moved) == 2 * (prompts // 2)  # every prompt had validators to move
        assert "fail_on_violation" not in migrated
        assert len(parses) == 1, f"{prompts} prompts: {len(parses)} parses"
