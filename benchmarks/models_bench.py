"""What validating a generated model costs against validating the same JSON with jsonschema-rs alone (issue 41; the ``models_official_tests`` session).

Usage: python benchmarks/models_bench.py [--sizes 1000 10000] [--runs N]

Both sides get the same parsed document in the same process: "jsonschema-rs alone" is the compiled schema the
model itself uses (``_base.compiled`` of the root's schema, compiled before timing) and its ``is_valid``; "pydantic
alone" is pydantic's own ``BaseModel.model_validate`` on the generated class (the typing without the schema check:
what the models cost before issue 41); "model" is ``Root.model_validate``, the schema check then pydantic's typing.
Three shapes, each at every size: a result set of nested rows (a row, its grader results, their metadata), the
same rows flattened to their required members (one model per row), and a suite of test cases whose graders are
a union (an id or an inline grader with conditional parameters). Medians of N alternating runs; the issue's
target is model / jsonschema-rs at most 1.5.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generated" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic
from pydantic import BaseModel

from evalschema_models import ResultSet, Suite, _base

ROOT = Path(__file__).resolve().parents[1]


def nested_rows(size: int) -> dict[str, Any]:
    return synthetic.resultset(size)


def flat_rows(size: int) -> dict[str, Any]:
    document = synthetic.resultset(size)
    document["results"] = [{"test_case_id": row["test_case_id"], "passed": False, "grader_results": []} for row in document["results"]]
    return document


def suite_cases(size: int) -> dict[str, Any]:
    """The suite of the specification's examples with its test cases repeated to ``size`` (ids made unique)."""
    example: dict[str, Any] = json.loads((ROOT / "spec" / "examples" / "suite-qa-basic.json").read_text(encoding="utf-8"))
    cases = example["test_cases"]
    example["test_cases"] = [{**cases[i % len(cases)], "id": f"case-{i}"} for i in range(size)]
    return example


SHAPES: list[tuple[str, type[BaseModel], Callable[[int], dict[str, Any]]]] = [
    ("nested rows", ResultSet, nested_rows),
    ("flat rows", ResultSet, flat_rows),
    ("suite cases", Suite, suite_cases),
]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    print("models: Root.model_validate against jsonschema-rs alone (is_valid, same validator), same document")
    for name, root, make in SHAPES:
        schema = getattr(root, "__schema__", None)
        assert schema is not None
        check = _base.compiled(schema)
        for size in args.sizes:
            document = make(size)
            assert check.is_valid(document), name
            root.model_validate(document)  # warm
            alone, typing_only, model = [], [], []
            for _ in range(args.runs):
                start = time.perf_counter()
                check.is_valid(document)
                alone.append(time.perf_counter() - start)
                start = time.perf_counter()
                BaseModel.model_validate.__func__(root, document)  # type: ignore[attr-defined]
                typing_only.append(time.perf_counter() - start)
                start = time.perf_counter()
                root.model_validate(document)
                model.append(time.perf_counter() - start)
            a, t, m = statistics.median(alone), statistics.median(typing_only), statistics.median(model)
            print(
                f"  {name:>11} {size:>6}: jsonschema-rs {a * 1000:7.1f} ms, pydantic alone {t * 1000:7.1f} ms, model {m * 1000:7.1f} ms;"
                f" model / jsonschema-rs {m / a:5.2f}x (target <= 1.5x), model / pydantic alone {m / t:.2f}x"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
