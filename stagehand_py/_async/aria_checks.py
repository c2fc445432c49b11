"""Check through Playwright that a stored locator still means the element the tree showed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ..dom import Element
from .locate import frame_scope

# A check is two counts on the page as it is: nothing to wait for.
_CHECK_TIMEOUT_MS = 5000


@dataclass(frozen=True)
class RungCheck:
    """How one stored selector resolves now: ``count`` matches, ``is_ref`` when the single
    match is the element with the snapshot's ``aria-ref``."""

    selector: str
    count: int
    is_ref: bool

    @property
    def ok(self) -> bool:
        return self.count == 1 and self.is_ref


async def check_selector(
    page: AsyncPage, frame: Sequence[str], selector: str, ref: str
) -> RungCheck:
    """Resolve ``selector`` inside ``frame`` (a frame-locator path) and compare with ``ref``."""
    scope = await frame_scope(page, frame)
    locator = scope.locator(selector)
    try:
        count = await locator.count()
        same = count == 1 and await locator.and_(scope.locator(f"aria-ref={ref}")).count() == 1
    except PlaywrightError:  # a malformed selector, or a frame that is gone
        return RungCheck(selector, 0, False)
    return RungCheck(selector, count, same)


async def resolves_to_ref(page: AsyncPage, frame: Sequence[str], selector: str, ref: str) -> bool:
    """True when ``selector`` matches exactly one element and it is the node ``ref``."""
    return (await check_selector(page, frame, selector, ref)).ok


async def check_element(page: AsyncPage, element: Element) -> list[RungCheck]:
    """Every stored selector of an accessibility-tree element, resolved now (the snapshot it
    came from must still be the page's latest, or ``aria-ref`` no longer resolves)."""
    return [await check_selector(page, element.frame, s, element.ref) for s in element.selectors]
