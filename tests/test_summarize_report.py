"""``evalschema summarize`` (issue 14, items 3, 9 and 13): it refuses what it cannot summarize honestly, its
report file keeps the umask, and its HTML report lists what a reader acts on — checked in headless Chromium, with
numbers and layout read back from the rendered page."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from html_pages import page_data
from tools import missing_tool

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "spec" / "examples"
SCRIPT = Path(sys.executable).with_name("evalschema")


def run(*args: str, umask: int | None = None) -> subprocess.CompletedProcess[str]:
    preexec = (lambda: os.umask(umask)) if umask is not None else None
    return subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=120, preexec_fn=preexec)


def example(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return document


def impossible(tmp_path: Path) -> Path:
    """A result set whose scores are out of range: its average would be 1.3, which the spec makes impossible."""
    document = example("resultset-grouped-sweep.json")
    del document["summary"]
    for row in document["results"]:
        for grader_result in row.get("grader_results", []):
            grader_result["score"] = 1.3
    path = tmp_path / "bad-results.json"
    path.write_text(json.dumps(document, indent=2))
    return path


# --- item 3: summarize refuses invalid input ----------------------------------------------------------------


def test_summarize_refuses_an_invalid_result_set_with_its_findings(tmp_path: Path) -> None:
    path = impossible(tmp_path)
    html = tmp_path / "report.html"
    proc = run("summarize", "--html", str(html), str(path))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == f"{path}  [resultset]"
    assert all(" error  OUT_OF_RANGE  /results/" in line for line in lines[1:-2]) and len(lines[1:-2]) == 6
    assert lines[-2:] == ["1 invalid result set(s): not summarized (use --force to see the numbers anyway)", ""]
    assert "1.300" not in proc.stdout and not html.exists()
    (item,) = json.loads(run("summarize", "--format", "json", str(path)).stdout)
    assert (item["valid"], "summary" in item, {e["code"] for e in item["errors"]}) == (False, False, {"OUT_OF_RANGE"})


def test_summarize_force_prints_the_numbers_under_a_warning_in_text_json_and_html(tmp_path: Path) -> None:
    path = impossible(tmp_path)
    html = tmp_path / "report.html"
    proc = run("summarize", "--force", "--html", str(html), str(path), str(EXAMPLES / "resultset-aobench-rbac.json"))
    assert proc.returncode == 1
    text = proc.stdout.splitlines()
    banner = "WARNING: not a valid result set (6 error(s)); these numbers may be ones the specification makes impossible"
    assert text[text.index(banner) + 1].startswith(f"{path}  (suite qa-basic")
    assert text.count(banner) == 1  # the valid one has none
    assert "average score 1.300" in proc.stdout
    # the page draws a banner over each run whose data says how many errors it has (read back in Chromium below)
    assert [r["invalid"] for r in page_data(html.read_text())["runs"]] == [6, None]
    valid = {i["path"]: i["valid"] for i in json.loads(run("summarize", "--force", "--format", "json", str(path)).stdout)}
    assert valid == {str(path): False}


def test_summarize_valid_input_is_unchanged() -> None:
    proc = run("summarize", str(EXAMPLES / "resultset-aobench-rbac.json"))
    assert proc.returncode == 0 and "WARNING" not in proc.stdout and "pass rate 50.0% of 2 scored" in proc.stdout


# --- item 9: the report keeps the umask ---------------------------------------------------------------------


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_html_report_gets_the_mode_the_umask_gives(tmp_path: Path, umask: int, mode: int) -> None:
    html = tmp_path / "new.html"
    assert run("summarize", "--html", str(html), str(EXAMPLES / "resultset-aobench-rbac.json"), umask=umask).returncode == 0
    assert html.stat().st_mode & 0o777 == mode
    html.chmod(0o640)  # an existing file keeps its own mode
    assert run("summarize", "--html", str(html), str(EXAMPLES / "resultset-aobench-rbac.json"), umask=umask).returncode == 0
    assert html.stat().st_mode & 0o777 == 0o640


# --- item 13: an HTML report a user acts on, in headless Chromium -------------------------------------------


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing in CI (.ci/run installs Debian's chromium)")
        missing_tool("chromium is not installed")
    return found


# Run in the page after layout: the numbers and boxes a reader sees, written where --dump-dom can read them.
PROBE = """<script>
window.addEventListener("load", () => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.top), Math.round(r.width)]; };
  const out = {
    runs: [...document.querySelectorAll(".group")].map((g) => [...g.querySelectorAll(".run")].map((r) => ({
      run: r.dataset.run, title: r.querySelector("h2").textContent, box: box(r),
      cards: [...r.querySelectorAll(".numbers div")].map(box),
      metrics: Object.fromEntries([...r.querySelectorAll("[data-metric]")].map((m) => [m.dataset.metric, m.textContent])),
      shares: Object.fromEntries([...r.querySelectorAll("[data-outcome]")].map((m) => [m.dataset.outcome, m.textContent])),
      lists: Object.fromEntries([...r.querySelectorAll("table.cases")].map((t) => [t.dataset.list,
        [...t.querySelectorAll("tbody tr")].map((tr) => Object.fromEntries([...tr.children].map((td) => [td.dataset.column, td.textContent])))])),
      durations: r.querySelector("[data-durations]")?.textContent ?? null,
      graders: r.querySelectorAll("table.graders tbody tr").length,
    }))),
    generated: document.querySelector("[data-generated]").textContent,
    images: document.querySelectorAll("img, script[src], link, iframe").length,
  };
  const pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out); document.body.append(pre);
});
</script>"""


def _render(browser: str, page: Path, tmp_path: Path) -> dict[str, Any]:
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
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
        "--window-size=1400,3000",
    ]
    dom = subprocess.run(
        [browser, *flags, "--virtual-time-budget=5000", "--dump-dom", probed.as_uri()], capture_output=True, text=True, timeout=120
    )
    start = dom.stdout.index('<pre id="probe">') + len('<pre id="probe">')
    import html

    seen: dict[str, Any] = json.loads(html.unescape(dom.stdout[start : dom.stdout.index("</pre>", start)]))
    return seen


def test_html_report_lists_cases_and_shows_a_group_side_by_side(tmp_path: Path) -> None:
    browser = _chromium()
    candidate = example("resultset-grouped-sweep.json")
    baseline = copy.deepcopy(candidate)
    baseline["run_id"] = "qa-basic-temp-sweep-2026-11-28-t000"
    baseline["group"].update(role="baseline", label="temperature=0.0", sequence=0)
    del baseline["summary"]
    evil = '<img src=x onerror="document.title=1">'
    next(r for r in baseline["results"] if r["test_case_id"] == "winter-sale-start")["test_case_id"] = evil  # escaped, never markup
    files = [tmp_path / "candidate.json", tmp_path / "baseline.json"]
    for path, document in zip(files, (candidate, baseline)):
        path.write_text(json.dumps(document, indent=2))
    html = tmp_path / "report.html"
    proc = run("summarize", "--html", str(html), str(EXAMPLES / "resultset-aobench-rbac.json"), *map(str, files))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    page = html.read_text()
    assert "http://" not in page and "https://" not in page.replace("https://evalschema.org", "")  # nothing to fetch
    seen = _render(browser, html, tmp_path)
    assert seen["images"] == 0
    version = json.loads((ROOT / "schemas" / "common.json").read_text())["$id"].split("/")[-2]
    assert seen["generated"].startswith(f"Generated by evalschema {version} at 20")
    (aobench,), (first, second) = seen["runs"]
    # the group: baseline (sequence 0) left of candidate, side by side, each headed by role and label
    assert (first["title"], second["title"]) == ("baselinetemperature=0.0", "candidatetemperature=0.7")
    assert first["box"][1] == second["box"][1] and first["box"][0] + first["box"][2] <= second["box"][0]
    for run_seen in (aobench, first, second):
        assert len({card[1] for card in run_seen["cards"]}) == 1, "a stat card wrapped onto a second row"
    assert aobench["metrics"] == {"total": "3", "pass_rate": "50.0%", "avg_score": "0.456", "invalidated": "1", "errored": "1"}
    assert aobench["shares"] == {
        "passed": "passed 1 (33%)",
        "failed": "failed 0 (0%)",
        "invalidated": "invalidated 1 (33%)",
        "errored": "errored 1 (33%)",
        "unscored": "unscored 0 (0%)",
    }
    assert aobench["lists"] == {
        "invalidated": [
            {
                "test_case_id": "tc_rbac_001",
                "attempt": "—",
                "constraints": "rbac_scope",
                "output": "The billing overrun on cluster-07 was caused by the retry storm logged at 03:14 UTC.",
                "duration_ms": "48210",
            }
        ],
        "errored": [
            {
                "test_case_id": "tc_capacity_007",
                "attempt": "—",
                "error_type": "provider_error",
                "error_message": "Upstream model endpoint returned 503 Service Unavailable after 3 retries.",
            }
        ],
    }
    assert aobench["durations"] == "Durations of 3 row(s): median 48,210 ms, max 120,004 ms, total 208,084 ms."
    assert aobench["graders"] == 7
    # the failed-case table says why (each failing grader's reason) and what was answered (issue 43)
    assert second["lists"]["failed"] == [
        {
            "test_case_id": "winter-sale-start",
            "attempt": "—",
            "graders": "iso-date, correctness-judge",
            "reasons": "iso-date: No YYYY-MM-DD date in the answer.correctness-judge: Vague; no date given.",
            "output": "The winter sale usually starts right after Christmas.",
            "duration_ms": "1420",
        }
    ]
    assert [row["test_case_id"] for row in first["lists"]["failed"]] == [evil]  # read back as text
    assert "<img" not in page


def test_typescript_summarize_refuses_too(tmp_path: Path) -> None:
    cli = ROOT / "js" / "dist" / "cli.js"
    if shutil.which("node") is None or not cli.exists():
        pytest.fail("node and js/dist/cli.js are needed (npm ci && npm run build in js/)")
    path = impossible(tmp_path)
    refused = subprocess.run(["node", str(cli), "summarize", "--format", "json", str(path)], capture_output=True, text=True, timeout=120)
    (item,) = json.loads(refused.stdout)
    assert (refused.returncode, item["valid"], "summary" in item, len(item["errors"])) == (1, False, False, 6)
    forced = subprocess.run(["node", str(cli), "summarize", "--force", str(path)], capture_output=True, text=True, timeout=120)
    assert forced.returncode == 1
    assert "WARNING: not a valid result set (6 error(s)); these numbers may be ones the specification makes impossible" in forced.stdout
