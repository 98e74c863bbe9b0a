"""The one problem type of every reader: why an input cannot be read, as a ledger code, a message and a place.

The strict JSON reader, the YAML reader and the streamed reader all raise (or, for the stream, yield) a
:class:`ReadProblem`; it becomes a :class:`~evalschema.core.findings.Finding` only where a document's reading
ends (``Loaded.problem``, the pipeline). Callers decide on ``code`` and ``variant``, never on the message text.
"""

from __future__ import annotations

from typing import Any

from ..core.findings import Finding
from ..core.messages import render


class ReadProblem(ValueError):
    """An input that cannot be read.

    ``code``: the ledger code; ``variant``: the message variant (spec/ledger.json) and ``params`` its values, which
    render ``message`` unless a message is given; ``index``: the character index in the text read, where known;
    ``where``: the 1-based line and column, where known."""

    def __init__(
        self,
        code: str,
        variant: str = "default",
        *,
        index: int | None = None,
        where: tuple[int, int] | None = None,
        message: str | None = None,
        **params: Any,
    ) -> None:
        self.code, self.variant, self.index, self.where, self.params = code, variant, index, where, params
        self.message = render(code, variant, **params) if message is None else message
        super().__init__(self.message)

    @property
    def at_end(self) -> bool:
        """Whether the text ended where more was expected (a piece cut short, not a wrong character)."""
        return self.variant == "end"

    def finding(self) -> Finding:
        """The error finding this problem is, at its place (no place: the whole document)."""
        line, column = self.where if self.where is not None else (None, None)
        return Finding("", self.code, "error", self.message, line, column)
