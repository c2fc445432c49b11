"""The element a model chose, found again and checked to be the one it saw.

Before an action its element is looked up by the snapshot's selectors and confirmed by
fingerprint (the cache's machinery): a selector that now lands on another element is passed
over, and when no selector finds the element the model saw, it is not acted on
(:class:`ElementReplaced`: the caller looks again). In the accessibility-tree view, while
the page has not changed since the snapshot, the snapshot's ``aria-ref`` finds the element
instead (records still keep the ladder).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._errors import ElementNotFoundError
from ..._snapshot import Element
from ...cache._fingerprint import fingerprint_from_element
from ..aria.checks import same_node
from ..browser.locate import frame_scope
from ..browser.settle import PageVersion, page_version
from ..cache.fingerprint import locate_fingerprinted

logger = logging.getLogger("stagehand_py")


class ActionNotRun(Exception):
    """An action that could not run; ``message`` says why, for the model to read."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ElementReplaced(ActionNotRun):
    """The element the model chose is no longer on the page as it saw it."""


async def by_ref(
    page: AsyncPage, element: Element, version: PageVersion | None
) -> tuple[AsyncLocator, str] | None:
    """An accessibility-tree element through its ``aria-ref`` while the snapshot is current
    (the page's version unchanged since it was taken): ``(locator, top ladder rung)``, the
    rung being what records and the cache keep. None when the ref cannot be trusted."""
    if element.view != "aria" or not element.ref or not element.selectors or version is None:
        return None
    if await page_version(page) != version:
        return None
    scope = await frame_scope(page, element.frame)
    locator = scope.locator(f"aria-ref={element.ref}")
    try:
        if await locator.count() != 1:
            return None
    except PlaywrightError:  # a ref from an older snapshot, or a frame that is gone
        return None
    logger.debug("stagehand_py: element %d located through aria-ref", element.index)
    return locator, element.selectors[0]


async def locate_checked(
    page: AsyncPage,
    element: Element,
    version: PageVersion | None = None,
    *,
    timeout_ms: Callable[[], float],
    check_time: Callable[[], None],
) -> tuple[AsyncLocator, str]:
    """The element through its ``aria-ref`` while the snapshot taken at ``version`` is current
    (see :func:`by_ref`), else through its selectors, confirmed to be the one the model saw.
    ``timeout_ms()`` is the Playwright timeout to use now; ``check_time`` runs before
    :class:`ElementReplaced` is raised (out of time is not "replaced")."""
    located = await by_ref(page, element, version)
    if located is not None:
        return located
    # A bare text node has no element of its own to compare with: its selectors are enough.
    # An accessibility-tree element's attributes are the tree's (not the DOM's): it is
    # compared by its role and accessible name instead (same_node, below).
    fingerprint = (
        None
        if element.tag == "#text" or element.view == "aria"
        else fingerprint_from_element(element)
    )
    if fingerprint is not None and not fingerprint.identifiable:
        # Nothing to compare (a text-less, attribute-less icon): the stored selectors, tried
        # in order, are all that can find it; "cannot tell" must not read as "replaced".
        fingerprint = None
    replaced = ElementReplaced(
        f"element {element.index} is no longer on the page as you saw it (the page replaced "
        "or removed it)"
    )
    try:
        located = await locate_fingerprinted(
            page, element.frame, element.selectors, fingerprint, timeout_ms=timeout_ms()
        )
    except ElementNotFoundError:
        check_time()
        raise replaced from None
    # The page changed since the tree was read (else by_ref had found it): a lower rung may
    # find a re-rendered element; it must still be the node the model saw.
    if element.view == "aria" and not await same_node(located[0], element, timeout_ms=timeout_ms()):
        check_time()
        raise replaced
    return located
