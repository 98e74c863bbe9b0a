"""``evalschema compare`` (SPEC.md §12): the oracle fixtures of ``spec/conformance/compare/`` in both SDKs, the
comparability rules, properties of the statistics, the command's exit statuses and its HTML report."""

from __future__ import annotations

import copy
import json
import math
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from html_pages import page_data
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from evalschema.compare import Options, compare, compare_files, stats, suite_digest
from evalschema.compare.core import _es_number

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "spec" / "conformance" / "compare"
CASES = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(FIXTURES.glob("*.json"))}
ORACLE = {name: case for name, case in CASES.items() if "mcnemar" in case["expect"]}
COMPARABILITY = {name: case for name, case in CASES.items() if "findings" in case["expect"]}
PER_TEST_CASE = {name: case for name, case in CASES.items() if "per_test_case" in case["expect"]}
LEDGER = {rule["id"]: rule for rule in json.loads((ROOT / "spec" / "ledger.json").read_text())["rules"]}
TOLERANCE = 1e-9


def _options(case: dict[str, Any]) -> Options:
    o = case["options"]
    return Options(alpha=o["alpha"], seed=o["seed"], resamples=o["resamples"], strict=o.get("strict", False))


def _close(actual: Any, expected: Any, where: str = "") -> list[str]:
    """Every difference between two JSON values: numbers within TOLERANCE, everything else equal."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            return [f"{where}: {actual!r} != {expected!r}"]
        return [d for key in expected for d in _close(actual[key], expected[key], f"{where}/{key}")]
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: {actual!r} != {expected!r}"]
        return [problem for i, (x, y) in enumerate(zip(actual, expected)) for problem in _close(x, y, f"{where}/{i}")]
    if isinstance(expected, float) and not isinstance(actual, bool) and isinstance(actual, (int, float)):
        return [] if math.isclose(actual, expected, rel_tol=0, abs_tol=TOLERANCE) else [f"{where}: {actual!r} != {expected!r}"]
    return [] if actual == expected and type(actual) is type(expected) else [f"{where}: {actual!r} != {expected!r}"]


def _against_oracle(document: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    test = document["mcnemar"]
    problems = _close({k: test[k] for k in expect["mcnemar"]}, expect["mcnemar"], "/mcnemar")
    rate = document["pass_rate"]
    got = {
        "base": {k: rate["base"][k] for k in ("passed", "scored", "interval")},
        "new": {k: rate["new"][k] for k in ("passed", "scored", "interval")},
        "difference": rate["difference"],
        "interval": rate["interval"],
    }
    problems += _close(got, expect["pass_rate"], "/pass_rate")
    problems += _close(document["changes"], expect["changes"], "/changes")
    problems += _close({k: document["pairs"][k] for k in expect["pairs"]}, expect["pairs"], "/pairs")
    if "attempts_base" in expect:
        problems += _close(document["attempts"]["base"], expect["attempts_base"], "/attempts/base")
    if "judge_bootstrap" in expect:
        judge = next(g for g in document["graders"] if g["grader_id"] == "judge")
        problems += _close(
            [judge["interval"], judge["difference"], judge["method"]],
            [expect["judge_bootstrap"], expect["judge_difference"], "paired_bootstrap"],
            "/graders/judge",
        )
    return problems


def test_there_are_at_least_fifty_oracle_fixtures() -> None:
    assert len(ORACLE) >= 50 - len(COMPARABILITY) and len(CASES) >= 50
    assert {c["expect"]["mcnemar"]["method"] for c in ORACLE.values()} == {"exact_binomial", "chi_square_corrected"}
    assert sum(1 for c in ORACLE.values() if "judge_bootstrap" in c["expect"]) >= 5
    assert sum(1 for c in ORACLE.values() if "attempts_base" in c["expect"]) >= 3


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_oracle_fixture_python(name: str) -> None:
    case = ORACLE[name]
    assert _close(stats.z_value(case["options"]["alpha"]), case["expect"]["z"]) == []
    assert _against_oracle(compare(case["base"], case["new"], _options(case)), case["expect"]) == []


def _against_per_test_case(document: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """Each grader's per-test-case members (spec 1.4.0) against the oracle's numbers (numpy, scipy)."""
    members = ("base_per_test_case", "new_per_test_case", "per_test_case_difference")
    got = {g["grader_id"]: {m: g[m] for m in members if m in g} for g in document["graders"]}
    return _close(got, expect["per_test_case"], "/graders")


@pytest.mark.parametrize("name", sorted(PER_TEST_CASE))
def test_per_test_case_fixture_python(name: str) -> None:
    case = PER_TEST_CASE[name]
    assert _against_per_test_case(compare(case["base"], case["new"], _options(case)), case["expect"]) == []


@pytest.mark.parametrize("name", sorted(COMPARABILITY))
def test_comparability_fixture_python(name: str) -> None:
    case = COMPARABILITY[name]
    document = compare(case["base"], case["new"], _options(case))
    found = [{"code": f["code"], "pointer": f["pointer"]} for f in document["findings"]]
    assert found == case["expect"]["findings"]
    assert document["comparable"] is (not found)
    severity = "error" if case["options"].get("strict") else "warning"
    assert {f["severity"] for f in document["findings"]} <= {severity}
    assert all(LEDGER[f["code"]].get("scope") == "comparison" for f in found)


def test_every_comparison_rule_has_a_fixture_and_a_twin() -> None:
    rules = {rule_id for rule_id, rule in LEDGER.items() if rule.get("scope") == "comparison"}
    triggered = {f["code"] for case in COMPARABILITY.values() for f in case["expect"]["findings"]}
    twins = {
        rule_id
        for rule_id in rules
        for name, case in COMPARABILITY.items()
        if name.startswith(rule_id.lower() + "__") and not case["expect"]["findings"]
    }
    assert rules == triggered == twins and len(rules) == 4


# --- the TypeScript SDK -----------------------------------------------------------------------------------

SCRIPT = """
import { compare } from %s;
import { readFileSync } from "node:fs";
const out = {};
for (const path of JSON.parse(readFileSync(0, "utf8"))) {
  const c = JSON.parse(readFileSync(path, "utf8"));
  const o = c.options;
  out[path] = compare(c.base, c.new, { alpha: o.alpha, seed: o.seed, resamples: o.resamples, strict: o.strict ?? false });
}
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def typescript() -> dict[str, dict[str, Any]]:
    """Every compare fixture through the TypeScript SDK's ``compare()`` (one node process)."""
    index = ROOT / "js" / "dist" / "index.js"
    if shutil.which("node") is None or not index.exists():
        if os.environ.get("CI"):
            pytest.fail("node and js/dist are required in CI")
        pytest.skip("node or js/dist/index.js is missing: npm ci && npm run build in js/")
    paths = [str(FIXTURES / f"{name}.json") for name in sorted(CASES)]
    done = subprocess.run(
        ["node", "--input-type=module", "-e", SCRIPT % json.dumps(index.as_uri())],
        input=json.dumps(paths),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return {Path(path).stem: document for path, document in out.items()}


@pytest.mark.parametrize("name", sorted(ORACLE))
def test_oracle_fixture_typescript(name: str, typescript: dict[str, dict[str, Any]]) -> None:
    assert _against_oracle(typescript[name], ORACLE[name]["expect"]) == []


@pytest.mark.parametrize("name", sorted(PER_TEST_CASE))
def test_per_test_case_fixture_typescript(name: str, typescript: dict[str, dict[str, Any]]) -> None:
    assert _against_per_test_case(typescript[name], PER_TEST_CASE[name]["expect"]) == []


def test_both_sdks_give_the_same_document(typescript: dict[str, dict[str, Any]]) -> None:
    """The whole document, every field: counts and flips equal, numbers within 1e-9, the bootstrap identical."""
    disagreements = {}
    for name, case in CASES.items():
        python = json.loads(json.dumps(compare(case["base"], case["new"], _options(case))))
        if problems := _close(typescript[name], python):
            disagreements[name] = problems[:5]
    assert disagreements == {}


def test_agreement_check_can_fail(typescript: dict[str, dict[str, Any]]) -> None:
    name = "bootstrap__judge_08_cases"
    case = CASES[name]
    other = compare(case["base"], case["new"], Options(seed=case["options"]["seed"] + 1, resamples=case["options"]["resamples"]))
    assert _close(typescript[name], json.loads(json.dumps(other))) != []


# --- properties -------------------------------------------------------------------------------------------

OUTCOMES = ("passed", "failed", "invalidated", "errored", "unscored")


def _row(case: str, attempt: int, outcome: str, score: float) -> dict[str, Any]:
    row: dict[str, Any] = {"test_case_id": case, "attempt": attempt, "passed": outcome == "passed"}
    if outcome == "errored":
        return {**row, "grader_results": [], "error": {"type": "provider_error"}}
    if outcome == "unscored":
        return {**row, "grader_results": [{"grader_id": "g", "type": "t", "score": None, "passed": False}]}
    row["grader_results"] = [{"grader_id": "g", "type": "t", "score": score, "passed": outcome == "passed"}]
    if outcome == "invalidated":
        row["constraint_violations"] = [{"id": "c", "invalidates_result": True}]
    return row


@st.composite
def run_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    size = draw(st.integers(0, 40))
    cells = draw(
        st.lists(
            st.tuples(st.sampled_from(OUTCOMES), st.sampled_from(OUTCOMES), st.floats(0, 1), st.floats(0, 1), st.integers(1, 3)),
            min_size=size,
            max_size=size,
        )
    )
    base, new = [], []
    for i, (x, y, s, t, attempt) in enumerate(cells):
        base.append(_row(f"c{i // 2}", attempt + 3 * (i % 2), x, s))
        new.append(_row(f"c{i // 2}", attempt + 3 * (i % 2), y, t))
    envelope = {"version": "1.2.0", "suite_id": "s", "run_id": "r", "started_at": "2026-11-30T00:00:00Z"}
    return {**envelope, "results": base}, {**envelope, "results": new}


def _quick(**kw: Any) -> Options:
    return Options(resamples=50, **kw)


@settings(max_examples=60, deadline=None)
@given(run_pairs())
def test_swapping_base_and_new_negates_the_deltas_and_keeps_p(runs: tuple[dict[str, Any], dict[str, Any]]) -> None:
    forward, backward = compare(*runs, _quick()), compare(runs[1], runs[0], _quick())
    assert forward["mcnemar"]["p_value"] == pytest.approx(backward["mcnemar"]["p_value"], abs=1e-12)
    ahead, behind = forward["pass_rate"], backward["pass_rate"]
    assert (ahead["difference"] is None) is (behind["difference"] is None)
    if ahead["difference"] is not None:
        assert ahead["difference"] == pytest.approx(-behind["difference"], abs=1e-12)
        assert ahead["interval"] == pytest.approx([-behind["interval"][1], -behind["interval"][0]], abs=1e-12)
    assert [g["difference"] for g in forward["graders"]] == pytest.approx([-g["difference"] for g in backward["graders"]], abs=1e-12)
    f, b = forward["mcnemar"], backward["mcnemar"]
    assert (f["both_passed"], f["base_only"], f["new_only"], f["neither"]) == (
        b["both_passed"],
        b["new_only"],
        b["base_only"],
        b["neither"],
    )
    # a discordant pair flips both ways (failed → invalidated is a flip one way only: both sides failed)
    assert (
        sum(
            x["base"] == "passed" or x["new"] == "passed"
            for x in forward["flips"]
            if x["change"] != "newly_errored" and x["change"] != "no_longer_errored"
        )
        == f["discordant"]
    )


@settings(max_examples=60, deadline=None)
@given(run_pairs(), st.randoms(use_true_random=False))
def test_shuffling_rows_changes_nothing(runs: tuple[dict[str, Any], dict[str, Any]], rng: random.Random) -> None:
    shuffled = [copy.deepcopy(r) for r in runs]
    for run in shuffled:
        rng.shuffle(run["results"])
    assert _close(compare(shuffled[0], shuffled[1], _quick()), compare(*runs, _quick())) == []


@settings(max_examples=60, deadline=None)
@given(run_pairs())
def test_identical_runs_have_no_flips_and_p_one(runs: tuple[dict[str, Any], dict[str, Any]]) -> None:
    document = compare(runs[0], copy.deepcopy(runs[0]), _quick())
    assert document["flips"] == [] and document["mcnemar"]["p_value"] == 1.0 and document["mcnemar"]["discordant"] == 0
    assert document["findings"] == [] and document["verdict"]["outcome"] in ("no_significant_change", "no_data")
    assert all(g["difference"] == 0 for g in document["graders"])


# --- the generator, the digest ----------------------------------------------------------------------------


def test_xoshiro128_reference_outputs() -> None:
    """xoshiro128** from the state (1, 2, 3, 4): the reference implementation's first outputs."""
    rng = stats.Xoshiro128(0)
    rng.s = [1, 2, 3, 4]
    assert [rng.next32() for _ in range(6)] == [11520, 0, 5927040, 70819200, 2031721883, 1637235492]


@pytest.mark.parametrize(
    ("value", "text"),
    [  # RFC 8785, appendix B, and ECMAScript's Number::toString
        (0.0, "0"),
        (-0.0, "0"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (9007199254740992.0, "9007199254740992"),
        (295147905179352830000.0, "295147905179352830000"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (123.456, "123.456"),
        (-1.5e-9, "-1.5e-9"),
        (333333333.3333333, "333333333.3333333"),
        (4.5, "4.5"),
        (2e-3, "0.002"),
        (10, "10"),
    ],
)
def test_suite_digest_writes_numbers_as_ecmascript_does(value: float, text: str) -> None:
    assert _es_number(value) == text


def test_suite_digest_is_canonical() -> None:
    suite = {"id": "qa", "b": [1.0, "é\u2028", {"z": None, "a": True}], "a\u00e9": 1, "\U0001f600": 2, "\ufb01": 3}
    reordered = {"\ufb01": 3, "\U0001f600": 2, "a\u00e9": 1, "b": [1, "é\u2028", {"a": True, "z": None}], "id": "qa"}
    digest = suite_digest(suite)
    assert digest == suite_digest(reordered) and digest.startswith("sha256:") and len(digest) == 71
    import hashlib

    canonical = (
        '{"a\u00e9":1,"b":[1,"\u00e9\u2028",{"a":true,"z":null}],"id":"qa","\U0001f600":2,"\ufb01":3}'  # UTF-16 order: U+D83D < U+FB01
    )
    assert digest == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


# --- the command ------------------------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evalschema", "compare", *args], capture_output=True, text=True, check=False, cwd=ROOT)


def _seeded_runs(tmp_path: Path, regress: bool) -> tuple[Path, Path]:
    rng = random.Random(19)
    envelope = {"version": "1.2.0", "suite_id": "qa", "started_at": "2026-11-30T00:00:00Z"}
    base, new = [], []
    for i in range(200):
        # a regression: 80 % pass before, 60 % after, independently; else 5 pass → fail and 3 fail → pass flips
        before = rng.random() < 0.8 if regress else i % 5 != 0
        after = rng.random() < 0.6 if regress else (before and i not in (1, 2, 3, 4, 6)) or i in (0, 5, 10)
        base.append(_row(f"case-{i:03d}", 1, "passed" if before else "failed", 0.9 if before else 0.2))
        new.append(_row(f"case-{i:03d}", 1, "passed" if after else "failed", 0.9 if after else 0.2))
    paths = tmp_path / "base.json", tmp_path / "new.json"
    paths[0].write_text(json.dumps({**envelope, "run_id": "b", "results": base}))
    paths[1].write_text(json.dumps({**envelope, "run_id": "n", "results": new}))
    return paths


def _comparison_validator() -> Draft202012Validator:
    schemas = [json.loads(p.read_text()) for p in (ROOT / "schemas").glob("*.json")]
    registry: Registry[Any] = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas)
    root = next(s for s in schemas if s["$id"].endswith("/comparison.json"))
    return Draft202012Validator(root, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_gate_fails_on_a_seeded_regression(tmp_path: Path) -> None:
    base, new = _seeded_runs(tmp_path, regress=True)
    proc = run(str(base), str(new), "--fail-on-regression", "--resamples", "200")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith("pass rate ") and first.endswith(": significant regression"), first
    assert "gate: fails with --fail-on-regression (significant drop)" in proc.stdout
    assert run(str(base), str(new), "--resamples", "0").returncode == 0, "without --fail-on-regression the gate never fails"
    assert run(str(new), str(base), "--fail-on-regression", "--resamples", "0").returncode == 0, "an improvement passes"


def test_gate_passes_on_a_seeded_non_regression_unless_the_drop_is_too_large(tmp_path: Path) -> None:
    base, new = _seeded_runs(tmp_path, regress=False)
    proc = run(str(base), str(new), "--fail-on-regression", "--format", "json", "--resamples", "200")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = json.loads(proc.stdout)
    assert list(_comparison_validator().iter_errors(document)) == []
    assert document["verdict"] == {"outcome": "no_significant_change", "significant": False, "gate_failed": False, "gate_reasons": []}
    drop = -document["pass_rate"]["difference"]
    assert 0 < drop < 0.05, drop
    tight = run(str(base), str(new), "--fail-on-regression", "--max-drop", f"{drop / 2}", "--resamples", "0", "--format", "json")
    assert tight.returncode == 1 and json.loads(tight.stdout)["verdict"]["gate_reasons"] == ["drop_exceeds_max"]


def test_strict_refuses_runs_that_are_not_comparable(tmp_path: Path) -> None:
    case = COMPARABILITY["compare_grader_changed__judge_model"]
    (tmp_path / "b.json").write_text(json.dumps(case["base"]))
    (tmp_path / "n.json").write_text(json.dumps(case["new"]))
    loose = run(str(tmp_path / "b.json"), str(tmp_path / "n.json"))
    assert loose.returncode == 0 and "warning  COMPARE_GRADER_CHANGED  /graders/judge/judge_model" in loose.stdout
    strict = run(str(tmp_path / "b.json"), str(tmp_path / "n.json"), "--strict")
    assert strict.returncode == 2 and "--strict refuses" in strict.stderr
    assert "error  COMPARE_GRADER_CHANGED" in strict.stdout
    same = run(str(tmp_path / "b.json"), str(tmp_path / "b.json"), "--strict")
    assert same.returncode == 0, same.stderr


def test_suite_option_checks_the_digest(tmp_path: Path) -> None:
    suite = json.loads((ROOT / "spec" / "examples" / "suite-qa-basic.json").read_text())
    case = COMPARABILITY["compare_suite_mismatch__same_suite"]
    (tmp_path / "suite.json").write_text(json.dumps(suite))
    right = {**case["base"], "suite_digest": suite_digest(suite)}
    (tmp_path / "b.json").write_text(json.dumps(right))
    (tmp_path / "n.json").write_text(json.dumps(case["new"]))
    proc = run(str(tmp_path / "b.json"), str(tmp_path / "b.json"), "--suite", str(tmp_path / "suite.json"), "--format", "json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["findings"] == []
    proc = run(str(tmp_path / "b.json"), str(tmp_path / "n.json"), "--suite", str(tmp_path / "suite.json"), "--format", "json")
    codes = [(f["code"], f["message"]) for f in json.loads(proc.stdout)["findings"]]
    assert [c for c, _ in codes] == ["COMPARE_SUITE_DIGEST_MISMATCH", "COMPARE_SUITE_DIGEST_MISMATCH"]
    assert "the new run's suite_digest" in codes[1][1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json", "missing.json"], "FILE_UNREADABLE"),
        (["--alpha", "1.5", "a", "b"], "must lie strictly between 0 and 1"),
        (["--seed", "-1", "a", "b"], "must not be negative"),
        (["--max-drop", "x", "a", "b"], "not a number"),
    ],
)
def test_bad_input_exits_2_with_a_message(args: list[str], message: str) -> None:
    proc = run(*args)
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_unparseable_result_set_exits_2(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"results": [1,]}')
    (tmp_path / "root.json").write_text("[1, 2]")
    for name in ("bad.json", "root.json"):
        proc = run(str(tmp_path / name), str(tmp_path / name))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "INVALID_JSON" in run(str(tmp_path / "bad.json"), str(tmp_path / "bad.json")).stderr


def test_files_are_streamed_like_documents(tmp_path: Path) -> None:
    case = ORACLE["outcomes__invalidated_and_errored"]
    (tmp_path / "b.json").write_text(json.dumps(case["base"], indent=2))
    (tmp_path / "n.yaml").write_text(json.dumps(case["new"]))  # YAML is read whole
    from_files = compare_files(tmp_path / "b.json", tmp_path / "n.yaml", _options(case))
    in_memory = compare(case["base"], case["new"], _options(case))
    assert from_files["base"].pop("path") == str(tmp_path / "b.json") and from_files["new"].pop("path") == str(tmp_path / "n.yaml")
    assert from_files == in_memory


# --- the HTML report --------------------------------------------------------------------------------------

HOSTILE = '<img src=x onerror="alert(1)">&amp;\'"'


def _html_runs(tmp_path: Path) -> tuple[Path, Path]:
    case = ORACLE["outcomes__invalidated_and_errored"]
    base, new = copy.deepcopy(case["base"]), copy.deepcopy(case["new"])
    flipped = compare(base, new, Options(resamples=0))["flips"][0]["test_case_id"]  # a regression: listed first
    for row in base["results"] + new["results"]:
        if row["test_case_id"] == flipped:
            row["test_case_id"] = HOSTILE
    base["runner"], new["runner"] = {"name": "r", "version": "1"}, {"name": "r", "version": HOSTILE}
    (tmp_path / "b.json").write_text(json.dumps(base))
    (tmp_path / "n.json").write_text(json.dumps(new))
    return tmp_path / "b.json", tmp_path / "n.json"


def test_html_report_escapes_everything_and_loads_nothing(tmp_path: Path) -> None:
    base, new = _html_runs(tmp_path)
    assert run(str(base), str(new), "--html", str(tmp_path / "r.html"), "--resamples", "0").returncode == 0
    page = (tmp_path / "r.html").read_text()
    assert "<img" not in page and 'onerror="' not in page
    # the page carries the values as data, every <, > and & a JSON escape; its script draws them as text
    assert '\\u003cimg src=x onerror=\\"alert(1)\\"\\u003e\\u0026amp;\'\\"' in page
    assert HOSTILE in [flip["test_case_id"] for flip in page_data(page)["comparison"]["flips"]]
    assert "http://" not in page and "https://" not in page and " src=" not in page.replace("src=x", "")


def test_text_report_escapes_what_it_quotes(tmp_path: Path) -> None:
    """A test case id that carries a line break, a forged workflow command and terminal escapes is printed as one
    inert line, as validate prints what it quotes; and --html refuses to replace a device."""
    base, new = _html_runs(tmp_path)
    forged = "x\n::error file=forged.py,line=1::owned\x1b]0;title\x07"
    for path in (base, new):
        document = json.loads(path.read_text())
        for row in document["results"]:
            if row["test_case_id"] == HOSTILE:
                row["test_case_id"] = forged
        path.write_text(json.dumps(document))
    out = run(str(base), str(new), "--resamples", "0")
    assert out.returncode == 0, out.stderr
    assert "\n::error" not in out.stdout and "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "x\\n::error file=forged.py,line=1::owned\\x1b]0;title\\x07" in out.stdout
    refused = run(str(base), str(new), "--html", "/dev/null")
    assert refused.returncode == 2 and "not a regular file" in refused.stderr


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI (.ci/run installs Debian's chromium)")
        pytest.skip("chromium is not installed")
    return found


def test_html_report_in_headless_chromium(tmp_path: Path) -> None:
    from test_cli import _png_pixels

    browser = _chromium()
    base, new = _html_runs(tmp_path)
    report = tmp_path / "report.html"
    json_out = run(str(base), str(new), "--html", str(report), "--format", "json", "--resamples", "0")
    document = json.loads(json_out.stdout)
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    dom = subprocess.run([browser, *flags, "--dump-dom", report.as_uri()], capture_output=True, text=True, timeout=120).stdout
    # read back what the browser built: the verdict, every flip in order (regressions first), the hostile id as text
    assert f'<p id="verdict" class="verdict {document["verdict"]["outcome"]}">' in dom
    rows = dom.split('<table id="flips">')[1].split("</tbody>")[0].count("<tr data-change=")
    assert rows == len(document["flips"]) > 0
    changes = [part.split('"')[0] for part in dom.split('<tr data-change="')[1:]]
    assert changes == [f["change"] for f in document["flips"]] and changes[0] == "newly_invalidated" and changes[-1] == "no_longer_errored"
    assert f'<span id="shown">{len(document["flips"])}</span>' in dom, "the filter script ran"
    assert '&lt;img src=x onerror="alert(1)"&gt;' in dom and "<img" not in dom
    assert dom.count('class="differs"') >= 1, "the differing runner is highlighted"
    shot = tmp_path / "shot.png"
    subprocess.run([browser, *flags, "--window-size=1000,1400", f"--screenshot={shot}", report.as_uri()], capture_output=True, timeout=120)
    width, channels, pixels = _png_pixels(shot.read_bytes())
    colours = {row[x : x + 3] for row in pixels[::5] for x in range(0, width * channels, channels * 3)}
    assert len(colours) > 20, "the screenshot is blank"
    assert bytes((0xFF, 0xF3, 0xE0)) in colours, "the differing provenance row is not highlighted"
    # signed bars (issue 43): green where the new run is better, red where it is worse
    signs = {math.copysign(1, g["difference"]) for g in document["graders"] if g["difference"]}
    assert signs and all(bytes((0x2E, 0x7D, 0x32) if s > 0 else (0xC6, 0x28, 0x28)) in colours for s in signs), "no difference bar drawn"


def test_summarize_shows_attempt_statistics(tmp_path: Path) -> None:
    """The multi-attempt example: three test cases of three attempts passing 2, 2 and 3 times (by hand: pass@2 of
    2 of 3 is 1 − C(1, 2)/C(3, 2) = 1; pass^2 is C(2, 2)/C(3, 2) = 1/3, of 3 of 3 it is 1)."""
    example = ROOT / "spec" / "examples" / "resultset-multi-attempt.json"
    expected = {
        "test_cases": 3,
        "multi_attempt_cases": 3,
        "flip_rate": 2 / 3,
        "by_k": [
            {"k": 1, "test_cases": 3, "pass_at_k": 7 / 9, "pass_hat_k": 7 / 9},
            {"k": 2, "test_cases": 3, "pass_at_k": 1.0, "pass_hat_k": 5 / 9},
            {"k": 3, "test_cases": 3, "pass_at_k": 1.0, "pass_hat_k": 1 / 3},
        ],
    }
    for stream in ("always", "never"):
        proc = subprocess.run(
            [sys.executable, "-m", "evalschema", "summarize", "--format", "json", "--stream", stream, str(example)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert _close(json.loads(proc.stdout)[0]["attempt_statistics"], expected) == []
    text = subprocess.run(
        [sys.executable, "-m", "evalschema", "summarize", str(example)], capture_output=True, text=True, check=False
    ).stdout
    assert "attempts: flip rate 66.7 % over 3 test case(s); pass@1 77.8 % pass^1 77.8 %, pass@2 100.0 % pass^2 55.6 %" in text


def test_release_1_2_0_is_a_minor_release_of_1_1_0() -> None:
    """The provenance fields and the comparison schema are compatible additions, and issue 16's rewrites are classified
    patch or minor by their x-compatibility annotations: ``evalschema diff`` says minor."""
    proc = subprocess.run(
        [sys.executable, "-m", "evalschema", "diff", "1.1.0", "1.2.0", "--format", "json"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["bump"] == "minor" and report["breaking"] == 0
    assert {f["level"] for f in report["findings"]} == {"info"}
    added = {f["location"] for f in report["findings"] if f["rule"] == "PROPERTY_ADDED_OPTIONAL"}
    provenance = {"grader.json#/properties/version", "resultset.json#/properties/suite_digest", "resultset.json#/properties/graders"}
    # besides the provenance fields, only the reserved metadata keys that issue 16 declares
    assert (
        provenance <= added
        and {a for a in added - provenance if not a.startswith("common.json#/$defs/Metadata/properties/evalschema.")} == set()
    )
    assert {
        f["location"]
        for f in report["findings"]
        if f["rule"] == "TYPE_DEFINITION_ADDED" and not f["location"].startswith("comparison.json#")
    } == {"resultset.json#/$defs/GraderProvenance"}
