"""Reach the Playwright frame behind a frame path (the iframe selectors a snapshot stores).

``locate.py`` turns a path into chained frame *locators* for actions; reading a frame's
content (the serializer, extract's page text) needs the :class:`Frame` itself, which
Playwright gives for cross-origin (out-of-process) frames too.
"""

from __future__ import annotations

from collections.abc import Sequence

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame

# How many cross-origin frames one look at the page serializes (ad-heavy pages embed dozens
# of frames; each costs an evaluate).
MAX_FRAMES = 20


async def frame_at(frame: AsyncFrame, path: Sequence[str]) -> AsyncFrame | None:
    """The frame reached from ``frame`` through the ``<iframe>`` selectors of ``path``, or
    None when one of them no longer matches an iframe with a document (the page changed)."""
    for selector in path:
        try:
            handle = await frame.query_selector(selector)
            if handle is None:
                return None
            try:
                child = await handle.content_frame()
            finally:
                await handle.dispose()
        except PlaywrightError:
            return None  # detached while we looked: the caller sees no frame
        if child is None:
            return None
        frame = child
    return frame
