"""Deprecated: ``evalschema.distributed`` moved to ``evalschema.cli.distributed`` (it runs the CLI's validate and
summarize commands on a Dask cluster). This alias warns and will go in a later release."""

import sys
import warnings

from .cli import distributed as _module
from .cli.distributed import *  # noqa: F403

warnings.warn("evalschema.distributed moved to evalschema.cli.distributed", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _module
