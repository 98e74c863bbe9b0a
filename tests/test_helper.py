"""A helper process for one result set read in pieces (``validate -j 2`` on one file; ``evalschema.helper``).

The report is the one a single process gives (``tests/test_stream.py`` compares them on every document it streams);
here: what must hold when the helper is lost, when orjson's reading of a batch is not the exact one, that the
command line starts one, and that it always ends.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from evalschema import helper
from evalschema import pipeline as streaming
from evalschema.cli import main
from evalschema.io import stream
from evalschema.pipeline import validate_file, validate_stream

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import synthetic  # noqa: E402

pytestmark = pytest.mark.skipif(not helper.available(), reason="the helper is forked: this platform has no os.fork")


@pytest.fixture
def helpers(monkeypatch: pytest.MonkeyPatch) -> list[helper.RowsHelper]:
    """Every helper started (for any input size, with small batches: many verdicts per document)."""
    started: list[helper.RowsHelper] = []
    original = helper.RowsHelper.__init__

    def init(self: helper.RowsHelper, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        started.append(self)

    monkeypatch.setattr(helper.RowsHelper, "__init__", init)
    monkeypatch.setattr(streaming, "HELPER_MIN", 0)
    # threads other tests of the session left running (none of them holds a lock the helper needs)
    monkeypatch.setattr(streaming, "_other_threads", lambda: False)
    monkeypatch.setattr(stream, "BATCH_BYTES", 2000)
    return started


def _broken_resultset(path: Path, rows: int = 60, every: int = 17) -> Path:
    """A result set with an invalid row in every ``every`` and a wrong claimed summary after its rows."""
    document = synthetic.resultset(rows, attempts=3)
    for index in range(3 % every, rows, every):
        document["results"][index]["passed"] = "yes"  # the schema refuses it
    document["summary"] = {"total": rows + 1, "passed": 0, "failed": 0, "skipped": 0, "pass_rate": None, "avg_score": None, "by_grader": {}}
    path.write_text(json.dumps(document, indent=1))
    return path


def test_a_helper_checks_the_rows_and_builds_the_claimed_summary(
    helpers: list[helper.RowsHelper], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _broken_resultset(tmp_path / "set.json")
    alone = validate_file(target, stream_rows=True).to_dict()
    monkeypatch.setattr(streaming, "_summary_again", lambda *_: pytest.fail("the helper's summary is used, not a second read"))
    helped = validate_file(target, stream_rows=True, jobs=2).to_dict()
    assert helped == alone
    assert [h.summarizing for h in helpers] == [True]
    assert {f["code"] for f in helped["errors"]} == {"TYPE_MISMATCH"} and any(f["code"] == "SUMMARY_MISMATCH" for f in helped["warnings"])
    assert helpers[0].pid == -1  # waited for


@pytest.mark.parametrize("lost_after", [0, 1, 4])
def test_a_lost_helper_leaves_its_work_to_this_process(
    lost_after: int, helpers: list[helper.RowsHelper], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The helper dies after ``lost_after`` batches: the rest of the rows are checked here, the claimed summary
    read again. Every row is invalid: a batch wrongly vouched for shows."""
    target = _broken_resultset(tmp_path / "set.json", every=1)
    alone = validate_file(target, stream_rows=True).to_dict()
    serve = helper._serve

    class Dying:
        def __init__(self, inbox: Any) -> None:
            self.inbox, self.taken = inbox, 0

        def recv_bytes(self) -> bytes:
            if self.taken == lost_after:
                os._exit(9)
            self.taken += 1
            return bytes(self.inbox.recv_bytes())

    monkeypatch.setattr(helper, "_serve", lambda inbox, *rest: serve(Dying(inbox), *rest))  # type: ignore[arg-type]  # the fork runs it
    assert validate_file(target, stream_rows=True, jobs=2).to_dict() == alone
    assert len(helpers) == 1 and helpers[0].failed and helpers[0].pid == -1  # noticed, and waited for


def test_a_batch_orjson_misreads_goes_to_the_helper_as_its_exact_reading(
    helpers: list[helper.RowsHelper], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """orjson reads integers beyond 64 bits as doubles; the exact reading keeps them. Two attempts of a test case
    that only the exact reading tells apart decide its first attempt (the helper's summary must see them)."""
    document = synthetic.resultset(40, attempts=1)
    later, earlier = document["results"][6:8]
    earlier["test_case_id"] = later["test_case_id"]
    later["attempt"], earlier["attempt"] = 12345678901234567890124, 12345678901234567890123  # one double
    for row, passed in ((later, True), (earlier, False)):
        row.update(passed=passed, grader_results=[{"grader_id": "g", "type": "exact_match", "score": float(passed), "passed": passed}])
        row.pop("error", None)
        row.pop("constraint_violations", None)
    document["results"][12]["passed"] = 3  # and an invalid row
    document["summary"] = {"total": 40, "attempts": {"first_attempt_pass_rate": 0.0}}
    target = tmp_path / "exact.json"
    target.write_text(json.dumps(document))
    handed: list[bool] = []
    hand = helper.RowsHelper.hand

    def recorded(self: helper.RowsHelper, text: bytes | bytearray, items: list[Any] | None = None) -> None:
        handed.append(items is not None)
        hand(self, text, items)

    alone = validate_file(target, stream_rows=True).to_dict()
    monkeypatch.setattr(helper.RowsHelper, "hand", recorded)
    assert validate_file(target, stream_rows=True, jobs=2).to_dict() == alone
    assert any(handed) and not all(handed)
    assert any(f["pointer"] == "/results/12/passed" for f in alone["errors"])
    mismatches = [f["pointer"] for f in alone["warnings"] if f["code"] == "SUMMARY_MISMATCH"]
    assert "/summary/attempts/first_attempt_pass_rate" in mismatches and "/summary/total" not in mismatches


def test_no_process_to_be_had_means_one_process_does_it_all(
    helpers: list[helper.RowsHelper], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _broken_resultset(tmp_path / "set.json")
    alone = validate_file(target, stream_rows=True).to_dict()

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork's EAGAIN at a process limit

    monkeypatch.setattr(os, "fork", refused)
    assert validate_file(target, stream_rows=True, jobs=2).to_dict() == alone
    assert helpers == []


def test_the_helper_ends_when_the_input_breaks_midway(helpers: list[helper.RowsHelper], tmp_path: Path) -> None:
    target = tmp_path / "cut.json"
    target.write_bytes(_broken_resultset(tmp_path / "set.json").read_bytes()[:-5000])
    with target.open("rb") as handle:
        alone = validate_stream(handle)
    with target.open("rb") as handle:
        helped = validate_stream(handle, jobs=2)
    assert alone is not None and helped is not None and helped.to_dict() == alone.to_dict()
    assert helped.errors[0].code == "INVALID_JSON"
    assert len(helpers) == 1 and helpers[0].pid == -1


def test_no_helper_for_a_small_file_one_job_or_other_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: Any, **kwargs: Any) -> None:
        pytest.fail("no helper here")

    monkeypatch.setattr(helper, "RowsHelper", refused)
    threads_before = threading.active_count()  # other tests of the session may have left some running
    target = _broken_resultset(tmp_path / "set.json")
    assert target.stat().st_size < streaming.HELPER_MIN
    validate_file(target, stream_rows=True, jobs=2)
    monkeypatch.setattr(streaming, "HELPER_MIN", 0)
    monkeypatch.setattr(streaming, "_other_threads", lambda: threading.active_count() > threads_before)
    validate_file(target, stream_rows=True, jobs=1)
    # nor in a program running other threads: a forked child would inherit their locks held
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        validate_file(target, stream_rows=True, jobs=2)
    finally:
        release.set()
        other.join()


def test_validate_j2_on_one_file_starts_a_helper(helpers: list[helper.RowsHelper], tmp_path: Path) -> None:
    """``evalschema validate -j 2`` on one result set: the output of ``-j 1``, with a helper process."""
    target = _broken_resultset(tmp_path / "set.json")

    def run(*flags: str) -> tuple[int, str]:
        out = io.StringIO()
        with redirect_stdout(out):
            status = main(["validate", "--stream", "always", "--format", "json", *flags, str(target)])
        return status, out.getvalue()

    one = run()
    assert helpers == []
    assert run("-j", "2") == one
    assert len(helpers) == 1 and helpers[0].pid == -1
    assert one[0] == 1 and json.loads(one[1])["files"][0]["valid"] is False
