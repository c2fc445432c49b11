"""extract()'s pure side: page text from HTML, chunks, schema handling and merging.

``load_js(name)`` reads a browser-side script shipped next to this module (``page_html.js``).
"""

from __future__ import annotations

import functools
from importlib import resources

from ._chunks import TextChunk, split_chunks
from ._merge import merge
from ._target import ExtractTarget, TextAnswer
from ._text import Block, PageText, page_text


@functools.cache
def load_js(name: str) -> str:
    """The source of ``stagehand_py/extract/<name>``, read once."""
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


__all__ = [
    "Block",
    "ExtractTarget",
    "PageText",
    "TextAnswer",
    "TextChunk",
    "load_js",
    "merge",
    "page_text",
    "split_chunks",
]
