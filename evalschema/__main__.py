"""The evalschema command: ``python -m evalschema`` and the ``evalschema`` script.

Start-up. Checking one small document is mostly starting up (issue 22's target: 100 ms), so the command's run
holds only what such a document needs; ``tests/test_startup.py`` keeps it so:

- Imports: a command's own modules only (``summarize``, ``compare``, … are imported for their command), and of
  those only what a valid document needs. Where values are (``io.positions``), the strict reader, a suite's test
  cases file, ``regress``, ``threading``, ``decimal`` are imported where first used; the stream reader for a file
  read in pieces; jsonschema-rs without ``email.utils`` (``engine.quick_import``).
- Records: Python 3.11 creates a dataclass in ~1 ms (its methods are compiled from source text), a named tuple in
  ~0.15 ms, a plain class in ~0.01 ms. The records such a run imports are named tuples (immutable) or plain classes
  (mutable); the public types (``Finding``, ``Report``, ``Summary``, ``AttemptRollup``) stay dataclasses.
- Regular expressions a valid document does not use are compiled on first use (the ``re`` module keeps them).
- argparse's help formatter sizes itself to the terminal only when it formats (sizing imports ``shutil``).
- The fast engine's registry holds only the schema files the kind reaches (``schema_path.reach``).
"""

import gc


def run() -> None:
    # The command runs with the cyclic collector off (``cli.run`` says why). It is off from here, before the imports
    # too: they allocate many objects and leave no garbage, so the ~35 collections they used to trigger found nothing
    # (~4 ms of a small document's run). ``import evalschema`` itself imports nothing heavy (``__getattr__``).
    gc.disable()
    from .engine.quick_import import import_jsonschema_rs

    import_jsonschema_rs()  # first, while this is the only thread: it lends the import a module (see there)
    from .cli import run as command

    command()


if __name__ == "__main__":
    run()
