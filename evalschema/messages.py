"""``evalschema.messages`` is ``evalschema.core.messages`` (the same module object): the reader modules (``loader``,
``stream``, ``positions``) import it by this path until they move into ``evalschema.io``."""

import sys

from .core import messages as _module
from .core.messages import *  # noqa: F403

sys.modules[__name__] = _module
