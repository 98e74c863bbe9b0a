"""Reading bytes: sources, strict JSON, YAML, positions, streams, atomic writes (the reader modules move here)."""
