"""``evalschema compare``: is run NEW better than run BASE, or is it noise? (SPEC.md §12)

``compare(base, new, options)`` takes two result set documents, ``compare_files`` two files (validated as they
are read, in pieces);
both return a comparison document (``schemas/comparison.json``). ``suite_digest(suite)`` computes the digest a
result set's ``suite_digest`` records.
"""

from __future__ import annotations

from .core import Comparer, Options, suite_digest
from .document import compare
from .files import Invalid, Unreadable, attempt_statistics, compare_checked, compare_files

__all__ = [
    "Comparer",
    "Invalid",
    "Options",
    "Unreadable",
    "attempt_statistics",
    "compare",
    "compare_checked",
    "compare_files",
    "suite_digest",
]
