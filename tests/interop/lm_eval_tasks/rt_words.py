"""The scoring function of the task ``rt_words`` (``rt_words.yaml``), run by lm-eval in the shapes of
tests/interop/lm_eval_shapes.py."""

from __future__ import annotations

from typing import Any


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    answer = results[0]
    words = answer.lower().replace(".", " ").split()
    return {"words": float(len(words)), "answered": float(all(w in words for w in doc["answer"].lower().split()))}
