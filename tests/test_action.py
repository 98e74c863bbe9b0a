"""The GitHub Action (``action.yml``, composite) runs as GitHub runs it: each step's ``run:`` script under
``bash --noprofile --norc -eo pipefail``, its ``env:`` with the inputs substituted, its ``if:`` decided on the
inputs, the job stopping at the first failing step, ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` files read back
afterwards. Steps that ``uses:`` another action (setup-python) and the install step are GitHub's and pip's: the
simulated job runs with ``install: "false"`` and this checkout's ``evalschema`` on ``PATH``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
EVALSCHEMA = [sys.executable, "-m", "evalschema"]


def _condition(text: str, inputs: dict[str, str]) -> bool:
    """The ``if:`` forms the action uses: ``inputs.X == 'V'`` / ``!= 'V'`` joined by ``&&``."""
    verdict = True
    for part in text.split("&&"):
        match = re.fullmatch(r"\s*inputs\.([\w-]+) (==|!=) '([^']*)'\s*", part)
        assert match is not None, f"an if: this simulation does not know: {text!r}"
        value = inputs[match[1]]
        verdict = verdict and ((value == match[3]) if match[2] == "==" else (value != match[3]))
    return verdict


def _expand(text: str, inputs: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match[1].strip()
        if expression == "github.action_path":
            return str(REPO)
        assert expression.startswith("inputs."), expression
        return inputs[expression.removeprefix("inputs.")]

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if line)


def run_action(work: Path, **given: str) -> tuple[int, dict[str, str], str, list[str]]:
    """(the job's exit status, the action's outputs, the step summary, the log), as GitHub would produce them."""
    unknown = set(given) - set(ACTION["inputs"])
    assert not unknown, unknown
    inputs = {name: given.get(name, spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    summary = work / "step_summary.md"
    summary.write_text("")
    bin_dir = work / "bin"  # `evalschema` on PATH: this checkout's, as the install step would give it
    bin_dir.mkdir(exist_ok=True)
    launcher = bin_dir / "evalschema"
    launcher.write_text(f'#!/bin/sh\nexec {sys.executable} -m evalschema "$@"\n')
    launcher.chmod(0o755)
    step_outputs: dict[str, dict[str, str]] = {}
    status, log = 0, []
    for number, step in enumerate(ACTION["runs"]["steps"]):
        if "if" in step and not _condition(step["if"], inputs):
            continue
        if "run" not in step:
            assert step["uses"].startswith("actions/setup-python@") and inputs["install"] == "true"
            continue
        assert step["shell"] == "bash"
        output = work / f"output-{number}"
        output.write_text("")
        script = work / f"step-{number}.sh"
        script.write_text(step["run"])
        env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "HOME": os.environ.get("HOME", str(work)),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(work),
            **{key: _expand(str(value), inputs) for key, value in step.get("env", {}).items()},
        }
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        log.append(done.stdout + done.stderr)
        if "id" in step:
            step_outputs[step["id"]] = _outputs(output)
        if done.returncode != 0:
            status = done.returncode
            break

    def value(spec: dict[str, Any]) -> str:
        match = re.fullmatch(r"\$\{\{ steps\.([\w-]+)\.outputs\.([\w-]+) \}\}", spec["value"])
        assert match is not None, spec
        return step_outputs.get(match[1], {}).get(match[2], "")

    return status, {name: value(spec) for name, spec in ACTION["outputs"].items()}, summary.read_text(), log


def _project(where: Path) -> Path:
    subprocess.run([*EVALSCHEMA, "init", str(where)], check=True, capture_output=True)
    return where


def test_a_clean_project_passes_and_writes_the_comparison_to_the_summary(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    runs = project / "evals" / "runs"
    status, outputs, summary, log = run_action(
        project,
        install="false",
        files="evals",
        base=str(runs / "baseline.resultset.json"),
        new=str(runs / "latest.resultset.json"),
        **{"fail-on-regression": "true", "max-drop": "0.05"},
    )
    assert status == 0, log
    assert outputs == {"valid": "true", "compare-status": "0", "regression": "false"}
    # Markdown where `compare --format markdown` exists (issue 43 adds it beside this Action), else the text format
    # in a fenced block: the Action asks the installed evalschema, and so does this test
    helped = subprocess.run([*EVALSCHEMA, "compare", "--help"], capture_output=True, text=True, check=True).stdout
    markdown = "markdown" in helped
    expected = subprocess.run(
        [
            *EVALSCHEMA,
            "compare",
            "--format",
            "markdown" if markdown else "text",
            "--fail-on-regression",
            "--max-drop",
            "0.05",
            str(runs / "baseline.resultset.json"),
            str(runs / "latest.resultset.json"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert summary == (f"### evalschema compare\n\n{expected}" if markdown else f"### evalschema compare\n\n```\n{expected}```\n")
    assert expected in log[-1]


def test_a_regression_fails_the_job(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    runs = project / "evals" / "runs"
    # the baseline run got one answer of three wrong: judged against the latest run, it is a drop of 33 points
    status, outputs, summary, _ = run_action(
        project,
        install="false",
        files="evals",
        base=str(runs / "latest.resultset.json"),
        new=str(runs / "baseline.resultset.json"),
        **{"fail-on-regression": "true", "max-drop": "0.05"},
    )
    assert status == 1
    assert outputs == {"valid": "true", "compare-status": "1", "regression": "true"}
    assert summary.startswith("### evalschema compare\n")
    # without the gate, the same comparison passes
    status, outputs, _, _ = run_action(
        project, install="false", files="", base=str(runs / "latest.resultset.json"), new=str(runs / "baseline.resultset.json")
    )
    assert (status, outputs) == (0, {"valid": "", "compare-status": "0", "regression": "false"})


def test_an_invalid_document_fails_validation_and_nothing_is_compared(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    (project / "evals" / "broken.grader.json").write_text('{"id": "x", "type": "contains", "params": {}}')
    runs = project / "evals" / "runs"
    status, outputs, summary, log = run_action(
        project,
        install="false",
        files="evals/*.json evals/runs",
        base=str(runs / "baseline.resultset.json"),
        new=str(runs / "latest.resultset.json"),
    )
    assert status == 1
    assert outputs == {"valid": "false", "compare-status": "", "regression": ""}
    assert summary == ""
    assert "::error file=evals/broken.grader.json" in log[-1], log


def test_only_declared_documents_are_validated_unless_asked(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    (project / "package.json").write_text('{"name": "demo", "version": "1.0.0"}')
    status, outputs, _, log = run_action(project, install="false", files=".")
    assert (status, outputs["valid"]) == (0, "true"), log
    status, outputs, _, log = run_action(project, install="false", files=".", **{"only-declared": "false"})
    assert (status, outputs["valid"]) == (1, "false"), log
    assert "package.json" in log[-1]


def test_an_input_cannot_inject_shell(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    status, _, _, log = run_action(project, install="false", files="$(touch injected) `touch injected2`", base="")
    assert status == 2, log
    assert not (project / "injected").exists() and not (project / "injected2").exists()
