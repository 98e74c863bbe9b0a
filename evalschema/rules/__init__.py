"""The rules JSON Schema cannot express (the ledger marks them ``code``): one unit per rule or generic family,
bound to its ledger id (``registry``); the per-document checks (``document``) and the cross-document ones
(``crossdoc``)."""

from .document import ResultRows as ResultRows
from .document import indexed_objects as indexed_objects
from .document import resultset_document_rules as resultset_document_rules
from .document import suite_rules as suite_rules
