"""python -m evalschema: the evalschema command."""

from .cli import run

run()
