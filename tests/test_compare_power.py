"""The power line in compare's JSON (issue 43, SPEC §12.7): the comparison document carries ``power`` — the fewest
discordant pairs that could be significant, the smallest change that could, and the fewest pairs with which any
could — valid against ``schemas/comparison.json``, equal to what the text says, and the same from the TypeScript
SDK (its whole document is held to Python's by ``test_compare.py`` and ``test_compare_cli_agreement.py``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from evalschema.compare import Options, compare
from evalschema.compare.render import power_line
from evalschema.compare.stats import mcnemar

ROOT = Path(__file__).resolve().parents[1]
ENVELOPE = {"version": "1.2.0", "suite_id": "qa", "started_at": "2026-11-30T00:00:00Z"}


def _runs(before: list[bool], after: list[bool]) -> tuple[dict[str, Any], dict[str, Any]]:
    def row(i: int, passed: bool) -> dict[str, Any]:
        return {
            "test_case_id": f"c{i}",
            "passed": passed,
            "grader_results": [{"grader_id": "g", "type": "t", "score": float(passed), "passed": passed}],
        }

    return (
        {**ENVELOPE, "run_id": "b", "results": [row(i, p) for i, p in enumerate(before)]},
        {**ENVELOPE, "run_id": "n", "results": [row(i, p) for i, p in enumerate(after)]},
    )


def _validator() -> Draft202012Validator:
    schemas = [json.loads(p.read_text()) for p in (ROOT / "schemas").glob("*.json")]
    registry: Registry[Any] = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas)
    root = next(s for s in schemas if s["$id"].endswith("/comparison.json"))
    return Draft202012Validator(root, registry=registry)


@pytest.mark.parametrize(
    ("pairs", "alpha", "expected"),
    [
        (3, 0.05, {"fewest_flips": None, "smallest_change": None, "pairs_needed": 6}),
        (6, 0.05, {"fewest_flips": 6, "smallest_change": 1.0, "pairs_needed": 6}),
        (200, 0.05, {"fewest_flips": 6, "smallest_change": 0.03, "pairs_needed": 6}),
        (200, 0.01, {"fewest_flips": 8, "smallest_change": 0.04, "pairs_needed": 8}),
        (0, 0.05, {"fewest_flips": None, "smallest_change": None, "pairs_needed": 6}),
    ],
)
def test_the_document_states_its_power(pairs: int, alpha: float, expected: dict[str, Any]) -> None:
    base, new = _runs([True] * pairs, [True] * pairs)
    document = compare(base, new, Options(alpha=alpha, resamples=0))
    assert document["power"] == expected
    assert list(document)[list(document).index("mcnemar") + 1] == "power"
    assert not list(_validator().iter_errors(document))
    k = expected["fewest_flips"]
    if k is not None:  # the claim holds: k flips one way are significant, k - 1 are not
        assert mcnemar(k, 0)[0] < alpha <= mcnemar(k - 1, 0)[0]
        assert f"{100 * expected['smallest_change']:.1f} pt ({k} pairs" in power_line(document)
    else:
        assert f"it takes at least {expected['pairs_needed']} pairs" in power_line(document)


def test_the_schema_refuses_a_power_it_does_not_describe() -> None:
    base, new = _runs([True] * 3, [True] * 3)
    document = compare(base, new, Options(resamples=0))
    document["power"]["fewest_flips"] = 0
    document["power"]["extra"] = 1
    assert len(list(_validator().iter_errors(document))) == 2


def test_the_command_prints_it_in_json(tmp_path: Path) -> None:
    base, new = _runs([True] * 3, [True, False, False])
    (tmp_path / "b.json").write_text(json.dumps(base))
    (tmp_path / "n.json").write_text(json.dumps(new))
    command = [sys.executable, "-m", "evalschema", "compare", "--format", "json", "b.json", "n.json", "--fail-on-regression"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["power"] == {"fewest_flips": None, "smallest_change": None, "pairs_needed": 6}


def test_a_document_without_power_still_reads() -> None:
    """A comparison written before 1.3.0 has no ``power``: the text computes it."""
    base, new = _runs([True] * 200, [True] * 200)
    document = compare(base, new, Options(resamples=0))
    stated = power_line(document)
    del document["power"]
    assert power_line(document) == stated
