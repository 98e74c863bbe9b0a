"""An Inspect AI run whose model outputs carry the provider's response id, offline.

Run as ``python inspect_response_ids.py LOG_DIR``: prints the ``.eval`` log and its ``.json`` copy. Inspect's real
providers set ``ModelOutput.response_id`` from the API response (OpenAI's and Anthropic's ``id``, Google's
``response_id``); no network here, so the model is Inspect's ``mockllm/model`` given outputs that carry one, as a
provider's would (``custom_outputs``), two samples, two epochs. The token counter is replaced as
``inspect_task.py`` explains (tiktoken would download its encoding).
"""

from __future__ import annotations

import sys
from pathlib import Path

import inspect_ai.model._model as _model
import inspect_ai.model._tokens as _tokens
from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate


def _whitespace_tokens(text: str) -> int:
    return max(1, len(text.split()))


_tokens.count_text_tokens = _whitespace_tokens
_model.count_text_tokens = _whitespace_tokens  # type: ignore[attr-defined]


@task
def answered() -> Task:
    return Task(
        dataset=[Sample(id="paris", input="Capital of France?", target="Paris"), Sample(id="four", input="2 + 2?", target="4")],
        solver=[generate()],
        scorer=match(location="any"),
        epochs=2,
    )


if __name__ == "__main__":
    out = Path(sys.argv[1])
    outputs = []
    for n, text in enumerate(["Paris", "5", "Paris.", "4"], 1):
        output = ModelOutput.from_content(model="mockllm", content=text)
        output.response_id = f"chatcmpl-mock{n:04d}"
        outputs.append(output)
    model = get_model("mockllm/model", custom_outputs=outputs)
    [log] = eval(answered(), model=model, log_dir=str(out), log_format="eval", display="none", max_samples=1)
    json_path = out / (Path(log.location).stem + ".json")
    write_eval_log(read_eval_log(log.location), str(json_path), format="json")
    print(log.location)
    print(json_path)
