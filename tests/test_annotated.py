"""The generic rules compiled from the schemas' ``x-unique`` / ``x-references`` annotations
(``evalschema/rules/annotated.py``, ``js/src/rules/annotated.ts``, the only implementation of these rules in either
SDK) give exactly the findings of the hand-written rules they replaced (kept as a test oracle:
``tests/annotated_oracle.py``) — code, pointer, severity, message, and order — on every document of the shared
corpus (every conformance fixture, every example, the agreement test's seeded mutants) and on edge cases written
here; the row-by-row form (batches, compact state) gives the same as the whole document; and the validator
reports them (the SDKs' pipelines run them). Both languages."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from annotated_oracle import ORACLE
from corpus import corpus

from evalschema import validate
from evalschema.core.findings import Finding
from evalschema.rules.annotated import AnnotatedRows, annotated_rules, rules_of
from evalschema_models.constants import KINDS

ROOT = Path(__file__).resolve().parents[1]
ANNOTATED_CODES = frozenset(rule.rule for kind in KINDS for rule in rules_of(kind))
IDENTITY_DECIDES = {"VERSION_UNSUPPORTED", "UNKNOWN_KIND"}
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
        if kind in KINDS and isinstance(case["document"], dict) and rules_of(kind):
            out.append((case["name"], kind, case["document"]))
    return out + [(f"edge {i}", kind, doc) for i, (kind, doc) in enumerate(EDGES)]


def _rows(findings: Any) -> list[tuple[Any, ...]]:
    return [(f.code, f.pointer, f.severity, f.message) for f in findings]


def hand_written(kind: str, document: dict[str, Any]) -> list[Finding]:
    return list(ORACLE[kind](document))


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


def test_the_validator_reports_the_annotated_rules_whole_and_streamed(tmp_path: Path) -> None:
    """The pipeline runs the generated rules (they are registered for their kinds): a document's report holds
    exactly the oracle's findings of these rules, read whole and read in pieces."""
    from evalschema import validate_file

    for index, (kind, document) in enumerate(EDGES):
        expected = sorted(_rows(hand_written(kind, document)))
        report = validate(document, kind)
        assert sorted(_rows(f for f in (*report.errors, *report.warnings) if f.code in ANNOTATED_CODES)) == expected
        if kind in ROWS:
            path = tmp_path / f"edge{index}.json"
            path.write_text(json.dumps(document), encoding="utf-8")
            streamed_report = validate_file(path, kind, stream_rows=True)
            found = [f for f in (*streamed_report.errors, *streamed_report.warnings) if f.code in ANNOTATED_CODES]
            assert sorted((f.code, f.pointer, f.severity, f.message) for f in found) == expected


_NODE = """
import { readFileSync } from "node:fs";
const dist = process.argv[2];
const { annotatedRules, AnnotatedRows } = await import(dist + "/rules/annotated.js");
const { validate } = await import(dist + "/index.js");
const codes = new Set(JSON.parse(process.argv[4]));
const rows = (fs) => [...fs].map((f) => [f.code, f.pointer, f.severity, f.message]);
const out = [];
for (const line of readFileSync(process.argv[3], "utf-8").split("\\n")) {
  if (!line) continue;
  const [kind, doc] = JSON.parse(line);
  const report = validate(doc, { kind });
  const reported = rows([...report.errors, ...report.warnings].filter((f) => codes.has(f.code)));
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
  out.push({ annotated, batches, reported });
}
process.stdout.write(JSON.stringify(out));
"""


def test_typescript_annotated_rules_equal_the_hand_written_ones(built_js: Path, tmp_path: Path) -> None:
    """TypeScript's generated rules, whole and in batches of 2, against the oracle; and what ``validate`` reports of
    them (the findings sorted: a report is in reading order)."""
    lines = []
    kept = []
    for name, kind, document in _documents():
        try:
            line = json.dumps([kind, document], allow_nan=False)
        except ValueError:
            continue  # NaN / Infinity: no JSON text for them
        if any(isinstance(v, int) and abs(v) > 2**53 for v in _numbers(document)):
            continue  # JSON.parse reads such an integer as an approximate double: a different document
        lines.append(line)
        kept.append((name, kind, document))
    data = tmp_path / "documents.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    script = tmp_path / "compare.mjs"
    script.write_text(_NODE, encoding="utf-8")
    dist = (built_js.parent).as_uri()
    codes = json.dumps(sorted(ANNOTATED_CODES))
    run = subprocess.run(["node", str(script), dist, str(data), codes], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    answers = json.loads(run.stdout)
    assert len(answers) == len(kept)
    differences = []
    found = 0
    for (name, kind, document), answer in zip(kept, answers):
        expected = [list(row) for row in _rows(hand_written(kind, document))]
        found += len(expected)
        # a document the identification decides (a newer major version, say) is reported without any stage
        decided = any(f.code in IDENTITY_DECIDES for f in validate(document, kind).errors)
        if not (
            answer["annotated"] == answer["batches"] == expected and sorted(answer["reported"]) == ([] if decided else sorted(expected))
        ):
            differences.append((name, expected, answer))
    assert found > 200
    assert differences == [], differences[:3]


def _numbers(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif not isinstance(value, bool):
        yield value


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
