"""The evalschema command: ``python -m evalschema`` and the ``evalschema`` script."""

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
