"""``python -m santorini_server.cli`` runs the ``santorini`` command."""

from . import main

main()
