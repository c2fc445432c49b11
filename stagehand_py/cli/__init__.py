"""The ``pystagehand`` command line (also ``python -m stagehand_py``): ``main(argv)`` runs it."""

from ._app import main

__all__ = ["main"]
