"""``python -m maple_entrypoints`` runs the ``maple`` command."""

from maple_entrypoints.cli import main

main()
