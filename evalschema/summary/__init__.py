"""The summary layer: the reference summary of a result set's rows — its states, how they merge, and the
stage that compares a claimed summary with it."""

from .states import Summary as Summary
from .states import SummaryBuilder as SummaryBuilder
from .states import attempt_number as attempt_number
from .states import classify as classify
from .states import merge as merge
from .states import summarize as summarize
