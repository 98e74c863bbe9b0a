"""``summarize --format markdown`` (issue 43: ``$GITHUB_STEP_SUMMARY``, a pull request comment): the same bytes from
both CLIs over valid, invalid (refused, or under ``--force``), JSON Lines and odd inputs; every quoted value escaped
as compare's Markdown escapes it; and every member of the summary shown, so that a field the summary gains appears
without a change to the renderer."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from evalschema.cli.summarizecmd import render_markdown

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "spec" / "examples").glob("resultset-*.json"))
HOSTILE = "a|b `code` <script>x</script> **x** [l](http://e) @team\x1b[31m"


def _run(command: list[str], cwd: Path) -> tuple[int, bytes, bytes]:
    done = subprocess.run(command, cwd=cwd, capture_output=True, check=False, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"}, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("summaries-md")
    for path in EXAMPLES:
        (folder / path.name).write_bytes(path.read_bytes())
    good = json.loads((ROOT / "spec" / "examples" / "resultset-multi-attempt.json").read_text(encoding="utf-8"))
    bad: dict[str, Any] = copy.deepcopy(good)
    bad["results"][0]["passed"] = "yes"
    del bad["results"][1]["test_case_id"]
    (folder / "bad.json").write_text(json.dumps(bad, indent=1), encoding="utf-8")
    (folder / "both.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    odd = json.loads((ROOT / "spec" / "examples" / "resultset-grouped-sweep.json").read_text(encoding="utf-8"))
    odd["run_id"], odd["suite_id"] = None, {"b": [1, 2.5], "a": "x"}
    (folder / "odd.json").write_text(json.dumps(odd), encoding="utf-8")
    hostile = copy.deepcopy(good)
    hostile["suite_id"] = HOSTILE
    hostile["results"][0]["grader_results"][0]["grader_id"] = HOSTILE
    (folder / "hostile.json").write_text(json.dumps(hostile), encoding="utf-8")
    return folder


CASES = [
    [p.name for p in EXAMPLES],
    ["resultset-multi-attempt.json", "bad.json"],
    ["--force", "resultset-multi-attempt.json", "bad.json"],
    ["--stream", "always", "bad.json", "resultset-multi-attempt.json"],
    ["both.jsonl"],
    ["--force", "both.jsonl"],
    ["--force", "odd.json"],
    ["--force", "hostile.json"],
    ["missing.json", "resultset-grouped-sweep.json"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_typescript_summarize_markdown_is_pythons(args: list[str], inputs: Path, built_js: Path) -> None:
    python = _run([sys.executable, "-m", "evalschema", "summarize", "--format", "markdown", *args], inputs)
    typescript = _run(["node", str(built_js), "summarize", "--format", "markdown", *args], inputs)
    assert python[1].startswith(b"### evalschema summarize\n"), python
    assert typescript[1] == python[1]
    assert typescript[0] == python[0]


def test_quoted_values_cannot_break_the_markdown(inputs: Path) -> None:
    out = _run([sys.executable, "-m", "evalschema", "summarize", "--format", "markdown", "--force", "hostile.json"], inputs)[1].decode()
    html = MarkdownIt("commonmark").enable("table").render(out)
    assert "<script>" not in html and "<code>" not in html and "<strong>x</strong>" not in html and "<a " not in html
    assert "\x1b" not in out
    assert "a\\|b \\`code\\` &lt;script&gt;" in out, "the hostile text is not quoted: this test would prove nothing"
    tables = [line for line in out.splitlines() if line.startswith("| ")]
    for line in tables:  # every row of a table has the cells of its header: no `|` of the input splits one
        header = next(t for t in reversed(tables[: tables.index(line) + 1]) if t.count(" | ") and "---" not in t)
        assert line.replace("\\|", "").count("|") in (header.replace("\\|", "").count("|"), 3), line


class _Summary:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        return self.data


def test_every_member_of_the_summary_is_shown() -> None:
    """A member the summary gains (per test case, a new rate) appears as a row or a table of its own."""
    summary = {
        "total": 2,
        "pass_rate": 0.5,
        "by_test_case": {"case-1": {"passed": 1, "flaky_rate": 0.25}, "case-2": {"passed": 0, "flaky_rate": None}},
        "extra": {"first": 3, "worst_rate": 0.125},
        "slowest": [{"test_case_id": "case-1", "duration_ms": 1200}],
    }
    out = render_markdown([("run.json", {"suite_id": "s", "run_id": "r"}, _Summary(summary))], {}, [], {}, force=False)
    assert out.splitlines() == [
        "### evalschema summarize",
        "",
        "#### run.json (suite s, run r)",
        "",
        "| summary | value |",
        "| --- | ---: |",
        "| total | 2 |",
        "| pass rate | 50.0 % |",
        "| extra: first | 3 |",
        "| extra: worst rate | 12.5 % |",
        "",
        "| by test case | passed | flaky rate |",
        "| --- | ---: | ---: |",
        "| case-1 | 1 | 25.0 % |",
        "| case-2 | 0 | — |",
        "",
        "| test case id | duration ms |",
        "| ---: | ---: |",
        "| case-1 | 1200 |",
    ]
