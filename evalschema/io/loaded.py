"""One document read from a source (:class:`Loaded`): its own module so that every reader (JSON in
:mod:`evalschema.io.loader`, YAML in :mod:`evalschema.io.yaml_reader`) builds it without importing another reader —
no import cycle between them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.findings import Finding

if TYPE_CHECKING:
    from .positions import Positions


class Loaded:
    """One document read from a source, or the finding that says why there is none. ``line``: of a JSON Lines
    entry; ``problem_variant``: the ledger message variant of ``problem`` (e.g. "trailing"), to decide on. (A plain
    class, not a dataclass: start-up, ``evalschema.__main__``.)"""

    __slots__ = ("_locate", "document", "line", "path", "problem", "problem_variant")

    def __init__(
        self,
        path: str,
        document: Any = None,
        problem: Finding | None = None,
        line: int | None = None,
        problem_variant: str | None = None,
        _locate: Callable[[], Positions] | None = None,
    ) -> None:
        self.path, self.document, self.problem, self.line = path, document, problem, line
        self.problem_variant, self._locate = problem_variant, _locate

    def __repr__(self) -> str:
        return f"Loaded(path={self.path!r}, line={self.line!r}, problem={self.problem!r}, document={self.document!r})"

    def positions(self) -> Positions:
        return self._locate() if self._locate is not None else {}
