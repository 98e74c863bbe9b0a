import os
os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
os.environ["DEEPEVAL_RESULTS_FOLDER"] = "/tmp/derun/out"
from deepeval import evaluate
from deepeval.metrics import BaseMetric
from deepeval.test_case import LLMTestCase

class Overlap(BaseMetric):
    def __init__(self, threshold=0.5):
        self.threshold = threshold
    def measure(self, test_case, *a, **k):
        want = set((test_case.expected_output or "").lower().split())
        got = set((test_case.actual_output or "").lower().split())
        self.score = len(want & got) / max(len(want), 1)
        self.success = self.score >= self.threshold
        self.reason = f"{len(want & got)} of {len(want)} expected words"
        return self.score
    async def a_measure(self, test_case, *a, **k):
        return self.measure(test_case)
    def is_successful(self):
        return self.success
    @property
    def __name__(self):
        return "Word Overlap"

class Short(Overlap):
    def measure(self, test_case, *a, **k):
        self.score = 1.0 if len(test_case.actual_output or "") < 40 else 0.0
        self.success = self.score >= self.threshold
        self.reason = "short" if self.success else "too long"
        return self.score
    @property
    def __name__(self):
        return "Brevity"

cases = [
    LLMTestCase(input="What is the capital of France?", actual_output="Paris is the capital of France.", expected_output="Paris", retrieval_context=["Paris is France's capital."]),
    LLMTestCase(input="Who wrote Hamlet?", actual_output="It was written by Christopher Marlowe, some say, but not really.", expected_output="William Shakespeare", tools_called=None),
]
evaluate(test_cases=cases, metrics=[Overlap(), Short()])
