"""Real lm-evaluation-harness 0.4.13 runs in four shapes, offline: a local model class registered here (no weights,
no network), tasks in ``lm_eval_tasks/`` (local YAML, local JSON Lines data), lm-eval's own command line
(``lm_eval run … --log_samples --output_path``) writing ``results_*.json`` and ``samples_*.jsonl`` into
``<out>/<shape>/``. Run by ``tests/test_interop_lm_eval.py`` in a virtual environment of its own
(``requirements/lm_eval.txt``): ``python lm_eval_shapes.py OUT``.

- ``filters``: ``rt_gen``, generate_until with 3 repeats and three filters (take-first, majority vote, regex);
- ``metrics``: ``rt_metrics``, several metrics (exact_match and the corpus-level bleu and chrf), and ``rt_words``,
  scored by a function of its own: a per-document mean outside [0, 1] (``words``) beside one in it;
- ``multiple_choice``: ``rt_mc``, acc / acc_norm and the corpus-level brier_score;
- ``tasks``: ``rt_ll`` (loglikelihood: acc, corpus perplexity) and ``rt_gen`` in one run (two samples files);
- ``group``: ``rt_group``, ``rt_mc`` and ``rt_ll`` under a group whose acc is the mean over their documents
  (``weight_by_size``); ``flat_group``: the same tasks under ``rt_flat``, the unweighted mean of their means.

The model answers a question with the replies the question lists (``[replies: a|b|c]``, one per repeat, in order);
its log-likelihoods are a fixed function of the text (CRC-32), so every run writes the same numbers. Beside each
run, ``aggregations.json`` holds lm-eval's own aggregation of every metric of its tasks (``Task.aggregation()``:
``mean`` for a metric averaged over documents, else a corpus-level function such as ``bleu``), which tells the test
which of the run's metrics have a per-document meaning; ``groups.json`` each group's ``weight_by_size`` per metric, from
lm-eval's own group config (a size-weighted group figure is a mean over documents; an unweighted one is not).
"""

from __future__ import annotations

import json
import os
import re
import sys
import zlib
from pathlib import Path
from typing import Any

os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"

from lm_eval.__main__ import cli_evaluate
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model
from lm_eval.tasks import TaskManager

TASKS = Path(__file__).resolve().parent / "lm_eval_tasks"
SHAPES = {
    "filters": "rt_gen",
    "metrics": "rt_metrics,rt_words",
    "multiple_choice": "rt_mc",
    "tasks": "rt_ll,rt_gen",
    "group": "rt_group",
    "flat_group": "rt_flat",
}
_REPLIES = re.compile(r"\[replies: ([^\]]*)\]")


@register_model("rt_local")
class LocalLM(LM):  # type: ignore[misc]
    """A model without weights: generations read from the prompt, log-likelihoods from a checksum of the text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        self.asked: dict[str, int] = {}

    @classmethod
    def create_from_arg_string(cls, arg_string: str, additional_config: Any = None) -> LocalLM:
        return cls()

    def generate_until(self, requests: Any, disable_tqdm: bool = False) -> list[str]:
        out = []
        for request in requests:
            context = request.arguments[0]
            found = _REPLIES.findall(context)
            replies = found[-1].split("|") if found else [""]
            turn = self.asked.get(context, 0)
            self.asked[context] = turn + 1
            out.append(replies[turn % len(replies)])
        return out

    def loglikelihood(self, requests: Any, disable_tqdm: bool = False) -> list[tuple[float, bool]]:
        out = []
        for request in requests:
            context, continuation = request.arguments
            check = zlib.crc32(f"{context}\x00{continuation}".encode())
            out.append((-((check % 1000) / 100.0) - 0.1 * len(continuation), check % 3 == 0))
        return out

    def loglikelihood_rolling(self, requests: Any, disable_tqdm: bool = False) -> list[float]:
        return [-((zlib.crc32(request.arguments[0].encode()) % 1000) / 100.0) for request in requests]


def main(out: Path) -> None:
    os.chdir(TASKS)  # the tasks' data_files are relative to the working directory
    manager = TaskManager(include_path=str(TASKS))  # indexes lm-eval's thousands of task files: made once
    for shape, tasks in SHAPES.items():
        sys.argv = [
            "lm_eval",
            "run",
            "--model",
            "rt_local",
            "--tasks",
            tasks,
            "--include_path",
            str(TASKS),
            "--log_samples",
            "--output_path",
            str(out / shape),
            "--seed",
            "0",
        ]
        cli_evaluate()
        aggregations: dict[str, dict[str, str]] = {}
        groups: dict[str, dict[str, bool]] = {}
        pending = list(manager.load_task_or_group(tasks.split(",")).items())
        while pending:  # a group is a mapping of its tasks (or groups): lm-eval's own config says how it aggregates
            name, task = pending.pop()
            if isinstance(task, dict):
                config = name.config
                groups[config["group"]] = {m["metric"]: bool(m["weight_by_size"]) for m in config["aggregate_metric_list"]}
                pending += task.items()
            else:
                aggregations[name] = {metric: fn.__name__ for metric, fn in task.aggregation().items()}
        (out / shape / "aggregations.json").write_text(json.dumps(aggregations, indent=2, sort_keys=True))
        (out / shape / "groups.json").write_text(json.dumps(groups, indent=2, sort_keys=True))


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
