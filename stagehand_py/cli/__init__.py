"""The ``pystagehand`` command line (also ``python -m stagehand_py``)."""

from ._app import build_parser, main

__all__ = ["build_parser", "main"]
