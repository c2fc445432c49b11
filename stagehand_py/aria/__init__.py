"""The accessibility-tree view: Playwright's aria snapshot read into the same Snapshot model
the DOM serializer produces, with a ranked locator ladder per element (pure Python).

The browser-facing half is ``stagehand_py._async.aria.snapshot`` (and its sync twin).
"""

from ._ladder import LADDER_ORDER, Rung, RungKind, public_form
from ._parser import AriaNode, BoxPx, parse_aria_snapshot

__all__ = [
    "LADDER_ORDER",
    "AriaNode",
    "BoxPx",
    "Rung",
    "RungKind",
    "parse_aria_snapshot",
    "public_form",
]
