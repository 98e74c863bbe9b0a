"""The HTML reports (issue 43): one template for both pages and both SDKs — the Python and the TypeScript command
write byte-equal pages from the same inputs; the page's data cannot break out of its script element; signed
difference bars on a zero axis; the failing reason and a shortened output in the failed-case table; pass rate per
suite × model over time — read back from headless Chromium, with a screenshot that is not blank."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from html_pages import chromium, page_data, probe, screenshot
from test_cli import _png_pixels

from evalschema.core.limits import MAX_VALUE_CHARS
from evalschema.report.comparehtml import render_compare_html
from evalschema.report.page import PLACEHOLDER, js_number, page_json, template

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
PY = Path(sys.executable).with_name("evalschema")
JS = ROOT / "js" / "dist" / "cli.js"
STAMP = {"SOURCE_DATE_EPOCH": "1796000000"}  # 2026-11-29T..., so that both pages say the same time
# a name that tries every way out of the page: markup, the script element, a comment, quotes, bidi and line separators
HOSTILE = "</script><script>alert(1)</script><!-- \"q\" 'a' &amp; \u202egnp.exe\u2028\u2029 \U0001f600"


def _node() -> None:
    if shutil.which("node") is None or not JS.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")


def _run(command: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=120, env={**os.environ, **STAMP})


def _runs(tmp_path: Path) -> list[Path]:
    """A folder of runs: qa-basic on two models over three days, one run with hostile ids, reasons, output and
    model, one failed row whose output is longer than the page shows."""
    base = json.loads((EXAMPLES / "resultset-grouped-sweep.json").read_text())
    del base["summary"], base["group"]
    folder = tmp_path / "runs"
    folder.mkdir()
    paths = []
    for day, model, flip in [(1, "m-a", 0), (2, "m-a", 1), (3, "m-a", 2), (1, "m-b", 1), (3, "m-b", 0)]:
        document = copy.deepcopy(base)
        document["run_id"] = f"run-{model}-{day}"
        document["started_at"] = f"2026-11-0{day}T09:00:00Z"
        document["provider"] = {"model": model}
        for row in document["results"][:flip]:
            row["passed"] = not row["passed"]
            for grader in row.get("grader_results", []):
                grader["passed"] = row["passed"]
        paths.append(folder / f"{model}-{day}.json")
        paths[-1].write_text(json.dumps(document))
    hostile = copy.deepcopy(base)
    hostile["run_id"] = hostile["suite_id"] = HOSTILE
    hostile["provider"] = {"model": HOSTILE}
    failed = next(r for r in hostile["results"] if r["passed"] is False)
    failed["test_case_id"] = HOSTILE
    failed["grader_results"][0]["grader_id"] = HOSTILE
    failed["grader_results"][0]["reason"] = HOSTILE
    failed["actual_output"] = HOSTILE + "x" * 500
    paths.append(folder / "hostile.json")
    paths[-1].write_text(json.dumps(hostile))
    return paths


# --- one page from both SDKs ------------------------------------------------------------------------------------


@pytest.mark.parametrize("stream", ["always", "never"])
def test_both_sdks_write_the_same_summary_page(tmp_path: Path, stream: str) -> None:
    _node()
    inputs = [str(p) for p in _runs(tmp_path)] + [
        str(EXAMPLES / n) for n in ("resultset-aobench-rbac.json", "resultset-multi-attempt.json")
    ]
    py = _run([str(PY), "summarize", "--stream", stream, "--html", "py.html", *inputs], tmp_path)
    js = _run(["node", str(JS), "summarize", "--stream", stream, "--html", "js.html", *inputs], tmp_path)
    assert py.returncode == js.returncode == 0, py.stderr + js.stderr
    page = (tmp_path / "py.html").read_bytes()
    assert page == (tmp_path / "js.html").read_bytes()
    assert len(page_data(page.decode())["runs"]) == len(inputs)


def test_both_sdks_write_the_same_page_of_a_forced_invalid_result_set(tmp_path: Path) -> None:
    _node()
    document = json.loads((EXAMPLES / "resultset-grouped-sweep.json").read_text())
    del document["summary"]
    document["results"][0]["test_case_id"] = {"not": "a string"}  # shown as a dash in both
    document["results"][1]["grader_results"][0]["score"] = 1.3
    (tmp_path / "bad.json").write_text(json.dumps(document))
    py = _run([str(PY), "summarize", "--force", "--html", "py.html", "bad.json"], tmp_path)
    js = _run(["node", str(JS), "summarize", "--force", "--html", "js.html", "bad.json"], tmp_path)
    assert py.returncode == js.returncode == 1
    assert (tmp_path / "py.html").read_bytes() == (tmp_path / "js.html").read_bytes()
    (run,) = page_data((tmp_path / "py.html").read_text())["runs"]
    assert run["invalid"] >= 1


def test_both_sdks_write_the_same_compare_page(tmp_path: Path) -> None:
    """TypeScript's ``renderCompareHtml`` (for the lead's ``evalschema-js compare --html``) writes Python's page from
    the same comparison document and the same verdict and power lines."""
    _node()
    base, new = _compare_inputs(tmp_path)
    proc = _run([str(PY), "compare", str(base), str(new), "--html", "py.html", "--format", "json", "--resamples", "0"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "document.json").write_text(proc.stdout)
    data = page_data((tmp_path / "py.html").read_text())
    assert data["comparison"] == json.loads(proc.stdout)
    lines = json.dumps({"verdict": data["verdict"], "power": data["power"]})
    script = (
        f"import {{ renderCompareHtml }} from {json.dumps((ROOT / 'js' / 'dist' / 'report' / 'compareHtml.js').as_uri())};"
        "import { readFileSync, writeFileSync } from 'node:fs';"
        f"writeFileSync('js.html', renderCompareHtml(JSON.parse(readFileSync('document.json', 'utf-8')), {lines}));"
    )
    made = _run(["node", "--input-type=module", "-e", script], tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "py.html").read_bytes() == (tmp_path / "js.html").read_bytes()


def test_both_commands_write_the_same_compare_page(tmp_path: Path) -> None:
    """``evalschema-js compare --html`` writes Python's page, byte for byte, and prints the same report."""
    _node()
    base, new = _compare_inputs(tmp_path)
    argv = ["compare", str(base), str(new), "--resamples", "0"]
    py = _run([str(PY), *argv, "--html", "py.html"], tmp_path)
    js = _run(["node", str(JS), *argv, "--html", "js.html"], tmp_path)
    assert py.returncode == js.returncode == 0, py.stderr + js.stderr
    assert py.stdout == js.stdout
    assert (tmp_path / "py.html").read_bytes() == (tmp_path / "js.html").read_bytes()


@pytest.mark.parametrize("how", ["itself", "hardlink"])
def test_compare_html_never_replaces_an_input(how: str, tmp_path: Path) -> None:
    _node()
    base, new = _compare_inputs(tmp_path)
    target = new
    if how == "hardlink":
        target = tmp_path / "link.json"
        os.link(new, target)
    before = new.read_bytes()
    for command in ([str(PY)], ["node", str(JS)]):
        proc = _run([*command, "compare", str(base), str(new), "--html", str(target)], tmp_path)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert f"{target}: is an input; the output would replace it; nothing was changed" in proc.stderr
        assert new.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["base.json", "new.json", *(["link.json"] if how == "hardlink" else [])])


def test_the_typescript_command_refuses_an_html_target_as_python_does(tmp_path: Path) -> None:
    _node()
    example = str(EXAMPLES / "resultset-aobench-rbac.json")
    for target, reason in [("missing/r.html", "missing: no such folder"), (".", ".: not a regular file (a folder)")]:
        py = _run([str(PY), "summarize", "--html", target, example], tmp_path)
        js = _run(["node", str(JS), "summarize", "--html", target, example], tmp_path)
        assert py.returncode == js.returncode == 2 and js.stdout == ""
        assert reason in py.stderr and js.stderr == py.stderr.replace("evalschema:", "evalschema-js:")
    assert list(tmp_path.iterdir()) == []  # nothing made, no temporary file left


# --- the data cannot break out of the page ----------------------------------------------------------------------


def test_the_embedded_data_is_inert_and_reads_back() -> None:
    data = {"id": HOSTILE, "n": [0.1, 1e-7, 1e21, 2**60, -0.0, 7 / 9], "10": 1, "2": 2}
    text = page_json(data)
    assert text.isascii() and not any(c in text for c in "<>&") and "\u2028" not in text
    assert json.loads(text) == {**data, "n": [0.1, 1e-7, 1e21, 1152921504606847000, 0, 7 / 9]}
    assert list(json.loads(text)) == ["10", "2", "id", "n"]  # code unit order, as JavaScript sorts
    assert [js_number(v) for v in (1e-7, 1e21, 1e20, 123.0, 2**60, 5e-324)] == [
        "1e-7",
        "1e+21",
        "100000000000000000000",
        "123",
        "1152921504606847000",
        "5e-324",
    ]
    page = template()
    assert page.count(PLACEHOLDER) == 1 and page.count("</script>") == 2


def test_numbers_are_written_as_javascript_writes_them() -> None:
    _node()
    import random
    import struct

    rnd = random.Random(43)
    values = [struct.unpack("d", struct.pack("Q", rnd.getrandbits(64)))[0] for _ in range(2000)]
    values = [v for v in values if v == v] + [rnd.random() * 10 ** rnd.randint(-25, 25) for _ in range(2000)]
    script = (
        "const a=JSON.parse(require('fs').readFileSync(0,'utf8'));process.stdout.write(JSON.stringify(a.map(x=>JSON.stringify(Number(x)))))"
    )
    node = subprocess.run(["node", "-e", script], input=json.dumps([repr(v) for v in values]), capture_output=True, text=True, timeout=60)
    assert [js_number(v) for v in values] == json.loads(node.stdout)


# --- read back in Chromium --------------------------------------------------------------------------------------


def _compare_inputs(tmp_path: Path) -> tuple[Path, Path]:
    document = json.loads((EXAMPLES / "resultset-grouped-sweep.json").read_text())
    del document["summary"]
    new = copy.deepcopy(document)
    for row in new["results"]:
        row["passed"] = False
        for grader in row.get("grader_results", []):
            grader["passed"], grader["score"] = False, 0.0
    (tmp_path / "base.json").write_text(json.dumps(document))
    (tmp_path / "new.json").write_text(json.dumps(new))
    return tmp_path / "base.json", tmp_path / "new.json"


BARS = """[...document.querySelectorAll("#graders tbody tr")].map((tr) => {
  const rect = tr.querySelector("rect.diffbar"), zero = Number(tr.querySelector("[data-axis=zero]").getAttribute("x1")), box = rect.getBBox();
  return { grader: tr.dataset.grader, sign: rect.dataset.sign, text: tr.querySelector("[data-difference]").textContent, fill: rect.getAttribute("fill"),
    left: Math.round((box.x - zero) * 10) / 10, right: Math.round((box.x + box.width - zero) * 10) / 10,
    pixels: Math.round(rect.getBoundingClientRect().width * 10) / 10 };
})"""


def test_compare_bars_are_signed_on_a_zero_axis(tmp_path: Path) -> None:
    browser = chromium()
    base, new = _compare_inputs(tmp_path)
    document = json.loads(
        subprocess.run(
            [str(PY), "compare", str(base), str(new), "--format", "json", "--resamples", "0"], capture_output=True, text=True, timeout=120
        ).stdout
    )
    template_grader = document["graders"][0]
    document["graders"] = [
        {**template_grader, "grader_id": name, "difference": difference, "interval": [difference - 0.05, difference + 0.05]}
        for name, difference in (("all-lost", -1.0), ("slightly-worse", -0.075), ("better", 0.3), (HOSTILE, 0.0))
    ]
    page = tmp_path / "compare.html"
    page.write_text(render_compare_html(document, generated_at="2026-12-07T00:00:00Z"))
    bars = probe(browser, page, tmp_path, BARS)
    by = {b["grader"]: b for b in bars}
    assert [b["grader"] for b in bars] == ["all-lost", "slightly-worse", "better", HOSTILE]  # the hostile id, as text
    # 100 px per 1.0 on each side of the axis: -1.0 fills the left half, -0.075 is a short bar, both left of zero
    assert (by["all-lost"]["sign"], by["all-lost"]["left"], by["all-lost"]["right"]) == ("-", -100, 0)
    assert (by["slightly-worse"]["sign"], by["slightly-worse"]["left"], by["slightly-worse"]["right"]) == ("-", -7.5, 0)
    assert (by["better"]["sign"], by["better"]["left"], by["better"]["right"]) == ("+", 0, 30)
    assert [b["text"] for b in bars] == ["\u22121.000", "\u22120.075", "+0.300", "+0.000"]
    assert by["all-lost"]["fill"] == by["slightly-worse"]["fill"] != by["better"]["fill"]
    assert by["all-lost"]["pixels"] >= 10 * by["slightly-worse"]["pixels"] > 0  # as drawn on the screen, too
    _not_blank(screenshot(browser, page, tmp_path))


SUMMARY = """({
  scripts: document.querySelectorAll("script").length, images: document.querySelectorAll("img, iframe, link").length,
  title: document.title,
  failed: [...document.querySelectorAll("table.cases[data-list=failed] tbody tr")].map((tr) =>
    Object.fromEntries([...tr.children].map((td) => [td.dataset.column, td.textContent]))),
  series: [...document.querySelectorAll("#trend g.series")].map((g) => ({ suite: g.dataset.suite, model: g.dataset.model,
    points: [...g.querySelectorAll("circle.point")].map((c) => [c.dataset.run, Number(c.dataset.rate), Math.round(c.getBoundingClientRect().left)]) })),
  runs: [...document.querySelectorAll("#runs tbody tr")].map((tr) => tr.children[3].textContent),
  headings: [...document.querySelectorAll(".run h2")].map((h) => h.textContent),
  models: [...document.querySelectorAll(".run .meta code")].map((c) => c.textContent),
})"""


def test_summary_page_in_chromium(tmp_path: Path) -> None:
    browser = chromium()
    paths = _runs(tmp_path)
    page = tmp_path / "summary.html"
    # given newest first: the chart and the table put them in time order themselves
    proc = subprocess.run(
        [str(PY), "summarize", "--html", str(page), *map(str, reversed(paths))], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    seen = probe(browser, page, tmp_path, SUMMARY)
    assert seen["scripts"] == 3 and seen["images"] == 0 and seen["title"] == "evalschema summary"  # data, page, probe: nothing injected
    hostile = next(r for r in seen["failed"] if r["test_case_id"] == HOSTILE)
    # the failing reason and the output, shortened to MAX_VALUE_CHARS code points with the count of the rest
    assert hostile["graders"].startswith(HOSTILE + ", ")
    assert hostile["reasons"].startswith(HOSTILE + ": " + HOSTILE)
    output = HOSTILE + "x" * 500
    assert hostile["output"] == output[:MAX_VALUE_CHARS] + f"… ({len(output) - MAX_VALUE_CHARS:,} more characters)"
    assert seen["models"].count(HOSTILE) == 3  # its suite, run and model, read back as text
    # one line per suite × model with two runs or more, its points in time order, left to right
    series = {(s["suite"], s["model"]): s["points"] for s in seen["series"]}
    assert sorted(series) == [("qa-basic", "m-a"), ("qa-basic", "m-b")]
    assert [p[0] for p in series["qa-basic", "m-a"]] == ["run-m-a-1", "run-m-a-2", "run-m-a-3"]
    assert [p[0] for p in series["qa-basic", "m-b"]] == ["run-m-b-1", "run-m-b-3"]
    data = {r["run_id"]: r["summary"]["pass_rate"] for r in page_data(page.read_text())["runs"]}
    for points in series.values():
        assert [p[1] for p in points] == [data[p[0]] for p in points]
        assert [p[2] for p in points] == sorted(p[2] for p in points) and len({p[2] for p in points}) == len(points)
    assert series["qa-basic", "m-a"][0][2] == series["qa-basic", "m-b"][0][2]  # the same day, the same x
    # the runs' table under the chart, in time order (runs of the same time as given; the hostile run's time is the example's)
    assert [r for r in seen["runs"] if r.startswith("run-")] == ["run-m-b-1", "run-m-a-1", "run-m-a-2", "run-m-b-3", "run-m-a-3"]
    _not_blank(screenshot(browser, page, tmp_path, "1200,2400"))


def test_invalid_run_banner_in_chromium(tmp_path: Path) -> None:
    browser = chromium()
    document = json.loads((EXAMPLES / "resultset-grouped-sweep.json").read_text())
    del document["summary"]
    for row in document["results"]:
        for grader in row.get("grader_results", []):
            grader["score"] = 1.3
    (tmp_path / "bad.json").write_text(json.dumps(document))
    page = tmp_path / "bad.html"
    proc = subprocess.run(
        [str(PY), "summarize", "--force", "--html", str(page), str(tmp_path / "bad.json"), str(EXAMPLES / "resultset-aobench-rbac.json")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    banners = probe(
        browser, page, tmp_path, '[...document.querySelectorAll(".banner")].map((b) => [b.closest(".run").dataset.run, b.textContent])'
    )
    assert banners == [
        [
            document["run_id"],
            f"Not a valid result set ({page_data(page.read_text())['runs'][0]['invalid']} error(s)): these numbers may be ones the "
            "specification makes impossible. Run evalschema validate on it.",
        ]
    ]


def _not_blank(shot: Path) -> None:
    width, channels, rows = _png_pixels(shot.read_bytes())
    colours = {row[x : x + 3] for row in rows[::7] for x in range(0, width * channels, channels * 5)}
    assert len(colours) > 20, f"the screenshot {shot} is blank"


def test_summary_fields_the_page_does_not_draw_are_listed(tmp_path: Path) -> None:
    """A newer summary's fields (per test case, raw scale, …) reach the page as data and are listed as they are."""
    from evalschema.report.html import render_html
    from evalschema.summary.states import summarize

    browser = chromium()
    document = json.loads((EXAMPLES / "resultset-aobench-rbac.json").read_text())
    summary = summarize(document)

    class Newer:
        def to_dict(self) -> dict[str, object]:
            return {**summary.to_dict(), "by_test_case": {HOSTILE: {"passed": 1}}, "raw_scale": [0, 10]}

    page = tmp_path / "newer.html"
    page.write_text(render_html([("newer.json", document, Newer())], generated_at="2026-12-07T00:00:00Z"))  # type: ignore[list-item]
    rows = probe(
        browser,
        page,
        tmp_path,
        '[...document.querySelectorAll("details.more tr[data-field]")].map((tr) => [tr.dataset.field, tr.children[1].textContent])',
    )
    assert rows == [["by_test_case", json.dumps({HOSTILE: {"passed": 1}}, indent=1, ensure_ascii=False)], ["raw_scale", "[\n 0,\n 10\n]"]]
