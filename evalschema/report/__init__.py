"""Renderers of reports: ``html`` (the self-contained HTML report of ``evalschema summarize --html``)."""
