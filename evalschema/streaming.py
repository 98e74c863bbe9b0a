"""Deprecated: ``evalschema.streaming`` is ``evalschema.pipeline`` now (one pipeline for a document in hand and a
document read in pieces). This alias warns and will go in a later release."""

import sys
import warnings

from . import pipeline as _module
from .pipeline import *  # noqa: F403

warnings.warn("evalschema.streaming is evalschema.pipeline", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _module
