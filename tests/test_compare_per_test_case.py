"""Compare's per-test-case view (spec 1.4.0, SPEC §12.4): each run's attempts reduce per test case by that run's own
reducer, as ``summarize`` reduces them (SPEC §4.7), next to the per-row paired difference; the paired difference of
the reduced values over the test cases both runs have; the text and Markdown show it; the document stays valid."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from html_pages import chromium, probe
from test_compare import _comparison_validator

from evalschema.compare import compare, compare_files
from evalschema.compare.render import render_markdown, render_text
from evalschema.report.comparehtml import render_compare_html
from evalschema.summary.states import summarize

ENVELOPE = {"version": "1.4.0", "suite_id": "s", "started_at": "2026-12-07T00:00:00Z"}


def _run(run_id: str, scores: dict[str, list[float | None]], reducer: dict[str, Any] | None, attempts: bool = True) -> dict[str, Any]:
    """A result set of one grader ``g`` (on a 1-10 scale) with the given scores per test case, in attempt order;
    ``None``: the attempt errored (after a grader scored it 1)."""
    rows: list[dict[str, Any]] = []
    for case, values in scores.items():
        for attempt, score in enumerate(values, 1):
            row: dict[str, Any] = {"test_case_id": case, "passed": False, "grader_results": []}
            if attempts:
                row["attempt"] = attempt
            if score is None:  # an errored attempt: its grader result leaves every per-test-case value
                row["error"] = {"type": "timeout", "message": "took too long"}
                row["grader_results"] = [{"grader_id": "g", "type": "custom", "score": 1.0, "passed": True}]
            else:
                row["passed"] = score >= 0.5
                row["grader_results"] = [
                    {"grader_id": "g", "type": "custom", "score": score, "raw_score": 1 + 9 * score, "passed": score >= 0.5}
                ]
            rows.append(row)
    document: dict[str, Any] = {**ENVELOPE, "run_id": run_id, "results": rows}
    if reducer is not None:
        document["graders"] = {"g": {"type": "custom", "scale": {"min": 1, "max": 10}, "reducer": reducer}}
    return document


BASE: dict[str, list[float | None]] = {"a": [0.0, 1.0, 1.0], "b": [0.5, None, 0.25], "c": [1 / 3], "d": [0.1, 0.7]}
NEW: dict[str, list[float | None]] = {"a": [1.0, 1.0, 1.0], "b": [0.0, 0.25], "c": [2 / 3, 0.1], "e": [1.0]}

REDUCERS: list[dict[str, Any] | None] = [
    None,
    {"method": "mean"},
    {"method": "median"},
    {"method": "mode"},
    {"method": "max"},
    {"method": "min"},
    {"method": "at_least", "k": 2, "threshold": 5},
    {"method": "pass_at", "k": 2, "threshold": 5},
]


@pytest.mark.parametrize("reducer", REDUCERS, ids=[str(r["method"]) if r else "none" for r in REDUCERS])
def test_each_side_is_its_own_summary_view(reducer: dict[str, Any] | None) -> None:
    """Each run reduced by its own reducer (the base by ``reducer``, the new one by ``max``): exactly what
    ``summarize`` of that run reports as ``by_grader.g.per_test_case``."""
    base, new = _run("b", BASE, reducer), _run("n", NEW, {"method": "max"})
    (grader,) = compare(base, new)["graders"]
    assert grader["base_per_test_case"] == summarize(base).by_grader["g"]["per_test_case"]
    assert grader["new_per_test_case"] == summarize(new).by_grader["g"]["per_test_case"]


def test_the_paired_difference_follows_the_formula() -> None:
    """max reduces base a, b, c, d to 1, 0.5, 1/3, 0.7 and new a, b, c, e to 1, 0.25, 2/3, 1: the paired test cases
    are a, b, c; the difference is the mean of 0, -0.25, 1/3 and its interval difference ± z·stderr."""
    document = compare(_run("b", BASE, {"method": "max"}), _run("n", NEW, {"method": "max"}))
    paired = document["graders"][0]["per_test_case_difference"]
    differences = [1.0 - 1.0, 0.25 - 0.5, 2 / 3 - 1 / 3]
    mean = math.fsum(differences) / 3
    stderr = math.sqrt(math.fsum((d - mean) ** 2 for d in differences) / 2) / math.sqrt(3)
    assert paired["test_cases"] == 3
    assert paired["base_mean"] == pytest.approx((1.0 + 0.5 + 1 / 3) / 3, abs=1e-15)
    assert paired["new_mean"] == pytest.approx((1.0 + 0.25 + 2 / 3) / 3, abs=1e-15)
    assert paired["difference"] == pytest.approx(mean, abs=1e-15)
    assert paired["stderr"] == pytest.approx(stderr, abs=1e-15)
    assert paired["interval"] == pytest.approx([mean - 1.959963984540054 * stderr, mean + 1.959963984540054 * stderr], abs=1e-12)


def test_a_test_case_without_a_reduced_value_is_not_paired() -> None:
    """pass@2 has no value for a test case of one attempt (c on the base side, e on the new one): not paired."""
    document = compare(_run("b", BASE, {"method": "pass_at", "k": 2}), _run("n", NEW, {"method": "pass_at", "k": 2}))
    assert document["graders"][0]["per_test_case_difference"]["test_cases"] == 2  # a and b; c has one base attempt


def test_no_view_without_attempts_and_one_side_alone() -> None:
    """Without `attempt` on either run there is no per-test-case view (as summarize); with it on one run only,
    that run's view and no paired difference."""
    plain = compare(_run("b", BASE, None, attempts=False), _run("n", NEW, None, attempts=False))
    assert not {"base_per_test_case", "new_per_test_case", "per_test_case_difference"} & set(plain["graders"][0])
    one = compare(_run("b", BASE, None, attempts=False), _run("n", NEW, {"method": "max"}))
    assert {"new_per_test_case"} == {"base_per_test_case", "new_per_test_case", "per_test_case_difference"} & set(one["graders"][0])
    assert "per test case (n/a \u2192 max): mean n/a \u2192 " in render_text(one)
    assert list(_comparison_validator().iter_errors(one)) == []


def test_rendered_and_valid() -> None:
    document = compare(_run("b", BASE, {"method": "median"}), _run("n", NEW, {"method": "pass_at", "k": 2, "threshold": 5}))
    assert list(_comparison_validator().iter_errors(document)) == []
    paired = document["graders"][0]["per_test_case_difference"]
    text = render_text(document)
    assert f"grader g per test case (median \u2192 pass_at): mean {document['graders'][0]['base_per_test_case']['avg_score']:.3f}" in text
    assert f"paired over {paired['test_cases']} test cases: " in text
    markdown = render_markdown(document)
    assert "| grader per test case | reducer | base mean | new mean | paired test cases | difference | interval |" in markdown
    assert f"| g | median \u2192 pass\\_at | {document['graders'][0]['base_per_test_case']['avg_score']:.3f} |" in markdown


PER_TEST_CASE_TABLE = """[...document.querySelectorAll("#per-test-case tbody tr")].map((tr) =>
  [tr.dataset.grader, ...[...tr.children].filter((td) => !td.querySelector("svg")).map((td) => td.textContent)])"""


def test_the_html_page_draws_the_view(tmp_path: Path) -> None:
    """The page's script draws each grader's per-test-case row from the document (read back in Chromium)."""
    browser = chromium()
    document = compare(_run("b", BASE, {"method": "median"}), _run("n", NEW, {"method": "pass_at", "k": 2, "threshold": 5}))
    (grader,) = document["graders"]
    page = tmp_path / "compare.html"
    page.write_text(render_compare_html(document, generated_at="2026-12-07T00:00:00Z"))
    paired = grader["per_test_case_difference"]
    low, high = (f"{v:+.3f}".replace("-", "\u2212") for v in paired["interval"])
    assert probe(browser, page, tmp_path, PER_TEST_CASE_TABLE) == [
        [
            "g",
            "g",
            "median \u2192 pass_at",
            f"{grader['base_per_test_case']['avg_score']:.3f}",
            f"{grader['new_per_test_case']['avg_score']:.3f}",
            str(paired["test_cases"]),
            f"{paired['difference']:+.3f}".replace("-", "\u2212"),
            f"{low}\u2026{high}",
        ]
    ]
    plain = compare(_run("b", BASE, None, attempts=False), _run("n", NEW, None, attempts=False))
    page.write_text(render_compare_html(plain, generated_at="2026-12-07T00:00:00Z"))
    assert probe(browser, page, tmp_path, PER_TEST_CASE_TABLE) == []  # no view, no table


def test_an_attempt_after_rows_without_one(tmp_path: Path) -> None:
    """Values are kept only once a row carries `attempt` (a run of single attempts pays nothing for the view); a
    row with `attempt` after rows without one makes compare start over keeping every value: the view is still the
    summary's, from documents and from files read in pieces."""
    base = _run("b", BASE, {"method": "max"})
    late = _run("n", NEW, {"method": "mean"})
    for row in late["results"][:3]:
        del row["attempt"]  # the first rows are the only attempts of their test cases... as far as they say
    for document in (compare(base, late), compare_files(*_files(tmp_path, base, late))):
        (grader,) = document["graders"]
        assert grader["base_per_test_case"] == summarize(base).by_grader["g"]["per_test_case"]
        assert grader["new_per_test_case"] == summarize(late).by_grader["g"]["per_test_case"]
    assert summarize(late).by_grader["g"]["per_test_case"]["test_cases"] == 4


def _files(folder: Path, base: dict[str, Any], new: dict[str, Any]) -> tuple[Path, Path]:
    paths = folder / "base.json", folder / "new.json"
    for path, document in zip(paths, (base, new)):
        path.write_text(json.dumps(document), encoding="utf-8")
    return paths
