"""The list of targets: the one place to register a new output (e.g. constants from a data table).

A target is a name (its subfolder of the output dir) and a ``render(ir, schemas) -> {relative path: bytes}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..ir import IR
from ..load import SchemaSet


@dataclass(frozen=True)
class Target:
    name: str
    render: Callable[[IR, SchemaSet], dict[str, bytes]]


def targets() -> tuple[Target, ...]:
    from . import docs, python, typescript

    return (
        Target("python", python.render),
        Target("typescript", typescript.render),
        Target("docs", docs.render),
    )
