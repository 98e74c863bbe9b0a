"""``validate -j N`` and ``summarize -j N`` print exactly what ``-j 1`` prints: a folder of every conformance
fixture and example, and a JSON Lines file (blank lines, CRLF, unreadable lines, findings on late lines, suites
whose ``test_cases_file`` is followed) cut into byte ranges at line boundaries — in every output form and with
every option that changes what is printed (``-v``, ``-q``, ``--only-declared``, ``--suite``; ``--force``,
``--html`` with its case lists)."""

from __future__ import annotations

import argparse
import json
import re
from itertools import pairwise
from pathlib import Path

import pytest
from html_pages import page_data

from evalschema import cli
from evalschema.cli import parallel

ROOT = Path(__file__).resolve().parents[1]


def _documents() -> list[dict[str, object]]:
    fixtures = [json.loads(p.read_text("utf-8"))["document"] for p in sorted((ROOT / "spec/conformance").glob("*.json"))]
    examples = [json.loads(p.read_text("utf-8")) for p in sorted((ROOT / "spec/examples").glob("*.json"))]
    return [d for d in fixtures + examples if isinstance(d, dict)]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("parallel")
    documents = _documents()
    for index, document in enumerate(documents):
        (folder / f"doc{index:03}.json").write_text(json.dumps(document, indent=1), "utf-8")
    lines: list[bytes] = []
    for index, document in enumerate(documents * 2):
        lines.append(json.dumps(document).encode("utf-8") + (b"\r\n" if index % 7 == 0 else b"\n"))
        if index % 11 == 0:
            lines.append(b"\n")  # blank lines count as lines
        if index % 13 == 0:
            lines.append(b'{"version": "1.1.0", "results": [\n')  # unreadable, with a line and column
    # a suite whose test cases file beside it has findings on its lines, as a file and on late lines of many.jsonl
    cases = (ROOT / "spec/examples/support-regression-2026q4.jsonl").read_text("utf-8").splitlines()
    broken = [cases[0], json.dumps({**json.loads(cases[1]), "graders": "not-a-list"}), "", cases[2], '{"id": 7}']
    (folder / "cases.testcases.jsonl").write_text("\n".join(broken) + "\n", "utf-8")
    suite = json.loads((ROOT / "spec/examples/suite-jsonl-file.json").read_text("utf-8"))
    suite["test_cases_file"] = "cases.testcases.jsonl"
    (folder / "with-cases.suite.json").write_text(json.dumps(suite, indent=2), "utf-8")
    lines += [json.dumps(suite).encode("utf-8") + b"\n"] * 3
    lines.append(json.dumps(documents[0]).encode("utf-8"))  # no newline at the end
    (folder / "many.jsonl").write_bytes(b"".join(lines))
    return folder


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("command", ["validate", "summarize"])
def test_jobs_print_what_one_process_prints(
    command: str, inputs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "SPLIT_MIN", 0)  # cut every JSON Lines file, however small
    args = argparse.Namespace(paths=[str(inputs)], input_format=None, jobs=3)
    ranges = [t for t in parallel.plan(args) if t.end >= 0 and t.source == inputs / "many.jsonl"]
    assert len(ranges) == 3 * parallel.RANGES_PER_JOB  # the JSON Lines file is cut
    one = _run(capsys, command, "--format", "json", str(inputs))
    numbered = one[1].count('"line"') if command == "validate" else one[1].count("many.jsonl:")
    assert numbered > 100  # entries (and findings) with line numbers, in every range
    assert (one[2].count("many.jsonl: INVALID_JSON") >= 18) == (command == "summarize")  # unreadable lines: on stderr
    assert _run(capsys, command, "--format", "json", "-j", "3", str(inputs)) == one
    assert _run(capsys, command, "-j", "2", str(inputs)) == _run(capsys, command, str(inputs))


_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


@pytest.mark.parametrize(
    "options",
    [
        ["validate", "-v"],
        ["validate", "-q"],
        ["validate", "--format", "github"],
        ["validate", "--only-declared"],
        ["validate", "--strict", "--format", "json"],
        ["validate", "--suite", "{folder}/with-cases.suite.json", "--format", "json"],
        ["summarize", "--force"],
        ["summarize", "--force", "--format", "json"],
        ["summarize", "--html", "{out}"],
        ["summarize", "--force", "--html", "{out}"],
    ],
)
def test_every_option_prints_the_same(
    options: list[str], inputs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "SPLIT_MIN", 0)
    outputs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"report-{jobs}.html"
        argv = [o.format(folder=inputs, out=out) for o in options]
        outputs.append((_run(capsys, *argv, "-j", jobs, str(inputs)), _STAMP.sub("", out.read_text("utf-8")) if out.exists() else None))
    assert outputs[0] == outputs[1]
    (status, text, _), html = outputs[0]
    assert status in (1, 2) and text
    if options[0] == "summarize":
        assert "many.jsonl:" in text  # result sets on the lines of every range
    if options[0] == "validate" and "-q" not in options and "--only-declared" not in options:
        assert text.count("cases.testcases.jsonl") >= 4  # the suite's test cases, followed from the file and the lines
    if html is not None:  # the page's data (drawn by its script): the case lists, and a forced invalid run flagged
        runs = page_data(html)["runs"]
        assert runs and all("failed" in run["cases"] for run in runs)
        assert any(run["invalid"] for run in runs) == ("--force" in options)


def test_ranges_end_at_line_boundaries(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    content = b"".join(b"x" * (n % 17) + b"\n" for n in range(500)) + b"tail"
    path.write_bytes(content)
    for pieces in (1, 2, 7, 64, 10_000):
        ranges = parallel.line_ranges(path, pieces)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(content)
        assert all(a[1] == b[0] for a, b in pairwise(ranges))
        assert all(content[end - 1 : end] == b"\n" for _, end in ranges[:-1])
        parts = [parallel.LineRange(path, start, end) for start, end in ranges]
        assert all(sum(1 for _ in part.documents()) >= 0 and part.finished for part in parts)
        assert sum(part.lines for part in parts) == 501


def test_a_line_over_the_input_limit_stops_the_file_as_with_one_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "SPLIT_MIN", 0)
    monkeypatch.setenv("EVALSCHEMA_MAX_INPUT_BYTES", "8000")
    document = json.dumps(json.loads((ROOT / "spec/examples/resultset-multi-attempt.json").read_text("utf-8")))
    assert len(document) < 8000
    lines = [document] * 40 + ['{"version": "' + "x" * 9000 + '"}'] + [document, "{not json"] * 20
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    for command in ("validate", "summarize"):
        one = _run(capsys, command, "--format", "json", str(path))
        assert "line 41 is larger than the input size limit" in one[1] + one[2]
        assert "INVALID_JSON" not in one[1] + one[2]  # nothing after it was read
        assert _run(capsys, command, "--format", "json", "-j", "3", str(path)) == one


def test_jobs_must_be_a_positive_number(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("0", "-1", "two"):
        assert cli.main(["validate", "-j", bad, "x.json"]) == 2
        assert "a number of processes from 1 to 1024" in capsys.readouterr().err
