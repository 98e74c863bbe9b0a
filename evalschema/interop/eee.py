"""Export a result set as an Every Eval Ever aggregate record (``eval.schema.json``, schema version 0.3.0).

One ``evaluation_results`` entry per grader (the mean score over its scored grader results, with the pass /
fail / unscored counts as details) and one for the run's pass rate; the reference summary (SPEC 4.3) gives the
numbers. Every Eval Ever's instance-level JSONL needs a datastore path and sample hashes that a result set does
not carry: the rows themselves are listed as dropped. The mapping is SPEC.md, Appendix A.6.
"""

from __future__ import annotations

import datetime as dt
from typing import IO, Any

import orjson

from ..summary.states import summarize
from .common import LossReport

SCHEMA_VERSION = "0.3.0"
DEPLOYMENT_UNKNOWN = {"deployment_type": "unknown", "model_availability": "unknown"}  # model_info.additional_details


def _details(values: dict[str, Any]) -> dict[str, str]:
    """EEE's ``additional_details``/``details``: string values only."""
    return {k: v if isinstance(v, str) else orjson.dumps(v).decode() for k, v in values.items() if v is not None}


def record(document: dict[str, Any], loss: LossReport, source: str, retrieved: dt.datetime | None = None) -> dict[str, Any]:
    summary = summarize(document).to_dict()
    retrieved = retrieved or dt.datetime.now(dt.UTC)
    provider = document.get("provider") or {}
    runner = document.get("runner") or {}
    model = provider.get("model")
    if not model:
        loss.defaulted(source, "/provider/model", "no model: model_info name and id are 'unknown'")
    model = model or "unknown"
    if not runner.get("name") or not runner.get("version"):
        loss.defaulted(source, "/runner", "no runner name or version: eval_library uses 'unknown'")
    started = document["started_at"]
    suite = document["suite_id"]
    source_data = {
        "dataset_name": suite,
        "source_type": "other",
        "additional_details": _details(
            {
                "suite_version": document.get("suite_version"),
                "run_id": document["run_id"],
            }
        ),
    }
    results: list[dict[str, Any]] = []
    scored = summary["passed"] + summary["failed"]
    if summary["pass_rate"] is not None:
        results.append(
            {
                "evaluation_result_id": "pass_rate",
                "evaluation_name": f"{suite}/pass_rate",
                "source_data": source_data,
                "evaluation_timestamp": started,
                "metric_config": {
                    "metric_id": "evalschema.pass_rate",
                    "metric_name": "Pass rate",
                    "metric_kind": "pass_rate",
                    "metric_unit": "proportion",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": 0,
                    "max_score": 1,
                    "evaluation_description": "passed / scored rows (SPEC 4.3): errored and unscored rows excluded, invalidated rows count as failed",
                },
                "score_details": {
                    "score": summary["pass_rate"],
                    "details": _details({k: summary[k] for k in ("total", "passed", "failed", "errored", "invalidated", "unscored")}),
                    "uncertainty": {"num_samples": scored},
                },
            }
        )
    else:
        loss.dropped(source, "/summary/pass_rate", "no scored row: a pass rate of null has no EEE score (score is a number)")
    for grader_id, totals in summary["by_grader"].items():
        if totals["avg_score"] is None:
            loss.dropped(source, f"/summary/by_grader/{grader_id}", "every result of this grader is unscored: EEE needs a numeric score")
            continue
        results.append(
            {
                "evaluation_result_id": grader_id,
                "evaluation_name": f"{suite}/{grader_id}",
                "source_data": source_data,
                "evaluation_timestamp": started,
                "metric_config": {
                    "metric_id": f"evalschema.grader.{grader_id}",
                    "metric_name": grader_id,
                    "metric_kind": "mean_score",
                    "metric_unit": "proportion",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": 0,
                    "max_score": 1,
                    "evaluation_description": "mean of the non-null scores of this grader over the non-errored rows (SPEC 4.3, by_grader)",
                },
                "score_details": {
                    "score": totals["avg_score"],
                    "details": _details({k: totals[k] for k in ("passed", "failed", "unscored")}),
                    "uncertainty": {"num_samples": totals["passed"] + totals["failed"]},
                },
            }
        )
    rows = len(document.get("results", []))
    if rows:
        loss.dropped(
            source,
            "/results",
            f"the {rows} rows themselves: EEE's instance-level file needs a datastore path and sample hashes a result set does not carry; the aggregates above are computed from them",
            rows,
        )
    if "attempts" in summary:
        loss.dropped(source, "/summary/attempts", "attempt rates (first/any/all) have no EEE field")
    for key in ("metadata", "group", "isolation"):
        if document.get(key):
            loss.dropped(source, f"/{key}", f"the result set's {key} has no EEE field")
    library: dict[str, Any] = {"name": runner.get("name") or "unknown", "version": runner.get("version") or "unknown"}
    # EEE's validate command requires both axes of a model's deployment; a result set says neither, and EEE allows
    # "unknown" for each
    model_details = {**_details({k: v for k, v in provider.items() if k != "model"}), **DEPLOYMENT_UNKNOWN}
    loss.defaulted(
        source,
        "/provider",
        "who deployed the model and whether its weights are open are not in a result set: EEE's deployment_type and model_availability are 'unknown'",
    )
    if "/" not in model:
        loss.defaulted(
            source,
            "/provider/model",
            "a model id without its developer ('developer/model'): EEE's model_info.developer is not set, so EEE's validate "
            "warns that the record names no datastore folder",
        )
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": f"{suite}/{model}/{int(retrieved.timestamp())}",
        "evaluation_timestamp": started,
        "retrieved_timestamp": str(int(retrieved.timestamp())),
        "source_metadata": {
            "source_name": "evalschema result set",
            "source_type": "evaluation_run",
            "source_organization_name": "unknown",
            "evaluator_relationship": "other",
            "additional_details": _details({"run_id": document["run_id"], "converted_by": "evalschema export --to eee"}),
        },
        "eval_library": library,
        "model_info": {"name": model, "id": model, "additional_details": model_details},
        "evaluation_results": results,
    }


def write(document: dict[str, Any], stream: IO[bytes], loss: LossReport, source: str) -> int:
    loss.defaulted(source, "", "EEE's source organisation and evaluator relationship are not in a result set: 'unknown' and 'other'")
    out = record(document, loss, source)
    stream.write(orjson.dumps(out, option=orjson.OPT_INDENT_2) + b"\n")
    return len(out["evaluation_results"])
