"""``python -m stagehand_py``: the command line (see ``python -m stagehand_py --help``)."""

from __future__ import annotations

import sys

from .cli import main as run


def main() -> int:
    """Entry point of the ``pystagehand`` console script."""
    return run(sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
