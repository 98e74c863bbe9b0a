"""How tests/interop/data/deepeval/test_run.json was made: DeepEval 4.3.1's ``evaluate`` with two local metrics
(no model, no network), telemetry off, the test run saved to DEEPEVAL_RESULTS_FOLDER. Not run by the tests
(DeepEval is not a dependency): ``pip install deepeval==4.3.1 && python deepeval_run.py``.
"""

from __future__ import annotations

import os
from typing import Any

os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
os.environ.setdefault("DEEPEVAL_RESULTS_FOLDER", "out")

from deepeval import evaluate
from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase


class Overlap(BaseMetric):  # type: ignore[misc]
    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        want = set((test_case.expected_output or "").lower().split())
        got = set((test_case.actual_output or "").lower().split())
        self.score = len(want & got) / max(len(want), 1)
        self.success = self.score >= self.threshold
        self.reason = f"{len(want & got)} of {len(want)} expected words"
        return self.score

    async def a_measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        return self.measure(test_case)

    def is_successful(self) -> bool:
        return bool(self.success)

    @property
    def __name__(self) -> str:
        return "Word Overlap"


class Short(Overlap):
    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        self.score = 1.0 if len(test_case.actual_output or "") < 40 else 0.0
        self.success = self.score >= self.threshold
        self.reason = "short" if self.success else "too long"
        return self.score

    @property
    def __name__(self) -> str:
        return "Brevity"


if __name__ == "__main__":
    cases = [
        LLMTestCase(
            input="What is the capital of France?",
            actual_output="Paris is the capital of France.",
            expected_output="Paris",
            retrieval_context=["Paris is France's capital."],
        ),
        LLMTestCase(
            input="Who wrote Hamlet?",
            actual_output="It was written by Christopher Marlowe, some say, but not really.",
            expected_output="William Shakespeare",
        ),
    ]
    evaluate(test_cases=cases, metrics=[Overlap(), Short()])
