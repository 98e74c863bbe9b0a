"""``evalschema.limits`` is ``evalschema.core.limits`` (the same module object): the reader modules (``loader``,
``stream``, ``positions``) import it by this path until they move into ``evalschema.io``."""

import sys

from .core import limits as _module
from .core.limits import *  # noqa: F403

sys.modules[__name__] = _module
