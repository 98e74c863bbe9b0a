"""The summary as associative partial states (``SummaryBuilder.absorb`` / ``merge``): rows cut into parts at any
points, each part summarized on its own (compact or not, pickled or not), the parts' states merged in any grouping,
give exactly the summary of reading all rows in one pass — including test cases whose attempts fall in different
parts, and score sums whose float rounding depends on the order of addition."""

from __future__ import annotations

import json
import math
import pickle
import random
import shutil
import struct
import subprocess
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import event, given, settings
from hypothesis import strategies as st

from evalschema.summary import SummaryBuilder, merge, summarize

# scores whose sums round differently depending on the order of addition
SCORES = st.one_of(
    st.sampled_from([0.1, 0.2, 0.3, 1e16, -1e16, 1.0, 0.0, 0.7, 5e-324, 1e308, 2, 0, None, True, "x"]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)
GRADER_RESULT = st.fixed_dictionaries(
    {"grader_id": st.sampled_from(["g1", "g2", "g\x00", 7]), "score": SCORES, "passed": st.sampled_from([True, False, None])}
)
ROW = st.fixed_dictionaries(
    {"test_case_id": st.sampled_from(["a", "b", "c", "\ud800", ""]), "grader_results": st.lists(GRADER_RESULT, max_size=3)},
    optional={
        "passed": st.booleans(),
        "attempt": st.sampled_from([1, 2, 3, 2.0, 0, -1, 2**60, 2.5]),
        "error": st.just({"message": "boom"}),
        "constraint_violations": st.lists(st.fixed_dictionaries({"invalidates_result": st.booleans()}), max_size=2),
    },
)


@st.composite
def split_rows(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """Rows whose first and last are attempts of one test case, cut at arbitrary points (empty parts allowed) with
    at least one cut between the first and the last row."""
    rows = draw(st.lists(ROW, min_size=2, max_size=40))
    rows[-1] = {**rows[-1], "test_case_id": rows[0]["test_case_id"], "attempt": draw(st.sampled_from([1, 2]))}
    cuts = sorted(draw(st.lists(st.integers(1, len(rows) - 1), min_size=1, max_size=6)))
    cuts += draw(st.lists(st.sampled_from([0, len(rows)]), max_size=2))  # empty parts at either end
    cuts.sort()
    bounds = [0, *cuts, len(rows)]
    return rows, [rows[start:end] for start, end in pairwise(bounds)]


def _state(rows: list[dict[str, Any]], compact: bool) -> SummaryBuilder:
    builder = SummaryBuilder(compact=compact)
    for row in rows:
        builder.add(row)
    return builder


def _merge_in_some_grouping(data: st.DataObject, states: list[SummaryBuilder]) -> SummaryBuilder:
    """Merge consecutive states in a drawn binary grouping, e.g. ((s0 s1) (s2 (s3 s4)))."""
    if len(states) == 1:
        return states[0]
    cut = data.draw(st.integers(1, len(states) - 1))
    left, right = _merge_in_some_grouping(data, states[:cut]), _merge_in_some_grouping(data, states[cut:])
    return merge([left, right], compact=data.draw(st.booleans()))


@settings(max_examples=1000, deadline=None, database=None, derandomize=True)
@given(split_rows(), st.data())
def test_any_partition_merged_in_any_grouping_gives_the_one_pass_summary(
    split: tuple[list[dict[str, Any]], list[list[dict[str, Any]]]], data: st.DataObject
) -> None:
    rows, parts = split
    event(f"parts: {len(parts)}")
    states = [_state(part, data.draw(st.booleans())) for part in parts]
    states = [pickle.loads(pickle.dumps(s)) if data.draw(st.booleans()) else s for s in states]
    before = [s.build().to_dict() for s in states]
    merged = _merge_in_some_grouping(data, states)
    one_pass = summarize({"results": rows}).to_dict()
    assert merged.build().to_dict() == one_pass
    assert [s.build().to_dict() for s in states] == before  # merging leaves its inputs unchanged


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(st.lists(ROW, max_size=30), st.booleans())
def test_the_empty_state_is_the_identity(rows: list[dict[str, Any]], compact: bool) -> None:
    state = _state(rows, compact)
    expected = state.build().to_dict()
    assert merge([SummaryBuilder(), state]).build().to_dict() == expected
    assert merge([state, SummaryBuilder(compact=not compact)]).build().to_dict() == expected
    assert merge([]).build().to_dict() == summarize({"results": []}).to_dict()


def test_means_are_the_exact_mean_rounded_once() -> None:
    """A running float sum gives 0.6000000000000001 / 3 for these; the reference mean is the exact one, rounded once,
    whatever the order of the rows."""
    scores = [0.1, 0.2, 0.3, 1e16, -1e16]
    rows = [
        {"test_case_id": str(i), "passed": True, "grader_results": [{"grader_id": "g", "score": s, "passed": True}]}
        for i, s in enumerate(scores)
    ]
    exact = float(sum(map(Fraction, scores)) / len(scores))
    for ordering in (rows, rows[::-1], rows[2:] + rows[:2]):
        summary = summarize({"results": ordering}).to_dict()
        assert summary["avg_score"] == exact
        assert summary["by_grader"]["g"]["avg_score"] == exact


def test_sums_move_to_a_finer_unit_mid_row_and_mid_state() -> None:
    """Sums are kept in the unit the finest value so far needs (``SummaryBuilder.scale``): values needing a finer one
    arrive within a row (after others were added) and as a row's mean, in one pass and in every split, and every
    mean is still the exact one rounded once."""
    scores = [[0.5], [1.0, 2.0, 4.0], [0.25, 0.1], [0.1, 0.2, 1e-300], [3.0, 5e-324]]
    rows = [
        {
            "test_case_id": str(i),
            "passed": True,
            "grader_results": [{"grader_id": f"g{j}", "score": x, "passed": True} for j, x in enumerate(row)],
        }
        for i, row in enumerate(scores)
    ]
    row_means = [float(sum(map(Fraction, row)) / len(row)) for row in scores]
    expected = float(sum(map(Fraction, row_means)) / len(row_means))
    by_grader = {f"g{j}": [row[j] for row in scores if len(row) > j] for j in range(3)}
    one_pass = summarize({"results": rows}).to_dict()
    assert one_pass["avg_score"] == expected
    assert {g: totals["avg_score"] for g, totals in one_pass["by_grader"].items()} == {
        g: float(sum(map(Fraction, xs)) / len(xs)) for g, xs in by_grader.items()
    }
    for cut in range(len(rows) + 1):
        for compact in (False, True):
            merged = merge([_state(rows[:cut], compact), _state(rows[cut:], not compact)]).build().to_dict()
            assert merged == one_pass, cut


def test_a_sum_beyond_doubles_is_infinite_in_any_partition() -> None:
    """Scores whose sum passes the largest double give an infinite mean, as a sum of doubles (and the TypeScript
    SDK) gives it, however the rows are split; rows of opposite infinite scores give NaN."""
    rows = [
        {"test_case_id": str(i), "passed": True, "grader_results": [{"grader_id": "g", "score": 1e308, "passed": True}] * 2}
        for i in range(3)
    ]
    one_pass = summarize({"results": rows}).to_dict()
    assert one_pass["avg_score"] == float("inf") and one_pass["by_grader"]["g"]["avg_score"] == float("inf")
    for cut in range(len(rows) + 1):
        merged = merge([_state(rows[:cut], False), _state(rows[cut:], True)]).build().to_dict()
        assert merged == one_pass
    single = [{**rows[0], "grader_results": [{"grader_id": "g", "score": 1e308, "passed": True}]}]
    assert summarize({"results": single}).to_dict()["avg_score"] == 1e308
    assert summarize({"results": single * 2}).to_dict()["avg_score"] == float("inf")  # the sum passes doubles, as 1e308 + 1e308
    negative = [{**rows[0], "grader_results": [{"grader_id": "h", "score": -1e308, "passed": True}] * 2}]
    mixed = summarize({"results": rows + negative}).to_dict()["avg_score"]
    assert mixed != mixed  # NaN


def _score(rng: random.Random) -> Any:
    pick = rng.random()
    if pick < 0.3:
        return rng.random()
    if pick < 0.5:
        return rng.choice([0.1, 0.2, 0.3, 0.7, 1.0, 0.0, -0.0, 2, 1e16, -1e16, 5e-324, 1e-310, 2.2250738585072014e-308, 1e308, -1e308])
    if pick < 0.6:  # any finite double
        value: float = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        return value if math.isfinite(value) else 0.5
    if pick < 0.8:
        return round(rng.uniform(-1e6, 1e6), rng.randint(0, 6))
    return rng.choice([None, True, "0.5"])


def _bits(value: float | None) -> str | None:
    return None if value is None else struct.pack(">d", value).hex()


def test_the_typescript_summary_is_bit_identical() -> None:
    """The TypeScript SDK keeps exact sums too: every average of its summary is the same double as Python's, bit
    for bit (subnormals, sums beyond doubles, both infinities, scores of the wrong type)."""
    from tools import missing_tool

    index = Path(__file__).resolve().parents[1] / "js" / "dist" / "index.js"
    if shutil.which("node") is None or not index.exists():
        missing_tool("node and js/dist (npm run build in js/) are needed")
    rng = random.Random(20261130)
    documents = [
        {
            "results": [
                {
                    "test_case_id": f"t{rng.randint(0, 3)}",
                    "passed": rng.random() < 0.5,
                    "grader_results": [
                        {"grader_id": rng.choice("abc"), "score": _score(rng), "passed": rng.random() < 0.5}
                        for _ in range(rng.randint(0, 4))
                    ],
                }
                for _ in range(rng.randint(1, 8))
            ]
        }
        for _ in range(2000)
    ]
    script = (
        f"import({json.dumps(index.as_uri())}).then(m => {{ let text = ''; process.stdin.on('data', c => text += c);"
        "process.stdin.on('end', () => { const view = new DataView(new ArrayBuffer(8));"
        "const bits = v => { if (v === null) return null; view.setFloat64(0, v);"
        "return [...new Uint8Array(view.buffer)].map(b => b.toString(16).padStart(2, '0')).join(''); };"
        "const out = JSON.parse(text).map(d => { const s = m.summarize(d);"
        "return [bits(s.avg_score), Object.entries(s.by_grader).map(([k, v]) => [k, bits(v.avg_score)])]; });"
        "process.stdout.write(JSON.stringify(out)); }); })"
    )
    run = subprocess.run(["node", "-e", script], input=json.dumps(documents), capture_output=True, text=True, check=True)
    typescript = json.loads(run.stdout)
    python = []
    for document in documents:
        summary = summarize(document).to_dict()
        python.append([_bits(summary["avg_score"]), [[k, _bits(v["avg_score"])] for k, v in summary["by_grader"].items()]])
    assert typescript == python
    averages = [s for s, _ in python if s is not None]
    assert len(averages) > 1500 and {"7ff0000000000000", "fff0000000000000"} & set(averages)  # sums beyond doubles too
