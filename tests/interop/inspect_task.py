"""A small Inspect AI task run by the interop tests to produce real ``.eval`` and ``.json`` logs, offline.

Run as ``python inspect_task.py LOG_DIR``. The model is Inspect's ``mockllm/model`` (no network). Two scorers
(``match`` with C/I values, and a numeric custom scorer), two epochs, and one sample whose solver raises, so the
log holds a sample error. ``fail_on_error=False`` lets the run finish and record it.

Offline: Inspect counts tokens with tiktoken's ``o200k_base`` encoding, which tiktoken downloads on first use even
for ``mockllm``. This script replaces Inspect's token counter with a whitespace count before the run (both the
definition in ``inspect_ai.model._tokens`` and the name ``inspect_ai.model._model`` imported from it), so the
run needs no network; token counts in these logs are therefore whitespace counts, not tiktoken's.
"""

from __future__ import annotations

import sys
from pathlib import Path

import inspect_ai.model._model as _model
import inspect_ai.model._tokens as _tokens
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.scorer import Score, Target, match, mean, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver


def _whitespace_tokens(text: str) -> int:
    return max(1, len(text.split()))


_tokens.count_text_tokens = _whitespace_tokens
_model.count_text_tokens = _whitespace_tokens  # type: ignore[attr-defined]


@solver
def fail_on_boom():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.metadata.get("boom"):
            raise RuntimeError("deliberate failure for sample boom")
        return state

    return solve


@scorer(metrics=[mean()])
def brevity():  # type: ignore[no-untyped-def]
    async def score(state: TaskState, target: Target) -> Score:
        words = len(state.output.completion.split())
        return Score(value=round(1 / max(words, 1), 4), answer=state.output.completion, explanation=f"{words} words")

    return score


@task
def tiny() -> Task:
    return Task(
        dataset=[
            Sample(id="right", input="Say the default.", target="Default output from mockllm/model", metadata={"topic": "echo"}),
            Sample(id="wrong", input="What is 2 + 2?", target="4", metadata={"topic": "math"}),
            Sample(id=3, input="Name a colour.", target=["red", "blue"]),
            Sample(id="boom", input="This one fails.", target="x", metadata={"boom": True}),
        ],
        solver=[fail_on_boom(), generate()],
        scorer=[match(location="any"), brevity()],
        epochs=2,
    )


if __name__ == "__main__":
    out = Path(sys.argv[1])
    [log] = eval(tiny(), model="mockllm/model", log_dir=str(out), log_format="eval", fail_on_error=False, display="none")
    json_path = out / (Path(log.location).stem + ".json")
    write_eval_log(read_eval_log(log.location), str(json_path), format="json")
    print(log.location)
    print(json_path)
