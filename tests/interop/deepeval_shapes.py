"""Real DeepEval 4.3.1 runs in four shapes, offline (local metrics, no model, telemetry off), each test run saved by
DeepEval itself into ``<out>/<shape>/`` (``DEEPEVAL_RESULTS_FOLDER``). Run by ``tests/test_interop_deepeval.py`` in a
virtual environment of its own (``requirements/deepeval.txt``): ``python deepeval_shapes.py OUT``.

- ``metrics``: several metrics with their own thresholds on single-turn cases, partial credit (word overlap);
- ``errors``: a metric that raises on one case, ``ignore_errors`` on (DeepEval records the error and goes on);
- ``conversational``: multi-turn test cases with a conversational metric;
- ``strict``: ``strict_mode`` metrics (DeepEval rounds a score to 0 or 1 against a threshold of 1).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
os.environ["DEEPEVAL_UPDATE_WARNING_OPT_IN"] = "NO"

from deepeval import evaluate
from deepeval.evaluate.configs import AsyncConfig, DisplayConfig, ErrorConfig
from deepeval.metrics import BaseConversationalMetric, BaseMetric
from deepeval.test_case import ConversationalTestCase, LLMTestCase, Turn


class _Local:
    """What every local metric here shares: measured at once (no model to await), successful as measured."""

    success: bool | None

    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        raise NotImplementedError

    async def a_measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        return self.measure(test_case)

    def is_successful(self) -> bool:
        return bool(self.success)


class Overlap(_Local, BaseMetric):  # type: ignore[misc]
    """Partial credit: the share of the expected words the output holds."""

    def __init__(self, threshold: float = 0.5, strict_mode: bool = False) -> None:
        self.threshold = 1.0 if strict_mode else threshold
        self.strict_mode = strict_mode

    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        want = set((test_case.expected_output or "").lower().replace(".", "").split())
        got = set((test_case.actual_output or "").lower().replace(".", "").split())
        score = len(want & got) / max(len(want), 1)
        self.score = (1.0 if score >= self.threshold else 0.0) if self.strict_mode else score
        self.success = self.score >= self.threshold
        self.reason = f"{len(want & got)} of {len(want)} expected words"
        return self.score

    @property
    def __name__(self) -> str:
        return "Word Overlap"


class Brevity(Overlap):
    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        self.score = max(0.0, 1.0 - len(test_case.actual_output or "") / 100)
        self.success = self.score >= self.threshold
        self.reason = f"{len(test_case.actual_output or '')} characters"
        return self.score

    @property
    def __name__(self) -> str:
        return "Brevity"


class Fragile(Overlap):
    """Raises on an output that mentions Marlowe: DeepEval records the metric's error."""

    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        if "Marlowe" in (test_case.actual_output or ""):
            raise ValueError("the grader could not parse this output")
        return super().measure(test_case)

    @property
    def __name__(self) -> str:
        return "Fragile Overlap"


class Politeness(_Local, BaseConversationalMetric):  # type: ignore[misc]
    """The share of assistant turns that thank the user."""

    def __init__(self, threshold: float = 0.5) -> None:
        self.threshold = threshold

    def measure(self, test_case: Any, *args: Any, **kwargs: Any) -> float:
        said = [t.content for t in test_case.turns if t.role == "assistant"]
        self.score = sum("thank" in s.lower() for s in said) / max(len(said), 1)
        self.success = self.score >= self.threshold
        self.reason = f"{len(said)} assistant turns"
        return self.score

    @property
    def __name__(self) -> str:
        return "Politeness"


SINGLE = [
    LLMTestCase(input="What is the capital of France?", actual_output="Paris is the capital of France.", expected_output="Paris"),
    LLMTestCase(
        input="Who wrote Hamlet?",
        actual_output="It was written by Christopher Marlowe, some say, but not really.",
        expected_output="William Shakespeare",
    ),
    LLMTestCase(input="Name two primary colours.", actual_output="Red and green.", expected_output="red blue"),
]

CONVERSATIONS = [
    ConversationalTestCase(
        turns=[
            Turn(role="user", content="My order is late."),
            Turn(role="assistant", content="Thank you for telling us; let me check."),
            Turn(role="user", content="Any news?"),
            Turn(role="assistant", content="It ships tomorrow."),
        ]
    ),
    ConversationalTestCase(
        turns=[Turn(role="user", content="Hello"), Turn(role="assistant", content="Thanks for writing! How can I help?")]
    ),
    ConversationalTestCase(turns=[Turn(role="user", content="Cancel it."), Turn(role="assistant", content="Done.")]),
]


def shapes() -> dict[str, dict[str, Any]]:
    return {
        "metrics": {"test_cases": SINGLE, "metrics": [Overlap(0.5), Brevity(0.7)]},
        "errors": {"test_cases": SINGLE, "metrics": [Fragile(0.5), Brevity(0.5)], "error_config": ErrorConfig(ignore_errors=True)},
        "conversational": {"test_cases": CONVERSATIONS, "metrics": [Politeness(0.5)]},
        "strict": {"test_cases": SINGLE, "metrics": [Overlap(strict_mode=True), Brevity(0.6)]},
    }


if __name__ == "__main__":
    out = Path(sys.argv[1]).resolve()
    for name, arguments in shapes().items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        os.environ["DEEPEVAL_RESULTS_FOLDER"] = str(folder)
        evaluate(
            **arguments, async_config=AsyncConfig(run_async=False), display_config=DisplayConfig(print_results=False, show_indicator=False)
        )
