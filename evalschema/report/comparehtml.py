"""``evalschema compare --html``: the comparison document drawn by the shared report template (``report.page``),
with the same verdict and power lines the text gives. ``js/src/report/compareHtml.ts`` ``renderCompareHtml`` writes
the same page from the same document."""

from __future__ import annotations

from typing import Any

from ..compare.render import power_line, verdict_line
from . import page


def compare_data(document: dict[str, Any], *, generated_at: str | None = None) -> dict[str, Any]:
    from ..schemas.registry import spec_version

    return {
        "page": "compare",
        "version": spec_version(),
        "generated_at": generated_at or page.generated_at(),
        "verdict": verdict_line(document),
        "power": power_line(document),
        "comparison": document,
    }


def render_compare_html(document: dict[str, Any], *, generated_at: str | None = None) -> str:
    """One self-contained page (loads nothing; every value drawn as text): the verdict, the overall and per-grader
    differences as signed bars on a zero axis with their intervals, provenance, pairs, and the flipped cases with
    a filter and sortable columns."""
    return page.render_page(compare_data(document, generated_at=generated_at))
