"""Optional dependencies: the paths that need more than validation does, and the message when one is missing.

Each extra is declared in ``pyproject.toml`` (``[project.optional-dependencies]``); a feature that needs one
calls :func:`require` before its first import, so a missing extra is a clear error, not a traceback.
"""

from __future__ import annotations


class MissingExtra(ImportError):
    """A feature was used whose optional dependencies are not installed."""


def require(module: str, extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` naming the extra to install unless ``module`` can be imported."""
    import importlib.util  # here: only a feature that needs an extra asks (start-up: ``evalschema.__main__``)

    top = module.split(".", 1)[0]
    if importlib.util.find_spec(top) is None or (top != module and importlib.util.find_spec(module) is None):
        raise MissingExtra(f"{feature} needs the '{extra}' extra: pip install 'evalschema[{extra}]'", name=module)
