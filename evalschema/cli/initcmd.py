"""``evalschema init [DIR]``: the shortest path from nothing to evals checked in CI.

Writes, under DIR (default: the current folder), a minimal suite, its grader and two runs of it (a baseline and a
latest result set, so ``compare`` has something to compare), all valid; a ``.pre-commit-config.yaml`` running this
repository's ``evalschema-validate`` hook; and a GitHub workflow running this repository's Action (``action.yml``):
validate everything under ``evals/``, then gate the latest run against the baseline. Every file goes through the
output gate together: all of them appear, or none. An existing file is never replaced: the command refuses, naming
it, and writes nothing (exit 2).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .common import EXIT_OK, UsageError

SUITE = "evals/capitals.suite.json"
GRADER = "evals/exact-answer.grader.json"
BASELINE = "evals/runs/baseline.resultset.json"
LATEST = "evals/runs/latest.resultset.json"
PRE_COMMIT = ".pre-commit-config.yaml"
WORKFLOW = ".github/workflows/evals.yml"

# the suite's questions and the answers each run gave: the latest run gets one more right than the baseline
_CASES = (("france", "Paris", "Paris", "Paris"), ("japan", "Tokyo", "Kyoto", "Tokyo"), ("peru", "Lima", "Lima", "Lima"))


def source_url() -> str:
    """This project's repository, as the package's metadata names it (``[project.urls] Source``)."""
    from importlib import metadata

    entries: list[str] = metadata.metadata("evalschema").get_all("Project-URL") or []
    for entry in entries:
        label, _, url = entry.partition(",")
        if label.strip() == "Source":
            return url.strip()
    raise UsageError("the installed evalschema names no Source URL in its metadata")


def release_ref() -> str:
    """The tag of this version's release (``v<version>``): what the pre-commit config's ``rev`` and the workflow's
    ``uses: …@`` name."""
    from ..schemas.registry import spec_version

    return f"v{spec_version()}"


def _json(document: dict[str, Any]) -> bytes:
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode()


def files() -> dict[str, bytes]:
    """What ``init`` writes, by path relative to DIR."""
    from ..schemas.registry import current, spec_version

    version, schemas = spec_version(), current().roots
    grader = {"id": "exact-answer", "type": "exact_match", "params": {"ignore_case": True, "trim_whitespace": True}}
    suite = {
        "$schema": schemas["suite"]["$id"],
        "version": version,
        "id": "capitals",
        "name": "Capitals",
        "graders": [grader],
        "test_cases": [
            {"id": case, "input": f"What is the capital of {case.title()}?", "expected_output": answer, "graders": [grader["id"]]}
            for case, answer, _, _ in _CASES
        ],
    }

    def run(name: str, column: int, started: str) -> dict[str, Any]:
        results = []
        for case in _CASES:
            passed = case[column] == case[1]
            graded = {"grader_id": grader["id"], "type": grader["type"], "score": 1 if passed else 0, "passed": passed}
            results.append({"test_case_id": case[0], "actual_output": case[column], "grader_results": [graded], "passed": passed})
        return {
            "$schema": schemas["resultset"]["$id"],
            "version": version,
            "suite_id": suite["id"],
            "run_id": name,
            "started_at": started,
            "results": results,
        }

    url, ref = source_url(), release_ref()
    pre_commit = f"""\
# pre-commit (https://pre-commit.com): `pre-commit install`, then every commit's evalschema documents are validated
repos:
  - repo: {url}
    rev: {ref}
    hooks:
      - id: evalschema-validate          # or evalschema-validate-strict: warnings fail too
"""
    owner_name = "/".join(url.rstrip("/").split("/")[-2:])
    workflow = f"""\
# Validates every evalschema document under evals/, then fails when the latest run's pass rate dropped against the
# baseline (significantly, or by more than max-drop). The comparison is written to the job's summary page.
name: evals
on: [push, pull_request]
jobs:
  evals:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: {owner_name}@{ref}
        with:
          files: evals
          base: {BASELINE}
          new: {LATEST}
          fail-on-regression: "true"
          max-drop: "0.05"
"""
    return {
        SUITE: _json(suite),
        GRADER: _json({"$schema": schemas["grader"]["$id"], **grader}),
        BASELINE: _json(run("baseline", 2, "2026-01-05T09:00:00Z")),
        LATEST: _json(run("latest", 3, "2026-01-12T09:00:00Z")),
        PRE_COMMIT: pre_commit.encode(),
        WORKFLOW: workflow.encode(),
    }


def _plan(root: Path, wanted: list[str]) -> tuple[list[Path], list[Path], dict[str, Path]]:
    """The gate's file outputs and new folders, and where each wanted file is written: a file whose folder exists
    is a file output; otherwise its highest missing folder is a new folder, filled while staged."""
    file_outputs: list[Path] = []
    folders: list[Path] = []
    for name in wanted:
        path = root / name
        missing = [p for p in [path.parent, *path.parent.parents] if not p.exists()]
        if missing:
            if missing[-1] not in folders:
                folders.append(missing[-1])
        else:
            file_outputs.append(path)
    return file_outputs, folders, {name: root / name for name in wanted}


def run(args: argparse.Namespace) -> int:
    from ..io.gate import Outputs, Refused, shown

    root: Path = args.dir
    contents = files()
    existing = [name for name in contents if (root / name).exists() or (root / name).is_symlink()]
    if existing:
        # the gate's refusal (it escapes the names), naming every file that is in the way
        raise Refused(
            ", ".join(str(root / name) for name in existing), "exists; init replaces nothing (move it away, or choose another DIR)"
        )
    file_outputs, folders, where = _plan(root, list(contents))
    with Outputs(file_outputs, folders=folders) as gate:
        for name, data in contents.items():
            path = where[name]
            top = next((f for f in folders if f == path or f in path.parents), None)
            if top is None:
                gate.write(path, data)
            else:
                gate.write_in(top, path.relative_to(top), data)
    for name in contents:
        print(f"wrote {shown(root / name)}")
    print(f"next: evalschema validate {shown(root / 'evals')}")
    return EXIT_OK


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``init`` on the ``evalschema`` command's subparsers; the handler is ``args.handler``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "init",
        help="write a minimal suite, grader and runs, a pre-commit config and a CI workflow",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("dir", nargs="?", type=Path, default=Path("."), metavar="DIR", help="where to write (default: the current folder)")
    p.set_defaults(handler=run)
    return p
