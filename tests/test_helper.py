"""A helper process for one result set read in pieces (``validate -j 2`` on one file; ``evalschema.helper``).

The report is the one a single process gives (``tests/test_stream.py`` compares them on every document it streams);
here: that batches are shared between the two processes, what must hold when the helper is lost, when it cannot
vouch for a batch handed to it (orjson's reading is not the exact one, the batch's end is no row's end, the text
is broken), that the command line starts one, and that it always ends.
"""

from __future__ import annotations

import io
import json
import os
import signal
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


class Started(list[helper.RowsHelper]):
    """Every helper started, and the answers taken from them: a batch's row count, or ``None`` (not vouched for)."""

    answers: list[int | None]


@pytest.fixture
def helpers(monkeypatch: pytest.MonkeyPatch) -> Started:
    """Every helper started (for any input size, with small batches: many of them per document)."""
    started = Started()
    started.answers = []
    original, answer = helper.RowsHelper.__init__, helper.RowsHelper.answer

    def init(self: helper.RowsHelper, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        started.append(self)

    def answered(self: helper.RowsHelper) -> helper.Parts | None:
        got = answer(self)
        started.answers.append(None if got is None else got[0])
        return got

    monkeypatch.setattr(helper.RowsHelper, "__init__", init)
    monkeypatch.setattr(helper.RowsHelper, "answer", answered)
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


def test_the_helper_takes_batches_and_their_summary_is_joined_here(
    helpers: Started, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Batches go to both processes; the claimed summary is checked against the parts joined in reading order
    (a test case's attempts span batches of both), not read again; rows repeated across the two processes' batches
    are found."""
    target = _broken_resultset(tmp_path / "set.json", rows=200)
    document = json.loads(target.read_text())
    document["results"][150] = dict(document["results"][10])  # a repeated (test case, attempt), far apart
    target.write_text(json.dumps(document, indent=1))
    alone = validate_file(target, stream_rows=True).to_dict()
    read_here = 0
    add = helper.Split.add

    def counted(self: helper.Split, piece: Any) -> None:
        nonlocal read_here
        read_here += isinstance(piece, stream.Rows)
        add(self, piece)

    monkeypatch.setattr(helper.Split, "add", counted)
    monkeypatch.setattr(streaming, "_summary_again", lambda *_: pytest.fail("the summary is built while reading, not read again"))
    helped = validate_file(target, stream_rows=True, jobs=2).to_dict()
    assert helped == alone
    assert len(helpers) == 1 and len(helpers.answers) > 2 and None not in helpers.answers and read_here > 2
    assert sum(n or 0 for n in helpers.answers) < 200
    assert {f["code"] for f in helped["errors"]} == {"TYPE_MISMATCH", "DUPLICATE_ATTEMPT"}
    assert any(f["code"] == "SUMMARY_MISMATCH" for f in helped["warnings"])
    assert helpers[0].pid == -1  # waited for


@pytest.mark.parametrize("lost_after", [0, 1, 4])
def test_a_lost_helper_leaves_its_work_to_this_process(
    lost_after: int, helpers: Started, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
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


@pytest.fixture
def eager(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every batch found in one step goes to the helper (it never has too many to go)."""
    monkeypatch.setattr(helper.Split, "AHEAD", 1 << 30)


def test_a_batch_orjson_misreads_is_read_here_again(helpers: Started, eager: None, tmp_path: Path) -> None:
    """orjson reads integers beyond 64 bits as doubles; the exact reading keeps them. Two attempts of a test case
    that only the exact reading tells apart decide its first attempt (the summary must see them): the helper does
    not vouch for their batch, which is read here, exactly, and the batches after it again."""
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
    alone = validate_file(target, stream_rows=True).to_dict()
    assert validate_file(target, stream_rows=True, jobs=2).to_dict() == alone
    assert None in helpers.answers and any(helpers.answers)
    assert any(f["pointer"] == "/results/12/passed" for f in alone["errors"])
    mismatches = [f["pointer"] for f in alone["warnings"] if f["code"] == "SUMMARY_MISMATCH"]
    assert "/summary/attempts/first_attempt_pass_rate" in mismatches and "/summary/total" not in mismatches


def test_a_batch_that_ends_inside_a_row_is_read_here_again(helpers: Started, eager: None, tmp_path: Path) -> None:
    """Rows whose metadata holds objects that start as rows do: the last row start in a window can be one of those,
    inside a row. Handed on unread, such a batch is refused by the helper (orjson does not read it as a list), and
    read here, where the reader looks for an earlier row start."""
    document = synthetic.resultset(60, attempts=1)
    for index, row in enumerate(document["results"]):
        row["metadata"] = {"seen": [{"test_case_id": f"x{index}"}, {"test_case_id": "y", "attempt": 1}]}
        row["grader_results"][0]["score"] = 2  # and every row invalid, to show where each finding lands
    target = tmp_path / "nested.json"
    target.write_text(json.dumps(document, separators=(",", ":")))
    with target.open("rb") as handle:
        alone = validate_stream(handle)
    with target.open("rb") as handle:
        helped = validate_stream(handle, jobs=2)
    assert alone is not None and helped is not None and helped.to_dict() == alone.to_dict()
    assert None in helpers.answers and any(helpers.answers)
    assert [f.pointer for f in helped.errors] == [f"/results/{i}/grader_results/0/score" for i in range(60)]


@pytest.mark.parametrize("later", ["syntax", "not UTF-8"])
def test_broken_text_in_a_batch_with_the_helper_is_the_first_problem(
    later: str, helpers: Started, eager: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A syntax error in a batch handed to the helper comes before a later one this process reads (found first: the
    helper's answers are taken only when they must be), but after text that is not UTF-8 anywhere (reading the file
    whole decodes it first): the report of one process."""
    monkeypatch.setattr(helper.RowsHelper, "ready", lambda self: False)
    monkeypatch.setattr(helper.Split, "WAITING", 1 << 30)
    text = json.dumps(synthetic.resultset(80, attempts=1), separators=(",", ":")).encode()
    # the later problem in the last row: this process reads that one itself while the earlier batch is with the helper
    middle, end = text.index(b'"passed":', len(text) // 3), text.rindex(b'"passed":')
    text = text[:middle] + b'"passed":tru,' + text[middle + len(b'"passed":true,') :]
    assert text[middle:].startswith(b'"passed":tru,')
    text = text[:end] + (b'"passed":,' if later == "syntax" else b'"p\xffssed":') + text[end + len(b'"passed":') :]
    target = tmp_path / "broken.json"
    target.write_bytes(text)
    with target.open("rb") as handle:
        alone = validate_stream(handle)
    with target.open("rb") as handle:
        helped = validate_stream(handle, jobs=2)
    assert alone is not None and helped is not None and helped.to_dict() == alone.to_dict()
    assert [f.code for f in alone.errors] == ["INVALID_JSON" if later == "syntax" else "FILE_UNREADABLE"]
    assert None in helpers.answers


def test_no_process_to_be_had_means_one_process_does_it_all(helpers: Started, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _broken_resultset(tmp_path / "set.json")
    alone = validate_file(target, stream_rows=True).to_dict()

    def refused() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")  # fork's EAGAIN at a process limit

    monkeypatch.setattr(os, "fork", refused)
    assert validate_file(target, stream_rows=True, jobs=2).to_dict() == alone
    assert helpers == []


def test_the_helper_ends_when_the_input_breaks_midway(helpers: Started, tmp_path: Path) -> None:
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


def test_validate_j2_on_one_file_starts_a_helper(helpers: Started, tmp_path: Path) -> None:
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


def test_a_shallow_pipe_hands_one_batch_at_a_time(helpers: Started, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the pipe cannot be made deeper, one batch at a time goes to the helper: a second one waiting for room
    while the helper waits for this process to take a long answer (every row invalid: many findings) would be a
    deadlock. An alarm turns one into a failure."""
    import fcntl

    def refused(*args: Any) -> int:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(fcntl, "fcntl", refused)
    monkeypatch.setattr(stream, "BATCH_BYTES", 1 << 18)
    document = synthetic.resultset(3000, attempts=1)
    for row in document["results"]:
        row["passed"] = "no"
        for grader_result in row["grader_results"]:
            grader_result["score"] = 7
    target = tmp_path / "invalid.json"
    target.write_text(json.dumps(document, indent=1))
    alone = validate_file(target, stream_rows=True).to_dict()
    previous = signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the two processes waited for each other"))
    signal.alarm(120)
    try:
        helped = validate_file(target, stream_rows=True, jobs=2).to_dict()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert helped == alone and len(alone["errors"]) > 3000
    assert [h.ahead for h in helpers] == [1] and any(helpers.answers)
