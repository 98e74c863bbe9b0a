"""The generated msgspec types against the official JSON-Schema-Test-Suite (draft 2020-12), as ``official_tests``
runs the Python models: each test group's schema generated alone (the msgspec target), every test instance decoded
with the root type (``msgspec.json.decode``), its verdict compared with the suite's ``valid`` flag.

A false accept is sound only where the group's ``RESIDUAL`` table is not empty (the types said they leave a keyword
unchecked); ``run_all`` sorts them apart: ``false_accept`` holds only those of groups whose types claim everything."""

from __future__ import annotations

import importlib
import json
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from official_tests import KEYWORDS, Case, groups


@dataclass
class Outcome:
    agree: list[Case] = field(default_factory=list)
    false_accept: list[Case] = field(default_factory=list)  # the types claimed every keyword, and accepted
    left_unchecked: list[Case] = field(default_factory=list)  # accepted, with the keyword listed in RESIDUAL
    false_reject: list[Case] = field(default_factory=list)
    no_model: list[tuple[Case, str]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "agree": len(self.agree),
            "false accept": len(self.false_accept),
            "left unchecked": len(self.left_unchecked),
            "false reject": len(self.false_reject),
            "no model": len(self.no_model),
        }


def _generate(schema: Any, work: Path, package: str) -> Any:
    from codegen.ir import build
    from codegen.load import load
    from codegen.targets import msgspec

    folder = work / f"{package}_schemas"
    folder.mkdir()
    (folder / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    schemas = load(folder)
    files = msgspec.render(build(schemas), schemas)
    (work / package).mkdir()
    for name, content in files.items():
        (work / package / name).write_bytes(content)
    return importlib.import_module(package)


def run(keyword: str, work: Path) -> Outcome:
    import msgspec

    from codegen.load import SchemaError

    outcome = Outcome()
    for index, group in enumerate(groups(keyword)):
        cases = [Case(keyword, group["description"], test["description"], bool(test["valid"])) for test in group["tests"]]
        try:
            module = _generate(group["schema"], work, f"msgspec_suite_{keyword}_{index}")
        except SchemaError as exc:
            outcome.no_model.extend((case, str(exc)) for case in cases)
            continue
        if "schema.json" not in module.ROOTS:
            outcome.no_model.extend((case, "no root type") for case in cases)
            continue
        decoder = msgspec.json.Decoder(module.ROOTS["schema.json"])
        for case, test in zip(cases, group["tests"]):
            try:
                decoder.decode(json.dumps(test["data"]).encode())
                accepted = True
            except (msgspec.ValidationError, msgspec.DecodeError):
                accepted = False
            if accepted == case.valid:
                outcome.agree.append(case)
            elif not accepted:
                outcome.false_reject.append(case)
            elif module.RESIDUAL:
                outcome.left_unchecked.append(case)
            else:
                outcome.false_accept.append(case)
    return outcome


def run_all(keywords: tuple[str, ...] = KEYWORDS) -> dict[str, Outcome]:
    with tempfile.TemporaryDirectory(prefix="codegen-msgspec-suite-") as tmp:
        sys.path.insert(0, tmp)
        try:
            return {keyword: run(keyword, Path(tmp)) for keyword in keywords}
        finally:
            sys.path.remove(tmp)


def disagreements(outcomes: dict[str, Outcome]) -> Iterator[tuple[str, Case]]:
    for outcome in outcomes.values():
        yield from (("false accept", c) for c in outcome.false_accept)


if __name__ == "__main__":
    for name, outcome in run_all().items():
        print(name, outcome.counts())
        for case in outcome.false_accept:
            print("   FALSE ACCEPT", case.group, "|", case.test)
