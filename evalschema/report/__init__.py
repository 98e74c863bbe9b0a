"""Renderers of reports: ``text``, ``json_report`` and ``github`` (``evalschema validate --format``), ``html`` (the
self-contained HTML report of ``evalschema summarize --html``)."""
