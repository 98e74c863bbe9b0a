"""The list of targets: the one place to register a new output (e.g. constants from a data table).

A target is a name (its subfolder of the output dir, unless ``folder`` names another; ``""`` is the output dir
itself) and a ``render(ir, schemas) -> {relative path: bytes}``; a target that takes options gets its table of
``[tool.codegen.options.<name>]`` as a third argument.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..ir import IR
from ..load import SchemaSet


@dataclass(frozen=True)
class Target:
    name: str
    render: Callable[..., dict[str, bytes]]
    takes_options: bool = False
    folder: str | None = None  # default: the name

    def run(self, ir: IR, schemas: SchemaSet, options: dict[str, Any]) -> dict[str, bytes]:
        return self.render(ir, schemas, options) if self.takes_options else self.render(ir, schemas)


def targets() -> tuple[Target, ...]:
    from . import arrow, bundle, docs, go, model, msgspec, python, typescript

    return (
        Target("python", python.render),
        Target("typescript", typescript.render),
        Target("docs", docs.render),
        Target("schemas", bundle.render, takes_options=True),
        Target("go", go.render, takes_options=True),
        Target("arrow", arrow.render, takes_options=True),
        Target("msgspec", msgspec.render),
        Target("ir", model.render, folder=""),  # ir.json at the top of the output dir
    )
