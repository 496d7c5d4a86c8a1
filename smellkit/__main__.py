"""`python -m smellkit`: the command line."""

from smellkit.cli import main

main()
