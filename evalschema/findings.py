"""``evalschema.findings`` is ``evalschema.core.findings`` (the same module object): the reader modules (``loader``,
``stream``, ``positions``) import it by this path until they move into ``evalschema.io``."""

import sys

from .core import findings as _module
from .core.findings import *  # noqa: F403

sys.modules[__name__] = _module
