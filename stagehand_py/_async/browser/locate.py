"""Turn an element's stored frame path and selectors back into one Playwright locator."""

from __future__ import annotations

from collections.abc import Sequence

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import FrameLocator as AsyncFrameLocator
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._errors import ElementNotFoundError
from ..._snapshot import Element
from .closed_shadow import scoped_locator


async def frame_scope(page: AsyncPage, frame: Sequence[str]) -> AsyncPage | AsyncFrameLocator:
    """The page itself for ``[]``, else the chained frame locator of each ``<iframe>`` selector."""
    scope: AsyncPage | AsyncFrameLocator = page
    for selector in frame:
        scope = scope.frame_locator(selector)
    return scope


async def locate_selectors(
    page: AsyncPage, frame: Sequence[str], selectors: Sequence[str]
) -> tuple[AsyncLocator, str]:
    """The first selector that matches exactly one element wins: ``(locator, selector)``.

    Raises :class:`ElementNotFoundError` naming every selector tried and how many elements
    each one matched, so the caller (or the model) can tell a vanished element from an
    ambiguous one.
    """
    scope = await frame_scope(page, frame)
    tried: list[str] = []
    for selector in selectors:
        try:
            locator = scoped_locator(page, scope, selector)
            count = await locator.count()
        except PlaywrightError as exc:
            # A malformed selector or a frame that is gone: try the next one.
            tried.append(f"{selector} (error: {(exc.message or str(exc)).splitlines()[0]})")
            continue
        if count == 1:
            return locator, selector
        tried.append(f"{selector} ({count} matches)")
    where = f" inside frame {' > '.join(frame)}" if frame else ""
    detail = "; ".join(tried) if tried else "no selectors were stored"
    raise ElementNotFoundError(
        f"No stored selector matched exactly one element{where} on {page.url}: {detail}. "
        "The page has probably changed; take a fresh snapshot and pick the element again.",
        list(selectors),
    )


async def locate(page: AsyncPage, element: Element) -> tuple[AsyncLocator, str]:
    """Locate a snapshot element through its frame path and selectors (most exact first)."""
    return await locate_selectors(page, element.frame, element.selectors)
