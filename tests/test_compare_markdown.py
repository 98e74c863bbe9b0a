"""``compare --format markdown`` (for ``$GITHUB_STEP_SUMMARY`` and pull request comments) and the power line of
``compare`` (issue 43, item 7): what a number of pairs can show at ``--alpha``, and that a test case id cannot
break out of its table cell."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from evalschema.compare import Options, compare
from evalschema.compare.render import fewest_significant, md, power_line, render_markdown
from evalschema.compare.stats import mcnemar
from evalschema.core.display import visible

ROOT = Path(__file__).resolve().parents[1]
ENVELOPE = {"version": "1.2.0", "suite_id": "qa", "started_at": "2026-11-30T00:00:00Z"}
HOSTILE = "a|b `code` <script>alert(1)</script> **x** [l](http://e) @team :tada:\nsecond line"


def row(case: str, passed: bool) -> dict[str, Any]:
    return {
        "test_case_id": case,
        "passed": passed,
        "grader_results": [{"grader_id": "g", "type": "t", "score": 1.0 if passed else 0.0, "passed": passed}],
    }


def runs(before: list[bool], after: list[bool], ids: list[str] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    names = ids or [f"case-{i}" for i in range(len(before))]
    return (
        {**ENVELOPE, "run_id": "b", "results": [row(n, p) for n, p in zip(names, before)]},
        {**ENVELOPE, "run_id": "n", "results": [row(n, p) for n, p in zip(names, after)]},
    )


def cli(tmp_path: Path, base: dict[str, Any], new: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "b.json").write_text(json.dumps(base))
    (tmp_path / "n.json").write_text(json.dumps(new))
    command = [sys.executable, "-m", "evalschema", "compare", str(tmp_path / "b.json"), str(tmp_path / "n.json"), *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2, 0.001, 1e-9])
def test_fewest_significant_is_the_first_count_mcnemar_calls_significant(alpha: float) -> None:
    k = fewest_significant(10_000, alpha)
    assert k is not None and mcnemar(k, 0)[0] < alpha <= mcnemar(k - 1, 0)[0]
    assert fewest_significant(k - 1, alpha) is None and fewest_significant(k, alpha) == k


def test_the_documented_closed_form_holds_in_the_exact_range() -> None:
    import math

    for alpha in (0.05, 0.01, 0.1, 0.3, 1e-4):
        assert fewest_significant(1000, alpha) == math.floor(math.log2(2 / alpha)) + 1


def test_three_pairs_say_no_drop_can_be_significant(tmp_path: Path) -> None:
    """Issue 43's case: 3 pairs, 100 % → 33 %: the gate passes (not significant), and the output says why."""
    base, new = runs([True] * 3, [True, False, False])
    out = cli(tmp_path, base, new, "--fail-on-regression", "--resamples", "0")
    assert out.returncode == 0, out.stderr
    assert (
        "power: no change can be significant at alpha 0.05 with 3 pair(s): even all of them flipping one way gives McNemar p = 0.25; it takes at least 6 pairs"
        in out.stdout
    )


def test_enough_pairs_state_the_smallest_significant_change() -> None:
    base, new = runs([True] * 200, [True] * 200)
    document = compare(base, new, Options(resamples=0))
    assert (
        power_line(document)
        == "power: with 200 pairs, the smallest change that can be significant at alpha 0.05 is 3.0 pt (6 pairs flipping one way, none the other)"
    )
    document = compare(base, new, Options(resamples=0, alpha=0.01))
    assert power_line(document).endswith("is 4.0 pt (8 pairs flipping one way, none the other)")


def _cells(html: str, table: int) -> list[list[str]]:
    body = re.findall(r"<table>(.*?)</table>", html, re.S)[table]
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S) for tr in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_markdown_escapes_every_quoted_value() -> None:
    ids = [HOSTILE, "plain"]
    base, new = runs([True, True], [False, True], ids)
    document = compare(base, new, Options(resamples=0))
    text = render_markdown(document)
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<script" not in html and "<code>" not in html and "<strong>x" not in html and "<a " not in html and "<em>" not in html
    flips = _cells(html, 2)
    assert len(flips) == 2 and all(len(cells) == 8 for cells in flips)  # no | in an id adds a cell
    from html import escape

    assert flips[1][1] == escape(visible(HOSTILE), quote=True)
    assert "\nsecond line" not in text


def test_md_round_trips_every_ascii_punctuation() -> None:
    punctuation = "".join(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum())
    html = MarkdownIt("commonmark").render(md("x" + punctuation + "y"))
    from html import escape

    assert html == "<p>" + escape("x" + punctuation + "y", quote=False).replace('"', "&quot;") + "</p>\n"


def test_markdown_format_from_the_command(tmp_path: Path) -> None:
    base, new = runs([True] * 10, [False] * 10)
    out = cli(tmp_path, base, new, "--format", "markdown", "--fail-on-regression", "--resamples", "0")
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "### evalschema compare"
    assert "significant regression" in lines[2] and lines[2].startswith("**")
    assert lines[4].startswith("> power: with 10 pairs, the smallest change that can be significant at alpha 0.05 is 60.0 pt")
    assert "**gate: fails with --fail-on-regression (significant drop)**" in lines
    html = MarkdownIt("commonmark").enable("table").render(out.stdout)
    assert len(_cells(html, 2)) == 11  # the header and the 10 flips
