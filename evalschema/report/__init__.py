"""Renderers of reports: ``text``, ``json_report`` and ``github`` (``evalschema validate --format``); the HTML pages
of ``summarize --html`` (``html``) and ``compare --html`` (``comparehtml``), both the one shared template filled
with the report's data (``page``)."""
