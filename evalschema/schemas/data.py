"""Where the package's data files are: beside its modules, read as plain files.

``importlib.resources`` costs a few milliseconds to import and to ask, and every command pays them before its
first schema: it is used only when the package is not files on disk (imported from a zip file).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

_PACKAGE = Path(__file__).resolve().parents[1]  # the ``evalschema`` package directory


def package_data(*parts: str) -> Traversable:
    """``evalschema/<parts…>`` (which need not exist: callers ask ``is_dir()`` / ``is_file()``)."""
    if (_PACKAGE / "__init__.py").is_file():
        return _PACKAGE.joinpath(*parts)
    from importlib import resources  # a zip import: only importlib.resources can read inside it

    return resources.files("evalschema").joinpath(*parts)
