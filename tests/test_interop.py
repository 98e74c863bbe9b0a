"""evalschema import / export: every fixture converts to a valid suite + result set or fails with its code; the
exports pass Every Eval Ever's own validator and parse as OTLP logs; the real tools' runs import.

Fixtures: tests/interop/fixtures/<format>/expect.json (made by tests/interop/make_fixtures.py from the real tool
outputs in tests/interop/data/, whose provenance is tests/interop/README.md).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest

from evalschema.cli import main
from evalschema.interop import ConversionError, export_results, import_results
from evalschema.interop.common import LossReport
from evalschema.interop.csv_export import COLUMNS
from evalschema.interop.eee import record
from evalschema.pipeline import validate

HERE = Path(__file__).parent / "interop"
FIXTURES = HERE / "fixtures"
EEE_VERSION = "0.3.0"
PROMPTFOO_VERSION = "0.123.1"
CACHE = Path(os.environ.get("EVALSCHEMA_TEST_CACHE", Path.home() / ".cache" / "evalschema-tests"))


def tool_python(name: str, pins: Path, *, no_deps: bool = False) -> Path:
    """The Python of a virtual environment ``name`` in the test cache holding a tool this project does not depend on,
    at the versions ``pins`` lists (``no_deps``: that list is the whole, curated closure), made once and again only
    when the pins change."""
    folder = CACHE / name
    python, stamp = folder / "bin" / "python", folder / "pins.txt"
    if not stamp.exists() or stamp.read_bytes() != pins.read_bytes():
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        install = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *(["--no-deps"] if no_deps else [])]
        subprocess.run([*install, "-r", str(pins)], check=True, timeout=900)
        shutil.copy(pins, stamp)  # last: an install cut short is made again
    return python


def run_shapes(python: Path, script: Path, tmp_path: Path, env: dict[str, str]) -> Path:
    """Run a real tool's shapes script (``tests/interop/*_shapes.py``) with that tool's ``python`` in ``tmp_path``;
    return the folder it wrote its runs into."""
    runs = tmp_path / "runs"
    done = subprocess.run(
        [str(python), str(script), str(runs)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return runs


def _cases() -> list[tuple[str, str, str]]:
    out = []
    for folder in sorted(FIXTURES.iterdir()):
        for name, outcome in sorted(json.loads((folder / "expect.json").read_text()).items()):
            out.append((folder.name, name, outcome))
    return out


def _inputs(fmt: str, name: str) -> list[Path]:
    path = FIXTURES / fmt / name
    return sorted(path.iterdir()) if path.is_dir() else [path]


def _findings(document: Any, kind: str, suite: dict[str, Any] | None = None) -> list[str]:
    return [f"{f.code} {f.pointer}" for f in validate(document, kind, suite=suite).errors]


@pytest.fixture(scope="session")
def eee_validator() -> Any:
    """Every Eval Ever's validator, from its wheel on PyPI. The distribution declares Python >= 3.12 (this project
    supports 3.11), so the wheel is fetched with pip without its dependencies and put on sys.path: its validator
    needs only pydantic and rich, both installed here; its converters need inspect-ai."""
    folder = CACHE / f"every_eval_ever-{EEE_VERSION}"
    if not (folder / "every_eval_ever").is_dir():
        wheels = CACHE / "wheels"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--ignore-requires-python",
                f"every-eval-ever=={EEE_VERSION}",
                "-d",
                str(wheels),
            ],
            check=True,
        )
        import zipfile

        with zipfile.ZipFile(next(wheels.glob(f"every_eval_ever-{EEE_VERSION}-*.whl"))) as wheel:
            wheel.extractall(folder)
    sys.path.insert(0, str(folder))
    from every_eval_ever.validator import validation_core

    return validation_core


@pytest.mark.parametrize(("fmt", "name", "outcome"), _cases(), ids=[f"{f}/{n}" for f, n, _ in _cases()])
def test_fixture(fmt: str, name: str, outcome: str, tmp_path: Path) -> None:
    out = tmp_path / "run.resultset.json"
    if outcome != "ok":
        with pytest.raises(ConversionError) as caught:
            import_results(fmt, _inputs(fmt, name), out)
        assert caught.value.code == outcome
        assert not out.exists() and not (tmp_path / "run.suite.json").exists()  # nothing half-written
        return
    done = import_results(fmt, _inputs(fmt, name), out)
    suite = orjson.loads(done.suite_path.read_bytes())
    resultset = orjson.loads(out.read_bytes())
    assert _findings(suite, "suite") == []
    assert _findings(resultset, "resultset", suite) == []
    assert list(validate(resultset, "resultset").warnings) == []  # the stored summary is the reference summary
    assert resultset["metadata"]  # the source's header is kept
    json.dumps(done.loss.to_dict())


def test_fixture_counts() -> None:
    counts: dict[str, int] = {}
    for fmt, _, _ in _cases():
        counts[fmt] = counts.get(fmt, 0) + 1
    assert sorted(counts) == ["deepeval", "inspect_ai", "lm_eval", "openai_evals", "promptfoo"]
    assert min(counts.values()) >= 20


def _ok_fixtures() -> list[tuple[str, str]]:
    return [(f, n) for f, n, o in _cases() if o == "ok"]


@pytest.mark.parametrize(("fmt", "name"), _ok_fixtures(), ids=[f"{f}/{n}" for f, n in _ok_fixtures()])
def test_export_eee_passes_eee_validator(fmt: str, name: str, tmp_path: Path, eee_validator: Any) -> None:
    import_results(fmt, _inputs(fmt, name), tmp_path / "run.resultset.json")
    out = tmp_path / "run.eee.json"
    export_results("eee", tmp_path / "run.resultset.json", out)
    report = eee_validator.validate_aggregate(out)
    assert (report.valid, report.errors) == (True, [])


def test_the_eee_validate_command_accepts_every_export(tmp_path: Path, eee_validator: Any) -> None:
    """EEE's own command, ``every_eval_ever validate`` (its datastore checks too: the path, the model's deployment,
    the score bounds), run once over the export of every fixture, each placed where EEE files it
    (``data/<collection>/<developer>/<model>/<uuid4>.json``, the folders computed by EEE's own function). It accepts
    every record with no error; a flat model id (no ``developer/`` prefix, which a result set cannot supply) gets
    exactly EEE's one warning that the record names no datastore folder, as our loss report says."""
    from every_eval_ever.helpers.io import datastore_path_components

    repo = tmp_path / "repo"
    placed: dict[str, str | None] = {}  # path → the flat model id EEE warns about, or None
    for number, (fmt, name) in enumerate(_ok_fixtures()):
        work = tmp_path / f"{number}"
        work.mkdir()
        import_results(fmt, _inputs(fmt, name), work / "run.resultset.json")
        loss = export_results("eee", work / "run.resultset.json", work / "run.eee.json").loss.to_dict()
        model_info = orjson.loads((work / "run.eee.json").read_bytes())["model_info"]
        assert model_info["additional_details"]["deployment_type"] == model_info["additional_details"]["model_availability"] == "unknown"
        try:
            _, developer, model = datastore_path_components("evalschema", model_info["id"], model_info.get("developer"))
            flat = None
        except ValueError:
            developer, model, flat = "no-developer", "model", model_info["id"]
        assert ("/provider/model" in json.dumps(loss) and "developer" in json.dumps(loss)) == (flat is not None), (fmt, name)
        target = repo / "data" / "evalschema" / developer / model / f"{uuid.UUID(int=number, version=4)}.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(work / "run.eee.json", target)
        placed[target.relative_to(repo).as_posix()] = flat
    site = Path(eee_validator.__file__).parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "every_eval_ever", "validate", "--format", "json", *placed]
    run = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, check=False)
    reports = json.loads(run.stdout)
    assert sorted(r["file"] for r in reports) == sorted(placed), run.stderr[-2000:]
    for report in reports:
        flat = placed[report["file"]]
        assert (report["valid"], report["errors"]) == (True, []), report
        warned = [w["msg"].split(" — ")[0] for w in report["warnings"]]
        assert warned == ([] if flat is None else [f"id {flat!r} names no datastore directory"]), report
    assert run.returncode == (2 if any(placed.values()) else 0), run.stderr[-2000:]  # EEE: 2 is "warnings only"


def test_eee_validator_can_fail(tmp_path: Path, eee_validator: Any) -> None:
    """The check above can fail: a record without its model info is refused."""
    import_results("openai_evals", _inputs("openai_evals", "valid.jsonl"), tmp_path / "r.json")
    document = orjson.loads((tmp_path / "r.json").read_bytes())
    broken = record(document, LossReport("export", "eee"), "r.json")
    del broken["model_info"]
    (tmp_path / "bad.json").write_bytes(orjson.dumps(broken))
    assert eee_validator.validate_aggregate(tmp_path / "bad.json").valid is False


def _imported(fmt: str, name: str, tmp_path: Path) -> Path:
    out = tmp_path / f"{fmt}.resultset.json"
    import_results(fmt, _inputs(fmt, name), out)
    return out


def test_export_otel_parses_as_otlp_logs(tmp_path: Path) -> None:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    source = _imported("inspect_ai", "valid.eval", tmp_path)
    done = export_results("otel", source, tmp_path / "run.otlp.json")
    request = json_format.Parse((tmp_path / "run.otlp.json").read_text(), ExportLogsServiceRequest())
    records = request.resource_logs[0].scope_logs[0].log_records
    rows = orjson.loads(source.read_bytes())["results"]
    assert len(records) == done.records == sum(len(r["grader_results"]) for r in rows) == 12
    first = records[0]
    assert first.event_name == "gen_ai.evaluation.result"
    attributes = {a.key: a.value for a in first.attributes}
    assert attributes["gen_ai.evaluation.name"].string_value == rows[0]["grader_results"][0]["grader_id"]
    assert attributes["gen_ai.evaluation.score.value"].double_value == rows[0]["grader_results"][0]["score"]
    assert attributes["evalschema.test_case_id"].string_value == rows[0]["test_case_id"]
    assert done.loss.has_dropped  # the errored rows have no grader result, so no event: said in the report


def test_export_csv_columns_and_rows(tmp_path: Path) -> None:
    source = _imported("inspect_ai", "valid.eval", tmp_path)
    export_results("csv", source, tmp_path / "run.csv")
    lines = list(csv.reader(io.StringIO((tmp_path / "run.csv").read_text(encoding="utf-8"), newline="")))
    assert tuple(lines[0]) == COLUMNS
    rows = orjson.loads(source.read_bytes())["results"]
    assert len(lines) - 1 == sum(max(1, len(r["grader_results"])) for r in rows) == 14
    errored = [line for line in lines[1:] if line[COLUMNS.index("outcome")] == "errored"]
    assert len(errored) == 2 and errored[0][COLUMNS.index("error_type")] == "runner_error"


def test_export_refuses_an_invalid_resultset(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"version": "1.1.0"}')
    with pytest.raises(ConversionError) as caught:
        export_results("csv", tmp_path / "bad.json", tmp_path / "out.csv")
    assert caught.value.code == "EXPORT_INPUT_INVALID"
    assert not (tmp_path / "out.csv").exists()


def test_cli_import_and_strict_loss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "import",
        "--from",
        "inspect_ai",
        str(FIXTURES / "inspect_ai" / "valid.eval"),
        "-o",
        str(tmp_path / "r.json"),
        "--format",
        "json",
    ]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True and report["loss"]["counts"]["dropped"] > 0
    assert main([*args, "--strict-loss"]) == 1
    capsys.readouterr()
    clean = ["import", "--from", "promptfoo", str(FIXTURES / "promptfoo" / "valid.json"), "-o", str(tmp_path / "p.json"), "--strict-loss"]
    assert main(clean) == 0
    assert "nothing dropped" in capsys.readouterr().out


def test_cli_bad_input_exits_2_with_code_and_no_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["import", "--from", "inspect_ai", str(FIXTURES / "inspect_ai" / "truncated.eval"), "-o", str(tmp_path / "r.json")])
    captured = capsys.readouterr()
    assert status == 2
    assert "IMPORT_UNREADABLE" in captured.err and "truncated.eval" in captured.err
    assert "Traceback" not in captured.err + captured.out
    assert not (tmp_path / "r.json").exists()
    assert main(["export", "--to", "eee", str(tmp_path / "missing.json"), "-o", str(tmp_path / "e.json"), "--format", "json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "EXPORT_INPUT_INVALID"


def test_inspect_mapping_numbers(tmp_path: Path) -> None:
    """The real mockllm run (tests/interop/inspect_task.py): 4 samples × 2 epochs, sample 'boom' errors in both."""
    for name in ("valid.eval", "valid.json"):
        summary = import_results("inspect_ai", _inputs("inspect_ai", name), tmp_path / f"{name}.resultset.json").summary
        assert summary == {
            "total": 8,
            "passed": 0,
            "failed": 6,
            "skipped": 2,
            "errored": 2,
            "invalidated": 0,
            "unscored": 0,
            "pass_rate": 0.0,
            "avg_score": pytest.approx((1 / 3 + 0.25) / 2),
            "by_grader": {
                # per test case (SPEC 4.7, issue 40): Inspect's own figures for this log, accuracy 1/3 (stderr 1/3)
                # and mean 0.25, over the 3 samples that did not error, their 2 epochs reduced by mean
                "brevity": {
                    "passed": 0,
                    "failed": 6,
                    "unscored": 0,
                    "avg_score": 0.25,
                    "per_test_case": {"reducer": "mean", "test_cases": 3, "avg_score": 0.25, "stderr": 0.0},
                },
                "match": {
                    "passed": 2,
                    "failed": 4,
                    "unscored": 0,
                    "avg_score": pytest.approx(1 / 3),
                    "per_test_case": {
                        "reducer": "mean",
                        "test_cases": 3,
                        "avg_score": pytest.approx(1 / 3),
                        "stderr": pytest.approx(1 / 3),
                    },
                },
            },
            "attempts": {"test_cases": 3, "first_attempt_pass_rate": 0.0, "any_pass_rate": 0.0, "all_pass_rate": 0.0},
        }
    eval_rows = orjson.loads((tmp_path / "valid.eval.resultset.json").read_bytes())["results"]
    json_rows = orjson.loads((tmp_path / "valid.json.resultset.json").read_bytes())["results"]
    assert sorted(eval_rows, key=lambda r: (r["test_case_id"], r["attempt"])) == sorted(
        json_rows, key=lambda r: (r["test_case_id"], r["attempt"])
    )


def test_cross_check_with_eee_converters(tmp_path: Path, eee_validator: Any) -> None:
    """Every Eval Ever's own Inspect and lm-eval converters on the same sources give the same numbers.

    Inspect: EEE reports the log's own metrics per scorer (accuracy of ``match``: mean over samples of the
    epoch-reduced scores; ``mean`` of brevity), over the 3 samples that did not error; we report per grader the
    mean over the 6 non-errored attempt rows. With the same number of epochs per sample the two are equal.
    (EEE's Inspect converter refuses the model name ``mockllm/model`` — it cannot tell the developer — so the
    real mockllm log gets a provider-qualified model name first; no number depends on it.)
    lm-eval: EEE reports the results file's aggregates for both tasks; only math_perturbed_full has a samples file
    here, and our mean over its 10 rows equals its aggregate, 0.0. math_rephrased_full (0.0004 in EEE) has no
    rows in our import: lm-eval writes per-sample rows only for tasks with a samples file (its aggregate is kept
    in metadata lm_eval.results)."""
    from every_eval_ever.converters.inspect.adapter import InspectAIAdapter
    from every_eval_ever.converters.lm_eval.adapter import LMEvalAdapter
    from every_eval_ever.eval_types import EvaluatorRelationship

    args = {
        "source_organization_name": "evalschema-tests",
        "evaluator_relationship": EvaluatorRelationship.first_party,
        "file_uuid": "123e4567-e89b-42d3-a456-426614174000",
        "parent_eval_output_dir": str(tmp_path / "eee"),
    }
    log = json.loads((HERE / "data" / "inspect_ai" / "tiny-mockllm.json").read_text())
    log["eval"]["model"] = "openai/gpt-4o-mini"
    (tmp_path / "tiny.json").write_text(json.dumps(log))
    theirs = InspectAIAdapter().transform_from_file(str(tmp_path / "tiny.json"), metadata_args=args)
    their_scores = {r.evaluation_result_id: r.score_details.score for r in theirs.evaluation_results}
    ours = import_results("inspect_ai", [tmp_path / "tiny.json"], tmp_path / "tiny.resultset.json").summary["by_grader"]
    assert their_scores == {
        "match:accuracy": pytest.approx(ours["match"]["avg_score"], abs=1e-12),
        "brevity:mean": pytest.approx(ours["brevity"]["avg_score"], abs=1e-12),
    }
    assert ours["match"]["avg_score"] == pytest.approx(1 / 3) and ours["brevity"]["avg_score"] == 0.25

    results = HERE / "data" / "lm_eval" / "results_2026-01-21T03-44-18.458309.json"
    logs = LMEvalAdapter().transform_from_file(str(results), args)
    eee_means = {r.source_data.dataset_name: r.score_details.score for log in logs for r in log.evaluation_results}
    assert eee_means == {"math_perturbed_full": 0.0, "math_rephrased_full": 0.0004}
    ours_lm = import_results("lm_eval", _inputs("lm_eval", "valid"), tmp_path / "lm.resultset.json").summary["by_grader"]
    # one attempt per document: the per-test-case view beside the per-row figures, the same mean
    view = ours_lm["math_perturbed_full/exact_match"].pop("per_test_case")
    assert ours_lm == {
        "math_perturbed_full/exact_match": {"passed": 0, "failed": 10, "unscored": 0, "avg_score": eee_means["math_perturbed_full"]}
    }
    assert (view["test_cases"], view["avg_score"]) == (10, eee_means["math_perturbed_full"])


@pytest.mark.slow
def test_real_inspect_run(tmp_path: Path) -> None:
    """Inspect AI itself, offline (mockllm/model; the token counter is replaced in the task file: see its docstring)."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "INSPECT_DISPLAY": "none", "INSPECT_LOG_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(HERE / "inspect_task.py"), str(tmp_path / "logs")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    eval_log, json_log = (Path(p) for p in done.stdout.split())
    for log in (eval_log, json_log):
        out = tmp_path / (log.suffix[1:] + ".resultset.json")
        summary = import_results("inspect_ai", [log], out).summary
        assert (summary["total"], summary["errored"], summary["by_grader"]["brevity"]["avg_score"]) == (8, 2, 0.25)
        assert summary["by_grader"]["match"]["avg_score"] == pytest.approx(1 / 3)
        suite = orjson.loads(out.with_name(out.name.replace(".resultset.json", ".suite.json")).read_bytes())
        assert _findings(orjson.loads(out.read_bytes()), "resultset", suite) == []


def _promptfoo() -> Path:
    """promptfoo and a Node.js it supports (>= 22: the `node` package on npm ships the binary), installed once
    into the test cache. Not a devDependency of js/: with its dependencies it is about 1.6 GB."""
    folder = CACHE / f"promptfoo-{PROMPTFOO_VERSION}"
    binary = folder / "node_modules" / ".bin" / "promptfoo"
    if not binary.exists():
        npm = shutil.which("npm")
        assert npm is not None, "npm is needed to install promptfoo for this test"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "package.json").write_text('{"private": true}')
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--silent", f"promptfoo@{PROMPTFOO_VERSION}", "node@22"],
            cwd=folder,
            check=True,
            timeout=1800,
        )
    return folder / "node_modules" / ".bin"


@pytest.mark.slow
def test_real_promptfoo_run(tmp_path: Path) -> None:
    """promptfoo itself with its `echo` provider (no network), telemetry and update checks off."""
    bin_dir = _promptfoo()
    shutil.copy(HERE / "promptfooconfig.yaml", tmp_path / "promptfooconfig.yaml")
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_CONFIG_DIR": str(tmp_path / ".promptfoo"),
        "HOME": str(tmp_path),
    }
    done = subprocess.run(
        [str(bin_dir / "promptfoo"), "eval", "-c", "promptfooconfig.yaml", "-o", "results.json", "--no-cache", "--no-progress-bar"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 100), done.stderr[-2000:]  # 100: some test failed, as designed
    summary = import_results("promptfoo", [tmp_path / "results.json"], tmp_path / "pf.resultset.json").summary
    stats = orjson.loads((tmp_path / "results.json").read_bytes())["results"]["stats"]  # promptfoo's own counts
    assert (summary["passed"], summary["failed"], summary["errored"]) == (stats["successes"], stats["failures"], stats["errors"])


def test_timestamps_are_rfc3339(tmp_path: Path) -> None:
    import_results("openai_evals", _inputs("openai_evals", "valid.jsonl"), tmp_path / "r.json")
    started = orjson.loads((tmp_path / "r.json").read_bytes())["started_at"]
    assert dt.datetime.fromisoformat(started).tzinfo is not None


def _row(fmt: str, name: str, case: str, tmp_path: Path, attempt: int | None = None) -> dict[str, Any]:
    import_results(fmt, _inputs(fmt, name), tmp_path / "r.json")
    rows = orjson.loads((tmp_path / "r.json").read_bytes())["results"]
    [row] = [r for r in rows if r["test_case_id"] == case and r.get("attempt") == attempt]
    return dict(row)


def _grades(row: dict[str, Any]) -> list[tuple[str, float | None, bool, Any]]:
    return [
        (
            g["grader_id"],
            g["score"],
            g["passed"],
            (g.get("metadata") or {}).get(next((k for k in g.get("metadata") or {} if k.endswith(".value")), ""), None),
        )
        for g in row["grader_results"]
    ]


MAPPINGS: list[tuple[str, str, str, int | None, list[tuple[str, float | None, bool, Any]], bool, str | None]] = [
    # format, fixture, test case, attempt, (grader, score, passed, kept source value), row passed, error type
    ("inspect_ai", "valid.json", "right", 1, [("match", 1.0, True, "C"), ("brevity", 0.25, False, None)], False, None),
    ("inspect_ai", "valid.json", "wrong", 2, [("match", 0.0, False, "I"), ("brevity", 0.25, False, None)], False, None),
    ("inspect_ai", "valid.json", "boom", 1, [], False, "runner_error"),
    ("inspect_ai", "score-partial.json", "3", 1, [("match", 0.5, False, "P"), ("brevity", 0.25, False, None)], False, None),
    ("inspect_ai", "score-noanswer.json", "3", 1, [("match", 0.0, False, "N"), ("brevity", 0.25, False, None)], False, None),
    ("inspect_ai", "score-out-of-range.json", "3", 1, [("match", None, False, 7), ("brevity", 0.25, False, None)], False, None),
    ("inspect_ai", "score-numeric-string.json", "3", 1, [("match", 0.75, False, None), ("brevity", 0.25, False, None)], False, None),
    ("inspect_ai", "score-bool.json", "3", 1, [("match", 1.0, True, None), ("brevity", 0.25, False, None)], False, None),
    (
        "inspect_ai",
        "score-dict.json",
        "right",
        1,
        [("match/accuracy", 1.0, True, None), ("match/style", 0.5, False, None), ("brevity", 0.25, False, None)],
        False,
        None,
    ),
    (
        "promptfoo",
        "valid.json",
        "test-0",
        1,
        [("promptfoo:test", 1.0, True, None), ("contains", 1.0, True, None), ("icontains", 1.0, True, None), ("regex", 1.0, True, None)],
        True,
        None,
    ),
    (
        "promptfoo",
        "valid.json",
        "test-1",
        1,
        [
            ("promptfoo:test", (0.0 + 0.25 + 1.0) / 3, False, None),  # gradingResult.score: the mean of the three
            ("equals", 0.0, False, None),
            ("javascript", 0.25, True, None),
            ("not-contains", 1.0, True, None),
        ],
        False,
        None,
    ),
    ("promptfoo", "provider-error.json", "test-1", 1, [], False, "provider_error"),
    ("lm_eval", "valid", "math_perturbed_full/0", 1, [("math_perturbed_full/exact_match", 0.0, False, None)], False, None),
    ("lm_eval", "metric-bool", "math_perturbed_full/0", 1, [("math_perturbed_full/exact_match", 1.0, True, None)], True, None),
    ("lm_eval", "lower-is-better", "math_perturbed_full/0", 1, [("math_perturbed_full/exact_match", None, False, 0.0)], False, None),
    (
        "lm_eval",
        "filter-and-int-target",
        "math_perturbed_full/0",
        1,
        [("math_perturbed_full/exact_match,strict-match", 0.0, False, None)],
        False,
        None,
    ),
    ("openai_evals", "valid.jsonl", "test-match.s1.1", None, [("match", 1.0, True, None)], True, None),
    ("openai_evals", "error-event.jsonl", "test-match.s1.0", None, [("match", 0.0, False, None)], False, "runner_error"),
    (
        "openai_evals",
        "metrics-score.jsonl",
        "test-match.s1.1",
        None,
        [("match", 1.0, True, None), ("metrics", 0.4, False, None)],
        False,
        None,
    ),
    ("deepeval", "valid.json", "0:test_case_0", None, [("Word_Overlap", 1.0, True, None), ("Brevity", 1.0, True, None)], True, None),
    (
        "deepeval",
        "metric-error.json",
        "1:test_case_1",
        None,
        [("Word_Overlap", None, False, None), ("Brevity", 0.0, False, None)],
        False,
        None,
    ),
    ("deepeval", "no-metrics.json", "1:test_case_1", None, [("deepeval:no-metrics", None, False, None)], False, None),
]


@pytest.mark.parametrize(
    ("fmt", "name", "case", "attempt", "grades", "passed", "error"), MAPPINGS, ids=[f"{m[0]}/{m[1]}/{m[2]}" for m in MAPPINGS]
)
def test_mapping(
    fmt: str, name: str, case: str, attempt: int | None, grades: list[Any], passed: bool, error: str | None, tmp_path: Path
) -> None:
    row = _row(fmt, name, case, tmp_path, attempt)
    assert _grades(row) == grades
    assert row["passed"] is passed
    assert (row.get("error") or {}).get("type") == error


def test_loss_report_entries(tmp_path: Path) -> None:
    done = import_results("lm_eval", _inputs("lm_eval", "lower-is-better"), tmp_path / "r.json")
    report = done.loss.to_dict()
    assert report["counts"] == {"dropped": 0, "approximated": 10, "defaulted": 0}
    [entry] = report["approximated"]
    assert (entry["pointer"], entry["count"], entry["examples"][0]) == (":*/exact_match", 10, ":1/exact_match")
    assert entry["reason"].startswith("lower-is-better metric")
    inspect = import_results("inspect_ai", _inputs("inspect_ai", "valid.json"), tmp_path / "i.json").loss.to_dict()
    dropped = {(e["pointer"], e["count"]) for e in inspect["dropped"]}
    assert dropped == {("/samples/*/messages", 8), ("/samples/*/events", 8), ("/samples/*/error/traceback_ansi", 2), ("/reductions", 1)}
    assert {(e["pointer"], e["count"]) for e in inspect["defaulted"]} == {("/samples/*/error", 2)}


def test_conversions_need_no_network(no_network: list[Any], tmp_path: Path) -> None:
    for fmt, name in (
        ("inspect_ai", "valid.eval"),
        ("promptfoo", "valid.json"),
        ("lm_eval", "valid"),
        ("openai_evals", "valid.jsonl"),
        ("deepeval", "valid.json"),
    ):
        out = tmp_path / f"{fmt}.resultset.json"
        import_results(fmt, _inputs(fmt, name), out)
        for target in ("eee", "otel", "csv"):
            export_results(target, out, tmp_path / f"{fmt}.{target}")
    assert no_network == []


def test_missing_inspect_extra_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name.startswith("inspect_ai") else real(name, *a))
    status = main(["import", "--from", "inspect_ai", str(FIXTURES / "inspect_ai" / "valid.eval"), "-o", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert status == 2
    assert "pip install 'evalschema[inspect]'" in err and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()


def test_suite_out_and_default_suite_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = str(FIXTURES / "deepeval" / "valid.json")
    assert main(["import", "--from", "deepeval", source, "-o", str(tmp_path / "a.resultset.json")]) == 0
    assert (tmp_path / "a.suite.json").is_file()
    assert main(["import", "--from", "deepeval", source, "-o", str(tmp_path / "b.json"), "--suite-out", str(tmp_path / "s.json")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.resultset.json", "a.suite.json", "b.json", "s.json"]
    assert orjson.loads((tmp_path / "b.json").read_bytes())["suite_id"] == orjson.loads((tmp_path / "s.json").read_bytes())["id"]
    capsys.readouterr()


@pytest.mark.parametrize(("alias", "name", "inputs"), [("lm-eval", "lm_eval", "valid"), ("openai-evals", "openai_evals", "valid.jsonl")])
def test_alias_names_import_as_the_canonical_format(
    alias: str, name: str, inputs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from evalschema.interop import ALIASES

    assert ALIASES[alias] == name
    outs = {}
    for spelled in (alias, name):
        out = tmp_path / f"{spelled}.resultset.json"
        capsys.readouterr()
        assert main(["import", "--from", spelled, *map(str, _inputs(name, inputs)), "-o", str(out), "--format", "json"]) == 0
        reported = json.loads(capsys.readouterr().out)
        assert reported["loss"]["format"] == name
        outs[spelled] = orjson.loads(out.read_bytes())["results"]
    assert outs[alias] == outs[name]


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("promptfoo", "valid.json"),
        ("lm_eval", "filters"),
        ("openai_evals", "fuzzy-match.jsonl"),
        ("deepeval", "valid.json"),
        ("inspect_ai", "valid.json"),
    ],
)
def test_imported_rows_need_no_json_copy_in_parquet(fmt: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Imported rows are written with their members in the schema's order, so a Parquet export keeps no `_json` copy."""
    import pyarrow.parquet as pq  # the columnar extra: a dev dependency

    out = tmp_path / "run.resultset.json"
    import_results(fmt, _inputs(fmt, name), out)
    assert main(["export", "--to", "parquet", str(out), "-o", str(tmp_path / "pq")]) == 0
    # the rows (the cost the issue measured: one copy per row); the run's one row may keep a copy, as any run's
    # may: its summary holds nulls (a per-test-case `stderr` of one test case) that a column cannot tell from absent
    for table in ("results",):
        (file,) = (tmp_path / "pq").glob(f"{table}.*")
        column = pq.read_table(file).column("_json")
        assert column.null_count == len(column), f"{table}: {len(column) - column.null_count} rows keep a JSON copy"


def test_large_import_writes_a_test_cases_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Test cases beyond CASES_FILE_BYTES go to a JSON Lines test_cases_file beside the suite, which validate --suite
    follows; the three files appear together (here every import is "large": the bound set to 0)."""
    from evalschema.interop import cases_path_for, common

    monkeypatch.setattr(common, "CASES_FILE_BYTES", 0)
    out = tmp_path / "run.resultset.json"
    done = import_results("lm_eval", _inputs("lm_eval", "filters"), out)
    suite = orjson.loads(done.suite_path.read_bytes())
    assert done.cases_path == cases_path_for(done.suite_path) == tmp_path / "run.cases.jsonl"
    assert suite["test_cases_file"] == "run.cases.jsonl" and "test_cases" not in suite
    cases = [orjson.loads(line) for line in done.cases_path.read_bytes().splitlines()]
    rows = orjson.loads(out.read_bytes())["results"]
    assert sorted(c["id"] for c in cases) == sorted({r["test_case_id"] for r in rows})
    capsys.readouterr()
    assert main(["validate", "--strict", "--suite", str(done.suite_path), str(out)]) == 0, capsys.readouterr().out
    with pytest.raises(ConversionError):
        import_results("lm_eval", _inputs("lm_eval", "samples-empty"), tmp_path / "bad.resultset.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.cases.jsonl", "run.resultset.json", "run.suite.json"]
