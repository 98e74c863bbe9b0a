"""What a finding says and in which order (issue 14, items 4, 5, 6 and 12): reading order, full enumerations,
"did you mean" suggestions, no document or regex dumps, the root as ``(root)`` in text and ``""`` in JSON, and
text output that always shows what was checked. Both engines and the TypeScript SDK say the same words."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from evalschema import validate
from evalschema.core.messages import PARAMETERS, number, render, template
from evalschema.pipeline import rule_messages
from evalschema_models.rules import RULES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
SCRIPT = Path(sys.executable).with_name("evalschema")
JS_CLI = ROOT / "js" / "dist" / "cli.js"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SCRIPT), *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)


def example(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return document


def js_messages(path: Path) -> list[tuple[str, str, str]]:
    """(code, pointer, message) of every error the TypeScript CLI reports for one file."""
    if shutil.which("node") is None or not JS_CLI.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    proc = subprocess.run(["node", str(JS_CLI), "validate", "--format", "json", str(path)], capture_output=True, text=True, timeout=120)
    entry = json.loads(proc.stdout)["files"][0]  # a suite's test cases file lines come after it
    assert entry["path"] == str(path)
    return sorted((e["code"], e["pointer"], e["message"]) for e in entry["errors"])


def messages(document: dict[str, Any], engine: str = "fast") -> list[tuple[str, str, str]]:
    return sorted((f.code, f.pointer, f.message) for f in validate(document, engine=engine).errors)  # type: ignore[arg-type]


# --- item 4: reading order ----------------------------------------------------------------------------------


def test_findings_come_in_reading_order_in_every_format(tmp_path: Path) -> None:
    document = example("resultset-aobench-rbac.json")
    document["results"][2]["attempt"] = 0  # far down the file
    document["version"] = "v1"  # line 3: sorts after /results by pointer, before it by line
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document, indent=2))
    (entry,) = json.loads(run("validate", "--format", "json", str(path)).stdout)["files"]
    assert [(e["pointer"], e["line"]) for e in entry["errors"]] == [("/version", 3), ("/results/2/attempt", entry["errors"][1]["line"])]
    assert entry["errors"][1]["line"] > 40
    text = run("validate", str(path)).stdout.splitlines()
    assert [line.split()[3] for line in text[1:3]] == ["/version", "/results/2/attempt"]
    github = run("validate", "--format", "github", str(path)).stdout.splitlines()
    assert [line.split("::")[2].split(":")[0] for line in github] == ["/version", "/results/2/attempt"]


# --- item 5: full enumerations and suggestions -------------------------------------------------------------


TYPOS = [
    # (example, mutation, the expected finding)
    (
        "pack-support-guardrails.json",
        lambda d: d["evals"][0]["metric"].__setitem__("type", "gague"),
        (
            "INVALID_VALUE",
            "/evals/0/metric/type",
            '"gague" is not one of "gauge", "counter", "histogram", "boolean"; did you mean "gauge"?',
        ),
    ),
    (
        "resultset-aobench-rbac.json",
        lambda d: d["results"][0].__setitem__("grader_result", d["results"][0].pop("grader_results")),
        ("UNKNOWN_FIELD", "/results/0/grader_result", 'unknown property "grader_result"; did you mean "grader_results"?'),
    ),
    (
        "pack-legacy-fail-on-violation.json",
        lambda d: next(iter(d["prompts"].values()))["validators"][0].__setitem__("fail_on_violaton", True),
        (
            "UNKNOWN_FIELD",
            "/prompts/{key}/validators/0/fail_on_violaton",
            'unknown property "fail_on_violaton"; did you mean "fail_on_violation"?',
        ),
    ),
    (
        "pack-legacy-fail-on-violation.json",
        lambda d: next(iter(d["prompts"].values())).__setitem__("validator", next(iter(d["prompts"].values())).pop("validators")),
        ("UNKNOWN_FIELD", "/prompts/{key}/validator", 'unknown property "validator"; did you mean "validators"?'),
    ),
]


@pytest.mark.parametrize("name, mutate, expected", TYPOS, ids=["enum", "grader_result", "fail_on_violaton", "validator"])
def test_typos_get_every_allowed_value_and_a_suggestion_from_both_engines_and_typescript(
    name: str, mutate: Any, expected: tuple[str, str, str], tmp_path: Path
) -> None:
    document = example(name)
    mutate(document)
    key = next(iter(document.get("prompts", {"": None})))
    want = (expected[0], expected[1].format(key=key), expected[2])
    fast, reference = messages(document, "fast"), messages(document, "reference")
    assert want in fast
    assert fast == reference
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(document))
    assert js_messages(path) == fast


# --- item 6: no dumps, and the root ------------------------------------------------------------------------


def test_rule_findings_name_the_rule_and_quote_the_value_shortened(tmp_path: Path) -> None:
    suite = example("suite-qa-basic.json")
    suite["test_cases_file"] = "cases.jsonl"  # both sources: the rule, not the document
    suite["version"] = "1.1.0-" + "x" * 200 + "!"
    statement = rule_messages()
    expected = [
        ("INVALID_VERSION", "/version", statement["INVALID_VERSION"] + ' (got "1.1.0-' + "x" * 51 + '…")'),
        ("SUITE_TEST_CASES_SOURCE", "", statement["SUITE_TEST_CASES_SOURCE"]),
    ]
    assert messages(suite, "fast") == messages(suite, "reference") == expected
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite, indent=2))
    (tmp_path / "cases.jsonl").write_text(json.dumps(suite["test_cases"][0]) + "\n")  # followed: it must exist
    assert js_messages(path) == expected
    entry, case_line = json.loads(run("validate", "--format", "json", str(path)).stdout)["files"]
    assert (case_line["path"], case_line["line"], case_line["valid"]) == (str(tmp_path / "cases.jsonl"), 1, True)
    assert [e["pointer"] for e in entry["errors"]] == ["", "/version"]  # JSON keeps RFC 6901's root
    text = run("validate", str(path)).stdout.splitlines()
    assert text[1].split()[3] == "(root)"
    assert "::" + statement["SUITE_TEST_CASES_SOURCE"] not in run("validate", "--format", "github", str(path)).stdout
    assert "::(root): " in run("validate", "--format", "github", str(path)).stdout


# --- item 12: text output shows what was checked -----------------------------------------------------------


def test_text_output_verbose_default_and_quiet() -> None:
    folder = ROOT / "tests" / "data" / "cli" / "mixed"
    broken = [
        f"{folder}/resultset-broken.json  [resultset]",
        "      65:17  error  CONSTRAINT_INVALIDATES_PASS  /results/0/passed  " + rule_messages()["CONSTRAINT_INVALIDATES_PASS"],
    ]
    summary = "4 document(s): 3 valid, 1 invalid, 0 unreadable; 1 error(s), 0 warning(s)"
    assert run("validate", str(folder)).stdout.splitlines() == [*broken, summary]
    assert run("validate", "-v", str(folder)).stdout.splitlines() == [
        f"{folder}/grader-llm-judge.json  [grader]  valid",
        f"{folder}/pack-anchors.yaml  [pack]  valid",
        *broken,
        f"{folder}/suite-qa-basic.json  [suite]  valid",
        summary,
    ]
    assert run("validate", "--quiet", str(folder)).stdout.splitlines() == broken
    valid = run("validate", str(EXAMPLES / "suite-qa-basic.json"))
    assert valid.stdout.splitlines() == ["1 document(s): 1 valid, 0 invalid, 0 unreadable; 0 error(s), 0 warning(s)"]
    quiet_warnings = run("validate", "-q", str(EXAMPLES / "pack-legacy-fail-on-violation.json"))
    assert (quiet_warnings.returncode, quiet_warnings.stdout) == (0, "")


# --- item 7: the parameters of well-known grader types ----------------------------------------------------


def test_unknown_params_of_well_known_graders_are_reported_with_a_suggestion_and_fail_strict(tmp_path: Path) -> None:
    exact = {"id": "exact", "type": "exact_match", "params": {"ignorecase": True}}
    regex = {"id": "re", "type": "regex", "params": {"patern": "^ok$"}}
    custom = {"id": "c", "type": "custom", "params": {"handler": "pkg.mod:check", "ignorecase": True}}
    report = validate(exact)
    assert report.valid and [(f.code, f.pointer, f.message) for f in report.warnings] == [
        (
            "UNKNOWN_GRADER_PARAM",
            "/params/ignorecase",
            'unknown property "ignorecase"; did you mean "ignore_case"? (the "exact_match" grader\'s parameters are "ignore_case", "trim_whitespace")',
        ),
    ]
    assert [(f.code, f.pointer) for f in validate(regex).findings] == [
        ("GRADER_PARAMS_INVALID", "/params/pattern"),
        ("UNKNOWN_GRADER_PARAM", "/params/patern"),
    ]
    assert validate(custom).findings == ()
    for document in (exact, regex):
        path = tmp_path / f"{document['id']}.json"
        path.write_text(json.dumps(document))
        strict = run("validate", "--strict", "--format", "json", str(path))
        assert strict.returncode == 1
        proc = subprocess.run(["node", str(JS_CLI), "validate", "--format", "json", str(path)], capture_output=True, text=True, timeout=120)
        (entry,) = json.loads(proc.stdout)["files"]
        assert [(w["code"], w["pointer"], w["message"]) for w in entry["warnings"]] == [
            (f.code, f.pointer, f.message) for f in validate(document).warnings
        ]


# --- issue 17, item 2: messages are data ------------------------------------------------------------------

RENDER_CASES = json.loads((ROOT / "tests" / "data" / "messages" / "render.json").read_text())


def test_every_rule_has_a_message_template_with_known_parameters_only() -> None:
    schema = json.loads((ROOT / "spec" / "ledger.schema.json").read_text())
    pattern = schema["$defs"]["template"]["pattern"]
    assert set(pattern.split("\\{(")[1].split(")\\}")[0].split("|")) == PARAMETERS
    for code, rule in RULES.items():
        variants = [rule["message"]] if isinstance(rule["message"], str) else list(rule["message"].values())
        assert variants, code
        for text in variants:
            assert set(re.findall(r"\{([^{}]*)\}", text)) <= PARAMETERS, (code, text)
        assert template(code) in variants


@pytest.mark.parametrize("case", RENDER_CASES, ids=[f"{c['code']}-{i}" for i, c in enumerate(RENDER_CASES)])
def test_the_renderer_fills_templates_as_the_shared_table_says(case: dict[str, Any]) -> None:
    """tests/data/messages/render.json is also run by js/test/messages.test.ts: the same inputs, the same words."""
    assert render(case["code"], case.get("variant", "default"), **case["params"]) == case["expected"]


def test_numbers_are_shown_as_ecmascript_writes_them() -> None:
    """The one quoting rule for numbers, checked against JavaScript itself on random doubles of every magnitude."""
    if shutil.which("node") is None:
        pytest.fail("node is needed")
    rng = random.Random(17)
    values = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(3000)]
    values = [v for v in values if math.isfinite(v)] + [rng.uniform(-1e6, 1e6) for _ in range(500)] + [0.0, -0.0, 1e21, 1e-7, 5e-324]
    script = "const xs = JSON.parse(require('fs').readFileSync(0, 'utf8')); process.stdout.write(JSON.stringify(xs.map(String)));"
    out = subprocess.run(["node", "-e", script], input=json.dumps(values), capture_output=True, text=True, timeout=60, check=True)
    expected = json.loads(out.stdout)
    assert [number(v) for v in values] == expected
