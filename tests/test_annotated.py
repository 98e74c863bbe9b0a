"""The generic rules compiled from the schemas' ``x-unique`` / ``x-references`` annotations (``evalschema/annotated.py``,
``js/src/annotated.ts``) give exactly the findings of the hand-written rules they replace (``evalschema/rules.py``,
``js/src/rules.ts``) — code, pointer, severity, message, and order — on every document of the shared corpus
(every conformance fixture, every example, the agreement test's seeded mutants) and on edge cases written here;
the row-by-row form (batches, compact state) gives the same as the whole document. Both languages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from corpus import corpus

from evalschema.rules import document as rules
from evalschema.core.findings import Finding
from evalschema.rules.annotated import AnnotatedRows, annotated_rules, rules_of

ROOT = Path(__file__).resolve().parents[1]
ANNOTATED_CODES = frozenset(rule.rule for kind in rules.DOCUMENT_RULES for rule in rules_of(kind))
ROWS = {"resultset": "results"}  # the kinds whose rows are streamed, and the member holding them

# edges the corpus may not reach: empty and non-string references, integral floats and booleans as attempts,
# prompts whose order differs between code points and UTF-16, items that are not objects
EDGES: list[tuple[str, dict[str, Any]]] = [
    (
        "suite",
        {
            "graders": [{"id": "g"}, {"id": "g"}, {"id": ""}, {"id": 3}, "x", {"id": "h"}],
            "test_cases": [
                {"id": "a", "graders": ["g", "", "missing", 7, {"id": "inline"}, "missing"]},
                {"id": "a", "graders": "g"},
                {"id": "b"},
                {"id": "b"},
                [],
                {"id": "a"},
            ],
        },
    ),
    ("suite", {"graders": {"g": {"id": "g"}}, "test_cases": {"a": {"graders": ["g"]}}}),
    (
        "resultset",
        {
            "results": [
                {"test_case_id": "t", "attempt": 1, "constraint_violations": [{"grader_id": "x"}, {"grader_id": ""}]},
                {
                    "test_case_id": "t",
                    "attempt": 1.0,
                    "grader_results": [{"grader_id": "x"}],
                    "constraint_violations": [{"grader_id": "x"}],
                },
                {"test_case_id": "t", "attempt": True},
                {"test_case_id": "t", "attempt": True},
                {"test_case_id": "t", "attempt": 2.5},
                {"test_case_id": "t", "attempt": 2.5},
                {"test_case_id": "t", "attempt": -1},
                {"test_case_id": "t", "attempt": -1},
                {"test_case_id": "t\u0000", "attempt": 1},
                {"test_case_id": "t", "attempt": 1, "constraint_violations": {"0": {"grader_id": "x"}}},
                "row",
                {"test_case_id": "u", "attempt": 10**30},
                {"test_case_id": "u", "attempt": 10**30},
            ]
        },
    ),
    (
        "pack",
        {
            "evals": [{"id": "e"}, {"id": "e"}, {"id": None}],
            "prompts": {
                "\U0001f600": {"evals": [{"id": "e"}, {"id": "e"}], "validators": [{"id": "v"}]},
                "\uffff": {"validators": [{"id": "v"}, {"type": "x"}, {"id": "w"}]},
                "a": {"validators": [{"id": "w"}], "evals": "e"},
                "b": "not a prompt",
            },
        },
    ),
]


def _documents() -> list[tuple[str, str, Any]]:
    """(name, kind, document) of every corpus case whose kind has annotated rules, then the edges."""
    out = []
    for case in corpus():
        kind = case["schema_kind"] or case["kind"]
        if kind in rules.DOCUMENT_RULES and isinstance(case["document"], dict) and rules_of(kind):
            out.append((case["name"], kind, case["document"]))
    return out + [(f"edge {i}", kind, doc) for i, (kind, doc) in enumerate(EDGES)]


def _rows(findings: Any) -> list[tuple[Any, ...]]:
    return [(f.code, f.pointer, f.severity, f.message) for f in findings]


def hand_written(kind: str, document: dict[str, Any]) -> list[Finding]:
    return [f for f in rules.DOCUMENT_RULES[kind](document) if f.code in ANNOTATED_CODES]


def streamed(kind: str, document: dict[str, Any], size: int, compact: bool) -> list[Finding]:
    array = ROWS[kind]
    checker = AnnotatedRows(kind, array, compact=compact)
    out = list(checker.envelope({k: v for k, v in document.items() if k != array}))
    rows = document.get(array)
    if isinstance(rows, list):
        for start in range(0, len(rows), size):
            out += checker.rows(rows[start : start + size], start)
    return out + list(checker.finish())


def test_every_annotated_rule_replaces_a_hand_written_one() -> None:
    assert {
        "DUPLICATE_ID",
        "DANGLING_REFERENCE",
        "DUPLICATE_EVAL_ID",
        "DUPLICATE_VALIDATOR_ID",
        "DUPLICATE_ATTEMPT",
        "CONSTRAINT_GRADER_UNKNOWN",
    } == ANNOTATED_CODES


def test_python_annotated_rules_equal_the_hand_written_ones() -> None:
    documents = _documents()
    differences = []
    found = 0
    for name, kind, document in documents:
        expected = _rows(hand_written(kind, document))
        found += len(expected)
        if _rows(annotated_rules(kind, document, ROWS.get(kind))) != expected:
            differences.append(name)
        if kind in ROWS:
            for size, compact in ((1, False), (3, True), (1000, True)):
                if _rows(streamed(kind, document, size, compact)) != expected:
                    differences.append(f"{name} (rows in batches of {size}, compact={compact})")
    assert len(documents) > 2500 and found > 250, (len(documents), found)
    assert differences == []


def test_the_edges_have_findings_of_every_rule() -> None:
    codes = {f.code for kind, doc in EDGES for f in annotated_rules(kind, doc, ROWS.get(kind))}
    assert codes == ANNOTATED_CODES


_NODE = """
import { readFileSync } from "node:fs";
const dist = process.argv[2];
const { DOCUMENT_RULES } = await import(dist + "/rules/rules.js");
const { annotatedRules, AnnotatedRows, rulesOf } = await import(dist + "/rules/annotated.js");
const codes = new Set();
for (const kind of Object.keys(DOCUMENT_RULES)) for (const r of rulesOf(kind)) codes.add(r.rule);
const rows = (fs) => [...fs].map((f) => [f.code, f.pointer, f.severity, f.message]);
const out = [];
for (const line of readFileSync(process.argv[3], "utf-8").split("\\n")) {
  if (!line) continue;
  const [kind, doc] = JSON.parse(line);
  const hand = rows([...DOCUMENT_RULES[kind](doc)].filter((f) => codes.has(f.code)));
  const annotated = rows(annotatedRules(kind, doc, kind === "resultset" ? "results" : null));
  let batches = annotated;
  if (kind === "resultset") {
    const checker = new AnnotatedRows(kind, "results");
    const { results, ...members } = doc;
    const found = [...checker.envelope(members)];
    if (Array.isArray(results)) for (let s = 0; s < results.length; s += 2) found.push(...checker.rows(results.slice(s, s + 2), s));
    found.push(...checker.finish());
    batches = rows(found);
  }
  out.push({ hand, annotated, batches });
}
process.stdout.write(JSON.stringify(out));
"""


def test_typescript_annotated_rules_equal_the_hand_written_ones(built_js: Path, tmp_path: Path) -> None:
    documents = _documents()
    lines = []
    kept = []
    for name, kind, document in documents:
        try:
            lines.append(json.dumps([kind, document], allow_nan=False))
        except ValueError:
            continue  # NaN / Infinity: no JSON text for them
        kept.append((name, kind, document))
    data = tmp_path / "documents.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    script = tmp_path / "compare.mjs"
    script.write_text(_NODE, encoding="utf-8")
    dist = (built_js.parent).as_uri()
    run = subprocess.run(["node", str(script), dist, str(data)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    answers = json.loads(run.stdout)
    assert len(answers) == len(kept)
    differences = []
    for (name, _, _), answer in zip(kept, answers):
        if not (answer["hand"] == answer["annotated"] == answer["batches"]):
            differences.append((name, answer))
    assert sum(len(a["hand"]) for a in answers) > 200
    assert differences == [], differences[:3]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
