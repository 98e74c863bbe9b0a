"""What validating a generated model costs against validating the same JSON with jsonschema-rs alone (issue 41; the ``models_official_tests`` session).

Usage: python benchmarks/models_bench.py [--sizes 1000 10000] [--runs N]

Both sides get the same parsed document (a synthetic result set) in the same process: "jsonschema-rs alone" is
the compiled schema the model itself uses (``_base.compiled`` of the root's schema, compiled before timing) and
its ``is_valid``; "pydantic alone" is pydantic's own ``BaseModel.model_validate`` on the generated class (the
typing without the schema check: what the models cost before issue 41); "model" is ``ResultSet.model_validate``,
the schema check then pydantic's typing. Medians of N alternating runs; the issue's target is model / jsonschema-rs
at most 1.5.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "generated" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import synthetic
from pydantic import BaseModel

from evalschema_models import ResultSet, _base


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    assert ResultSet.__schema__ is not None
    check = _base.compiled(ResultSet.__schema__)
    print("models: ResultSet.model_validate against jsonschema-rs alone (is_valid, same validator), same document")
    for size in args.sizes:
        document = synthetic.resultset(size)
        assert check.is_valid(document)
        ResultSet.model_validate(document)  # warm
        alone, typing_only, model = [], [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            check.is_valid(document)
            alone.append(time.perf_counter() - start)
            start = time.perf_counter()
            BaseModel.model_validate.__func__(ResultSet, document)  # type: ignore[attr-defined]
            typing_only.append(time.perf_counter() - start)
            start = time.perf_counter()
            ResultSet.model_validate(document)
            model.append(time.perf_counter() - start)
        a, t, m = statistics.median(alone), statistics.median(typing_only), statistics.median(model)
        print(
            f"  {size:>7} results: jsonschema-rs {a * 1000:7.1f} ms, pydantic alone {t * 1000:7.1f} ms, model {m * 1000:7.1f} ms;"
            f" model / jsonschema-rs {m / a:.2f}x (target <= 1.5x), model / pydantic alone {m / t:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
