"""Independent validators ("oracles") against the schemas as published, and against every project path.

Six oracles assert formats, each with its own implementation of them: python-jsonschema (its stock format
checker), jsonschema-rs (its own formats), Ajv + ajv-formats, @cfworker/json-schema, @exodus/schemasafe and
@hyperjump/json-schema. jschon, a seventh, ships no format checks: it is compared with python-jsonschema and
jsonschema-rs with format assertion off. The project's schema path — Python's fast and reference engines and
TypeScript's — must give the verdict the oracles give.

The corpus (tests/corpus.py): every conformance fixture, every example and 3,000 seeded mutants whose
replacements include the edges of RFC 3339 (leap seconds, year 0000), trailing line terminators, Unicode digits,
``2.0`` vs ``2``, ``1e308``/``1e309``, 400-digit integers and empty strings and keys. A fixture's own expectation
(schema findings or none) must be the oracles' verdict too.

Any disagreement fails the test with the document printed, unless tests/oracle_allowlist.json names it as a bug
of that oracle (a one-line reason and a link); an entry that excuses nothing is stale and fails the test too.
The oracles run in-process (Python) or in one ``node`` process for the whole corpus.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import allowlist
import jschon
import jsonschema_rs
from corpus import Case, corpus, show
from jsonschema import Draft202012Validator
from schema_helpers import SCHEMAS_DIR, build_registry, load_schemas

from evalschema.engine import schema_path
from evalschema.io.loader import parse_json_bytes
from evalschema.pipeline import rule_messages

ROOT = Path(__file__).resolve().parents[1]
LEDGER = {rule["id"]: rule for rule in json.loads((ROOT / "spec" / "ledger.json").read_text(encoding="utf-8"))["rules"]}
IDENTIFICATION_CODES = {"VERSION_UNSUPPORTED", "UNKNOWN_KIND"}
ASSERTING = ("python-jsonschema", "jsonschema-rs", "ajv", "cfworker", "schemasafe", "hyperjump")
PROJECT = ("evalschema-python-fast", "evalschema-python-reference", "evalschema-ts")
ANNOTATING = ("jschon", "python-jsonschema-no-formats", "jsonschema-rs-no-formats")
MIN_MUTANTS = 3000 if "EVALSCHEMA_AGREEMENT_MUTANTS" not in os.environ else 0  # a developer may run fewer, CI never sets it

Verdict = bool | str  # valid, or "error: …" when the oracle could not decide


def _verdicts(check: Callable[[str], Callable[[Any], bool]], cases: list[Case]) -> list[Verdict]:
    out: list[Verdict] = []
    for case in cases:
        try:
            out.append(bool(check(case["schema_kind"])(case["document"])))
        except Exception as error:  # an oracle that cannot decide is a disagreement, reported as such
            out.append(f"error: {type(error).__name__}: {str(error)[:300]}")
    return out


def _python_oracles(cases: list[Case]) -> dict[str, list[Verdict]]:
    schemas = load_schemas()
    registry = build_registry(schemas)
    uri = {name[: -len(".json")]: schema["$id"] for name, schema in schemas.items()}
    rs_registry = jsonschema_rs.Registry([(s["$id"], s) for s in schemas.values()])

    def python_jsonschema(formats: bool) -> Callable[[str], Callable[[Any], bool]]:
        checker = Draft202012Validator.FORMAT_CHECKER if formats else None
        validators = {k: Draft202012Validator(registry.contents(u), registry=registry, format_checker=checker) for k, u in uri.items()}
        return lambda kind: validators[kind].is_valid

    def rs(formats: bool) -> Callable[[str], Callable[[Any], bool]]:
        validators = {k: jsonschema_rs.validator_for(schemas[f"{k}.json"], registry=rs_registry, validate_formats=formats) for k in uri}
        return lambda kind: validators[kind].is_valid

    catalog = jschon.create_catalog("2020-12", name="evalschema-oracles")
    catalog.add_uri_source(jschon.URI(next(iter(uri.values())).rsplit("/", 1)[0] + "/"), jschon.LocalSource(SCHEMAS_DIR))
    jschon_schemas = {k: catalog.get_schema(jschon.URI(u)) for k, u in uri.items()}

    def jschon_check(kind: str) -> Callable[[Any], bool]:
        return lambda document: bool(jschon_schemas[kind].evaluate(jschon.JSON(document)).valid)

    def project(engine: schema_path.Engine) -> Callable[[str], Callable[[Any], bool]]:
        messages = rule_messages()
        return lambda kind: lambda document: not schema_path.check(document, kind, messages, engine).findings

    return {
        "python-jsonschema": _verdicts(python_jsonschema(True), cases),
        "jsonschema-rs": _verdicts(rs(True), cases),
        "python-jsonschema-no-formats": _verdicts(python_jsonschema(False), cases),
        "jsonschema-rs-no-formats": _verdicts(rs(False), cases),
        "jschon": _verdicts(lambda kind: jschon_check(kind), cases),
        "evalschema-python-fast": _verdicts(project("fast"), cases),
        "evalschema-python-reference": _verdicts(project("reference"), cases),
    }


def _node_oracles(cases: list[Case], built_js: Path, tmp_path: Path) -> tuple[dict[str, str], dict[str, list[Verdict]]]:
    """The JavaScript oracles and the TypeScript SDK's schema path, one node process for the whole corpus."""
    del built_js  # the fixture guarantees js/dist is built: the TypeScript schema path runs from it
    lines = tmp_path / "corpus.jsonl"
    with lines.open("w", encoding="utf-8") as out:
        for case in cases:
            out.write(json.dumps({"kind": case["schema_kind"], "text": case["text"].decode("utf-8")}) + "\n")
    run = subprocess.run(
        ["node", str(ROOT / "js" / "scripts" / "oracles.mjs"), str(SCHEMAS_DIR), str(lines)], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, f"the JavaScript oracles failed ({run.returncode}):\n{run.stderr[-4000:]}"
    answer = json.loads(run.stdout)
    return answer["versions"], answer["verdicts"]


def _expected(case: Case) -> bool | None:
    """A fixture's own schema verdict: rejected iff it expects a finding of a schema rule (None: not a fixture, or
    identification decides what is validated)."""
    expect = case["expect"]
    if expect is None:
        return None
    findings = expect["errors"] + expect["warnings"]
    if {f["code"] for f in findings} & IDENTIFICATION_CODES or (case["kind"] is None and case["schema_kind"] is None):
        return None
    return not any(LEDGER.get(f["code"], {}).get("enforced_by") == "schema" for f in findings)


def _judge(case: Case, verdicts: dict[str, Verdict], group: tuple[str, ...], used: Counter[int]) -> str | None:
    """None when every member of ``group`` gives the majority verdict or is excused; else what went wrong."""
    votes = Counter(v for name, v in verdicts.items() if name in group)
    (majority, count), *rest = votes.most_common()
    if rest and rest[0][1] == count:
        return f"no majority: {dict(verdicts)}"
    expected = _expected(case)
    if group is ASSERTING + PROJECT and expected is not None and majority != expected:
        return f"the fixture expects valid={expected}, the majority says {majority}: {dict(verdicts)}"
    wrong = []
    for name, verdict in verdicts.items():
        if name not in group or verdict == majority:
            continue
        excuse = None if name in PROJECT else allowlist.excuse(name, case["document"])
        if excuse is None:
            wrong.append(f"{name} says {verdict}")
        else:
            used[excuse] += 1
    return f"majority {majority}; " + ", ".join(wrong) if wrong else None


def test_oracles_agree_with_each_other_and_with_every_project_path(built_js: Path, tmp_path: Path) -> None:
    cases = [c for c in corpus() if c["schema_kind"] is not None and parse_json_bytes(c["text"]).problem is None]
    without_kind = [c["name"] for c in corpus() if c["schema_kind"] is None]
    # A number beyond the double range is INVALID_JSON to both SDKs (SPEC §2.4; the agreement test holds them to
    # it), and the oracles would not even see one document: Python reads it exact, JavaScript as ±Infinity.
    unreadable = sum(c["schema_kind"] is not None and parse_json_bytes(c["text"]).problem is not None for c in corpus())
    mutants = sum(c["name"].startswith("mutant:") for c in cases)
    assert mutants >= MIN_MUTANTS, f"only {mutants} mutants have a kind to validate against"
    verdicts = _python_oracles(cases)
    versions, node = _node_oracles(cases, built_js, tmp_path)
    verdicts.update(node)
    assert set(verdicts) == set(ASSERTING + PROJECT + ANNOTATING), sorted(verdicts)

    used: Counter[int] = Counter()
    failures: list[str] = []
    flips: dict[str, int] = defaultdict(int)
    for number, case in enumerate(cases):
        row = {name: answers[number] for name, answers in verdicts.items()}
        for group in (ASSERTING + PROJECT, ANNOTATING):
            problem = _judge(case, {n: v for n, v in row.items() if n in group}, group, used)
            if problem is not None:
                failures.append(f"--- {case['name']} (as {case['schema_kind']}): {problem}\n{show(case)}")
        flips["valid" if row["evalschema-python-fast"] is True else "invalid"] += 1
    stale = allowlist.stale(set(ASSERTING + ANNOTATING), set(used))
    summary = (
        f"{len(cases)} documents ({mutants} mutants; left out: {len(without_kind)} without a kind {without_kind}, "
        f"{unreadable} with a number beyond the double range), "
        f"{dict(flips)} by the project; oracles: {versions} and python-jsonschema, jsonschema-rs, jschon; "
        f"allow-list use: {[(allowlist.ENTRIES[i]['oracle'], allowlist.ENTRIES[i]['strings'], n) for i, n in sorted(used.items())]}; "
        f"{len(failures)} disagreement(s)"
    )
    print("\n" + summary)
    assert not failures, summary + "\n" + "\n".join(failures[:25])
    assert not stale, f"allow-list entries that excused nothing (fixed upstream? remove them): {stale}"
