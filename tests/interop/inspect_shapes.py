"""Inspect AI tasks in the shapes whose headline metrics the importer must reproduce (issue 40), run offline with
``mockllm/model``. Run as ``python inspect_shapes.py LOG_DIR``: one ``.eval`` log per task, and a ``.json`` copy
of each, paths printed one per line.

- ``several``: three scorers (``match`` with C/I letters, ``includes``, a numeric custom scorer), one epoch;
- ``uneven``: three epochs, some of which raise (so samples have uneven epochs), reduced by Inspect's ``mean``;
- ``partial``: a model-graded style scorer giving C, P or I (partial credit 0.5), two epochs, ``median`` reducer;
- ``rating``: a 1-10 rating (a non-[0, 1] scale), two epochs with ``mean``;
- ``named``: a dict-valued scorer (two named values, each with its own metrics), two epochs, ``at_least(1)``.

Offline: Inspect's token counter is replaced as ``inspect_task.py`` explains (tiktoken would download its encoding).
"""

from __future__ import annotations

import sys
from pathlib import Path

import inspect_ai.model._model as _model
import inspect_ai.model._tokens as _tokens
from inspect_ai import Epochs, Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.scorer import CORRECT, INCORRECT, PARTIAL, Score, Target, accuracy, includes, match, mean, scorer, stderr
from inspect_ai.solver import Generate, TaskState, generate, solver


def _whitespace_tokens(text: str) -> int:
    return max(1, len(text.split()))


_tokens.count_text_tokens = _whitespace_tokens
_model.count_text_tokens = _whitespace_tokens  # type: ignore[attr-defined]

DATASET = [
    Sample(id="right", input="Say the default.", target="Default output from mockllm/model"),
    Sample(id="wrong", input="What is 2 + 2?", target="4"),
    Sample(id="part", input="Name a colour.", target="mockllm"),
    Sample(id=4, input="Count to three.", target="output"),
    Sample(id="flaky", input="Sometimes fails.", target="Default"),
]


def _seen(state: TaskState) -> int:
    """A deterministic per-sample, per-epoch number (sample ids and epochs are fixed)."""
    return sum(map(ord, str(state.sample_id))) + 7 * state.epoch


@solver
def fail_some():  # type: ignore[no-untyped-def]
    """Raises on some epochs of some samples: uneven epochs."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if (state.sample_id == "flaky" and state.epoch != 2) or (state.sample_id == "wrong" and state.epoch == 3):
            raise RuntimeError(f"deliberate failure: {state.sample_id} epoch {state.epoch}")
        return state

    return solve


@scorer(metrics=[mean(), stderr()])
def brevity():  # type: ignore[no-untyped-def]
    async def score(state: TaskState, target: Target) -> Score:
        words = len(state.output.completion.split())
        return Score(value=round(1 / max(words, 1), 4), explanation=f"{words} words")

    return score


@scorer(metrics=[accuracy(), stderr()])
def graded():  # type: ignore[no-untyped-def]
    """Model-graded style: C, P (partial credit) or I, varying by sample and epoch."""

    async def score(state: TaskState, target: Target) -> Score:
        # four values over three epochs: a sample's median and mean differ when its epochs are C, C, P say
        return Score(value=[CORRECT, CORRECT, INCORRECT, PARTIAL][_seen(state) % 4], explanation="graded")

    return score


@scorer(metrics=[mean(), stderr()])
def rating():  # type: ignore[no-untyped-def]
    """A 1-10 rating."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=1 + _seen(state) % 10, explanation="rated")

    return score


@scorer(metrics={"relevance": [mean(), stderr()], "fluency": [mean()]})
def named():  # type: ignore[no-untyped-def]
    """A dict-valued score: two named values."""

    async def score(state: TaskState, target: Target) -> Score:
        n = _seen(state)
        return Score(value={"relevance": (n % 4) / 4, "fluency": float(n % 2)}, explanation="named")

    return score


@task
def several() -> Task:
    return Task(dataset=DATASET, solver=[generate()], scorer=[match(location="any"), includes(), brevity()])


@task
def uneven() -> Task:
    return Task(dataset=DATASET, solver=[fail_some(), generate()], scorer=[match(location="any"), brevity()], epochs=Epochs(3, "mean"))


@task
def partial() -> Task:
    return Task(dataset=DATASET, solver=[fail_some(), generate()], scorer=graded(), epochs=Epochs(3, "median"))


@task
def rated() -> Task:
    return Task(dataset=DATASET, solver=[generate()], scorer=rating(), epochs=Epochs(2, "mean"))


@task
def dict_valued() -> Task:
    return Task(dataset=DATASET, solver=[fail_some(), generate()], scorer=named(), epochs=Epochs(3, "at_least_2"))


TASKS = {"several": several, "uneven": uneven, "partial": partial, "rated": rated, "dict_valued": dict_valued}

if __name__ == "__main__":
    out = Path(sys.argv[1])
    names = sys.argv[2:] or list(TASKS)
    for name in names:
        [log] = eval(TASKS[name](), model="mockllm/model", log_dir=str(out / name), log_format="eval", fail_on_error=False, display="none")
        json_path = out / name / (Path(log.location).stem + ".json")
        write_eval_log(read_eval_log(log.location), str(json_path), format="json")
        print(log.location)
        print(json_path)
