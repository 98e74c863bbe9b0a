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

Where the time goes, and the floor: "plain pydantic" is the same root class as datamodel-code-generator alone
writes it (same options, generated into a temporary folder when the benchmark starts): pydantic's
``model_validate`` with no check of ours at all — no schema check, no base class, no serializer, no hold — and
"plain, collector paused" the same with the cyclic garbage collector off during the call (what the generated
models do). Its ratio to jsonschema-rs is what any model that builds pydantic objects costs at the least.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import statistics
import sys
import tempfile
import time
import warnings
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


def plain_roots(folder: Path) -> dict[str, type[BaseModel]]:
    """The root classes of ``SHAPES`` as datamodel-code-generator alone writes them (same options, same input copy
    as the Python target gives it), imported from ``folder``: pydantic models with nothing of ours."""
    from datamodel_code_generator import generate

    from codegen.ir import build
    from codegen.load import load
    from codegen.targets.python import dcg_input, dcg_options

    schemas = load(ROOT / "schemas")
    source = folder / "input"
    source.mkdir()
    for name, document in dcg_input(schemas, build(schemas)).items():
        (source / name).write_text(json.dumps(document), encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generate(source, output=folder / "plain_models", **dcg_options())
    sys.path.insert(0, str(folder))
    roots = {}
    for _, root, _ in SHAPES:
        stem = root.__module__.rpartition(".")[2]
        roots[root.__name__] = getattr(importlib.import_module(f"plain_models.{stem}"), root.__name__)
    return roots


def _paused(call: Callable[[], object]) -> None:
    gc.disable()
    try:
        call()
    finally:
        gc.enable()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    print("models: Root.model_validate against jsonschema-rs alone (is_valid, same validator), same document")
    with tempfile.TemporaryDirectory(prefix="models-bench-") as tmp:
        plain = plain_roots(Path(tmp))
        _measure(args, plain)
    return 0


def _measure(args: argparse.Namespace, plain: dict[str, type[BaseModel]]) -> None:
    for name, root, make in SHAPES:
        schema = getattr(root, "__schema__", None)
        assert schema is not None
        check = _base.compiled(schema)
        for size in args.sizes:
            document = make(size)
            assert check.is_valid(document), name
            root.model_validate(document)  # warm
            bare = plain[root.__name__]
            bare.model_validate(document)  # warm, and the plain model accepts the document too
            alone, typing_only, model, floor, floor_paused = [], [], [], [], []
            for _ in range(args.runs):
                start = time.perf_counter()
                bare.model_validate(document)
                floor.append(time.perf_counter() - start)
                start = time.perf_counter()
                _paused(lambda: bare.model_validate(document))  # noqa: B023 (called at once)
                floor_paused.append(time.perf_counter() - start)
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
            f, fp = statistics.median(floor), statistics.median(floor_paused)
            print(
                f"  {name:>11} {size:>6}: jsonschema-rs {a * 1000:7.1f} ms, pydantic alone {t * 1000:7.1f} ms, model {m * 1000:7.1f} ms;"
                f" model / jsonschema-rs {m / a:5.2f}x (target <= 1.5x), model / pydantic alone {m / t:.2f}x"
            )
            print(
                f"  {'':>11} {'':>6}  plain pydantic {f * 1000:7.1f} ms, collector paused {fp * 1000:7.1f} ms;"
                f" plain / jsonschema-rs {f / a:5.2f}x, paused / jsonschema-rs {fp / a:5.2f}x (no check of ours at all)"
            )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
