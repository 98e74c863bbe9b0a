"""Generic code and docs generator for a folder of JSON Schema draft 2020-12 files.

Pipeline: :mod:`codegen.load` (offline registry, checks) → :mod:`codegen.ir` (one IR) →
:mod:`codegen.targets` (python, typescript, docs) → :mod:`codegen.write` (atomic write / drift check).
"""
