"""The shared Jinja2 environment: strict, whitespace-controlled, deterministic."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import jinja2

TEMPLATES = Path(__file__).parent / "templates"


_ENVIRONMENTS: dict[str, jinja2.Environment] = {}


def environment(target: str, filters: dict[str, Callable[..., Any]] | None = None) -> jinja2.Environment:
    """The environment of ``target``'s templates, one per process: Jinja2 compiles each template once, not on every
    generation (compiling is most of codegen's own time on a small schema folder)."""
    env = _ENVIRONMENTS.get(target)
    if env is None:
        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(str(TEMPLATES / target)),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
        )
        _ENVIRONMENTS[target] = env
    env.filters.update(filters or {})
    env.globals.update(filters or {})
    return env
