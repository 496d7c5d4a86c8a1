"""The command line: parse arguments, call the library, map errors to exit codes.

`group` holds the `smellkit` group and what every command shares; one module per job holds its
commands: `measure` (scan, smells, graph), `build` (candidates, inject, build), `score`
(evaluate, run, judge, crosscheck). Importing them registers the commands."""

from smellkit.cli import build, measure, score
from smellkit.cli.group import INTERNAL_ERROR, main

__all__ = ["INTERNAL_ERROR", "build", "main", "measure", "score"]
