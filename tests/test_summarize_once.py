"""``evalschema summarize`` reads each JSON result set once (issue 22: one pass for the rules, the state across rows
and the summary): its findings, its reference summary, its HTML case lists and its attempt statistics all come from
that reading, in pieces or whole, and are the ones the separate readings give."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from evalschema import pipeline
from evalschema.cli import main
from evalschema.compare import attempt_statistics, files
from evalschema.core.findings import Finding
from evalschema.pipeline import summarize_file, validate_and_summarize_file, validate_file
from evalschema.report.html import CaseLists

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "spec" / "examples").glob("resultset-*.json"))
sys.path.insert(0, str(ROOT / "benchmarks"))
import synthetic  # noqa: E402


def _documents(tmp_path: Path) -> list[Path]:
    """The examples, a synthetic set with attempts, and one whose attempts repeat and whose rows are invalid."""
    many = tmp_path / "many.json"
    many.write_text(json.dumps(synthetic.resultset(300, attempts=3)))
    broken = synthetic.resultset(120, attempts=2)
    broken["results"][40] = dict(broken["results"][3])  # a repeated (test case, attempt): the first one counts
    broken["results"][7]["passed"] = "no"
    broken["summary"] = {"total": 1}
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps(broken, indent=1))
    return [*EXAMPLES, many, bad]


class Watched:
    """``each_row`` for ``validate_and_summarize_file``: each reading's case lists and attempt tally."""

    def __init__(self) -> None:
        self.made: list[tuple[CaseLists, files.AttemptTally]] = []

    def __call__(self) -> Callable[[Any], None]:
        lists, tally = CaseLists(), files.AttemptTally()
        self.made.append((lists, tally))

        def both(row: Any) -> None:
            lists.add(row)
            tally.add(row)

        return both


@pytest.mark.parametrize("stream_rows", [False, True])
def test_one_reading_gives_what_the_separate_readings_give(stream_rows: bool, tmp_path: Path) -> None:
    for path in _documents(tmp_path):
        watched = Watched()
        report, summarized = validate_and_summarize_file(path, stream_rows=stream_rows, place_limit=None, each_row=watched)
        assert report.to_dict() == validate_file(path, "resultset", stream_rows=stream_rows).to_dict(), path
        apart = CaseLists()
        reference = summarize_file(path, stream_rows=stream_rows, each_row=apart.add)
        assert summarized is not None and not isinstance(reference, Finding)
        assert summarized[0] == reference[0] and summarized[1].to_dict() == reference[1].to_dict(), path
        lists, tally = watched.made[-1]
        assert (lists.rows, lists.counts) == (apart.rows, apart.counts), path
        assert tally.to_dict() == attempt_statistics(path), path


def _summarize(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(["summarize", *args])
    return status, out.getvalue()


@pytest.mark.parametrize("stream", ["always", "never"])
def test_the_command_reads_each_file_once(stream: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [str(p) for p in _documents(tmp_path)]
    html = tmp_path / "report.html"
    before = _summarize("--stream", stream, "--force", "--format", "json", *paths)
    monkeypatch.setattr(pipeline, "summarize_file", lambda *a, **k: pytest.fail("read again to summarize"))
    monkeypatch.setattr("evalschema.cli.summarizing.summarize_file", lambda *a, **k: pytest.fail("read again to summarize"))
    monkeypatch.setattr(files, "read_rows", lambda *a, **k: pytest.fail("read again for the attempt statistics"))
    monkeypatch.setattr(files, "attempt_statistics", lambda *a, **k: pytest.fail("read again for the attempt statistics"))
    monkeypatch.setattr("evalschema.compare.attempt_statistics", lambda *a, **k: pytest.fail("read again for the attempt statistics"))
    opened: list[str] = []
    original = pipeline._open

    def counted(file: Path) -> Any:
        opened.append(str(file))
        return original(file)

    monkeypatch.setattr(pipeline, "_open", counted)
    after = _summarize("--stream", stream, "--force", "--html", str(html), "--format", "json", *paths)
    assert after == before
    assert before[0] == 1  # the broken one is invalid, summarized anyway
    payload = json.loads(after[1])
    assert {item["path"] for item in payload if "attempt_statistics" in item} >= {
        str(tmp_path / "many.json"),
        str(tmp_path / "broken.json"),
    }
    assert opened == (paths if stream == "always" else [])  # read in pieces: opened once each; else read whole, once
    assert html.is_file()


def test_a_set_decided_before_its_rows_is_read_again_for_force(tmp_path: Path) -> None:
    """A newer major version decides the report before the rows are looked at: with ``--force`` its numbers come
    from reading the rows afterwards, as before."""
    document = json.loads((ROOT / "spec" / "examples" / "resultset-multi-attempt.json").read_text())
    document["$schema"] = "https://evalschema.org/schema/9.0.0/resultset.json"
    document["version"] = "9.0.0"
    path = tmp_path / "future.json"
    path.write_text(json.dumps(document))
    report, summarized = validate_and_summarize_file(path)
    assert summarized is None and [f.code for f in report.errors] == ["VERSION_UNSUPPORTED"]
    status, out = _summarize("--force", "--format", "json", str(path))
    (item,) = json.loads(out)
    reference = summarize_file(path)
    assert status == 1 and not isinstance(reference, Finding) and item["summary"]["total"] == reference[1].total
