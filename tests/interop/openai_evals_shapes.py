"""Real OpenAI Evals 3.0.1 runs in six shapes, offline: OpenAI Evals' own ``oaieval`` command with a local completion
function (``LocalCompletionFn`` below, registered in ``openai_evals_registry/completion_fns``; no model, no network)
and local evals and samples (``openai_evals_registry/``, passed with ``--registry_path``), each run's log written by
``oaieval --record_path`` to ``<out>/<shape>.jsonl``. Run by ``tests/test_interop_openai_evals.py`` in a virtual
environment of its own (``requirements/openai_evals.txt``): ``python openai_evals_shapes.py OUT``.

- ``match``: ``Match``, chat and plain prompts, a list of ideal answers;
- ``includes``: ``Includes``;
- ``fuzzy``: ``FuzzyMatch``, two metrics per sample (accuracy and the partial credit ``f1_score``);
- ``graded``: ``ModelBasedClassify``, model-graded with partial credit (Y 1, P 0.5, N 0; one unparsable grade) and a
  meta-evaluation (``metascore``), the local function grading too;
- ``rated``: ``ModelBasedClassify`` on a 1-5 scale (``choice_scores: from_strings``; an unparsable grade counts as
  the lowest score, as OpenAI Evals scores it): a mean outside [0, 1];
- ``interrupted``: ``Match`` whose completion function raises on a sample: ``oaieval`` stops, the log has the
  events recorded so far and no final report.

The completion function answers what the prompt's last message asks for (``[answer: …]``), grades as the task says
(``[grade: …]``), and raises on ``[raise]``; it records each sampling as OpenAI's own completion functions do.

Offline: ``oaieval`` looks a completion function's name up in OpenAI's model list (``Registry.api_model_ids``, a
request to the API) before its registry; each run here is ``oaieval``'s own ``main`` in a child process whose
``api_model_ids`` is the empty list, the API's address a closed loopback port and its key a placeholder (OpenAI
Evals makes its client on import and refuses to start without one).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REGISTRY = HERE / "openai_evals_registry"
SHAPES = {
    "match": "rt-match",
    "includes": "rt-includes",
    "fuzzy": "rt-fuzzy",
    "graded": "rt-graded",
    "rated": "rt-rated",
    "interrupted": "rt-interrupted",
}
_ANSWER = re.compile(r"\[answer: ([^\]]*)\]")
_GRADE = re.compile(r"\[grade: ([^\]]*)\]")


class _Result:
    def __init__(self, text: str) -> None:
        self.text = text

    def get_completions(self) -> list[str]:
        return [self.text]


class LocalCompletionFn:
    """OpenAI Evals' ``CompletionFn`` protocol, answered from the prompt's own text."""

    def __init__(self, **kwargs: Any) -> None:
        pass

    def __call__(self, prompt: Any, **kwargs: Any) -> _Result:
        import evals.record

        text = prompt if isinstance(prompt, str) else "\n".join(str(m.get("content", "")) for m in prompt)
        if "[raise]" in text:
            raise RuntimeError("the local completion function was asked to fail")
        if "[Submission]:" in text:  # a grading prompt: reasoning, then the grade on its own line (cot_classify)
            grades = _GRADE.findall(text)
            answer = f"The task says how to grade.\n{grades[-1] if grades else '?'}"
        else:
            answers = _ANSWER.findall(text)
            answer = answers[-1] if answers else ""
        evals.record.record_sampling(prompt=prompt, sampled=answer)
        return _Result(answer)


def oaieval(arguments: list[str]) -> None:
    """``oaieval ARGUMENTS`` with OpenAI's model list left empty (no request)."""
    import evals.registry
    from evals.cli.oaieval import main as oaieval_main

    evals.registry.Registry.api_model_ids = property(lambda self: [])
    sys.argv = ["oaieval", *arguments]
    oaieval_main()


def main(out: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE),
        "EVALS_SEQUENTIAL": "1",
        "OPENAI_API_KEY": "offline-placeholder",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    out.mkdir(parents=True, exist_ok=True)
    for shape, name in SHAPES.items():
        arguments = ["rt-local", name, "--registry_path", str(REGISTRY), "--record_path", str(out / f"{shape}.jsonl")]
        command = [sys.executable, __file__, "--oaieval", *arguments]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
        if (done.returncode != 0) != (shape == "interrupted"):
            sys.exit(f"oaieval {name}: exit status {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")


if __name__ == "__main__":
    if sys.argv[1] == "--oaieval":
        oaieval(sys.argv[2:])
    else:
        main(Path(sys.argv[1]).resolve())
