"""The page serializer: browser-side scripts shipped as package data, and their typed result.

``load_js(name)`` reads one of the ``.js`` files next to this module (cached); the models in
:mod:`._snapshot` describe what ``serializer.js`` returns and render it as the model sees it.
"""

from __future__ import annotations

import functools
from importlib import resources

from ._snapshot import Box, Chunk, Element, Snapshot, order_chunks, parse_snapshot


@functools.cache
def load_js(name: str) -> str:
    """The source of ``stagehand_py/dom/<name>`` (e.g. ``"serializer.js"``), read once."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


__all__ = ["Box", "Chunk", "Element", "Snapshot", "load_js", "order_chunks", "parse_snapshot"]
