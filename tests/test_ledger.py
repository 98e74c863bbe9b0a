"""The ledger (spec/ledger.json) is derived truth, not a hand-kept list: what it says about schema rules is computed
from the schemas here and must be equal, and every MUST / MUST NOT of SPEC.md is either a rule or listed as not
checkable on a document.

- A rule with ``x-rule`` subschemas: ``schema_pointers`` are exactly the locations carrying that ``x-rule``.
- A keyword rule: ``schema_keywords`` are exactly the keywords of the schemas that can fail and that the schema path
  maps to that rule (``KEYWORD_CODES``; a ``not: {pattern}`` is a pattern). Keywords inside an ``if`` (a condition
  decides, it never fails) or inside an ``x-rule`` subschema (its failures are that rule's) are not counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from schema_helpers import load_schemas, pointer

from evalschema.engine.schema_path import KEYWORD_CODES
from evalschema.schemas.registry import KINDS

ROOT = Path(__file__).resolve().parents[1]
LEDGER = {rule["id"]: rule for rule in json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]}
SPEC = (ROOT / "spec" / "SPEC.md").read_text(encoding="utf-8")

# JSON Schema 2020-12 keywords that can fail on their own (the validation vocabulary and the applicators that report
# a failure themselves); an applicator such as ``properties`` or ``allOf`` fails only through its subschemas.
CAN_FAIL = frozenset({
    "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
    "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
    "minProperties", "required", "dependentRequired", "format", "contains", "not", "oneOf", "anyOf",
})  # fmt: skip
SUBSCHEMA = frozenset(
    {"additionalProperties", "items", "contains", "propertyNames", "then", "else", "not", "unevaluatedItems", "unevaluatedProperties"}
)
SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})
SUBSCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# The schemas of the documents the ledger's rules are about (its `kinds`) and what they share. comparison.json is
# the output of `evalschema compare`, not a kind a validator reads: its keywords are no rule of the ledger.
DOCUMENT_SCHEMAS = frozenset({f"{kind}.json" for kind in KINDS} | {"common.json"})
FALSE_FAILS = frozenset({"additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems", "propertyNames"})


def _walk(node: Any, path: tuple[str | int, ...], under_rule: bool) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any], bool]]:
    """Every subschema with its path and whether an ``x-rule`` encloses it; ``if`` subtrees are left out."""
    if not isinstance(node, dict):
        return
    yield path, node, under_rule
    inner = under_rule or "x-rule" in node
    for key, value in node.items():
        if key in SUBSCHEMA:
            yield from _walk(value, (*path, key), inner)
        elif key in SUBSCHEMA_MAPS and isinstance(value, dict):
            for name, sub in value.items():
                yield from _walk(sub, (*path, key, name), inner)
        elif key in SUBSCHEMA_LISTS and isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _walk(sub, (*path, key, index), inner)


def _code(keyword: str, value: Any) -> str:
    if keyword == "not" and isinstance(value, dict) and set(value) == {"pattern"}:
        return "PATTERN_MISMATCH"
    return KEYWORD_CODES.get(keyword, "SCHEMA_MISMATCH")


def derived() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(rule → x-rule locations, rule → keywords that can fail and map to it), from schemas/."""
    locations: dict[str, list[str]] = {}
    keywords: dict[str, set[str]] = {}
    for file, schema in load_schemas().items():
        if file not in DOCUMENT_SCHEMAS:
            continue
        for path, node, under_rule in _walk(schema, (), False):
            if isinstance(node.get("x-rule"), str):
                locations.setdefault(node["x-rule"], []).append(f"{file}#{pointer(path)}")
            if under_rule or "x-rule" in node:
                continue
            for keyword, value in node.items():
                if keyword in CAN_FAIL or (keyword in FALSE_FAILS and value is False):
                    keywords.setdefault(_code(keyword, value), set()).add(keyword)
    return {r: sorted(p) for r, p in locations.items()}, {r: sorted(k) for r, k in keywords.items()}


def test_schema_pointers_are_every_x_rule_location() -> None:
    locations, _ = derived()
    assert locations, "no x-rule found: the walk is broken"
    ledger = {rule_id: sorted(rule["schema_pointers"]) for rule_id, rule in LEDGER.items() if "schema_pointers" in rule}
    assert ledger == locations


def test_schema_keywords_are_the_keywords_that_can_fail() -> None:
    _, keywords = derived()
    ledger = {rule_id: sorted(rule["schema_keywords"]) for rule_id, rule in LEDGER.items() if "schema_keywords" in rule}
    assert ledger == keywords


# --- every MUST of SPEC.md ---------------------------------------------------------------------------------


def _must_sentences() -> list[tuple[str, str]]:
    """(section heading, sentence) for every sentence of SPEC.md with MUST, outside the rule table and §3.3."""
    out = []
    section = ""
    for block in re.split(r"\n\s*\n|\n(?=- |\| |\d+\. |#)", SPEC):
        heading = re.match(r"#+ (.*)", block)
        if heading:
            section = heading[1]
            continue
        if block.lstrip().startswith("|") or section.startswith("3.3 "):
            continue
        for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z`*(])", " ".join(block.split())):
            if re.search(r"\bMUST\b", sentence):
                out.append((section, sentence.removeprefix("- ")))
    return out


def _not_checkable() -> list[str]:
    """The excerpts §3.3 lists: requirements no document can show."""
    section = SPEC.split("### 3.3 ", 1)[1].split("\n### ", 1)[0]
    return re.findall(r'^- "([^"]+)"', section, re.MULTILINE)


def test_every_must_of_the_spec_is_a_rule_or_not_checkable() -> None:
    sentences = _must_sentences()
    excerpts = _not_checkable()
    assert len(sentences) > 15 and excerpts, "the SPEC parse found nothing: this test would prove nothing"
    unmapped, unknown = [], []
    used = dict.fromkeys(excerpts, 0)
    for section, sentence in sentences:
        ids = re.findall(r"`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`", sentence)
        unknown += [f"{section}: {i}" for i in ids if i not in LEDGER]
        starts = [e for e in excerpts if sentence.startswith(e)]
        for e in starts:
            used[e] += 1
        if not ids and not starts:
            unmapped.append(f"§{section}: {sentence}")
    assert unknown == [], "rule ids in SPEC.md that the ledger does not have"
    assert unmapped == [], "MUST sentences with neither a rule id nor a place in §3.3"
    assert {e: n for e, n in used.items() if n != 1} == {}, "§3.3 excerpts that match no MUST sentence, or several"
