"""Schema engines (jsonschema-rs, python-jsonschema) and the mapping of their failures to ledger codes; deprecations."""
