"""The bundled schemas (``registry``), published releases, and kind and version detection."""
