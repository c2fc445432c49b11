"""The element a model chose, found again and checked to be the one it saw.

Every loop that acts on an element the model chose from a look (act, the agent, workflow
items) finds it here. Its element is looked up by the snapshot's selectors and confirmed by
fingerprint (the cache's machinery): a selector that now lands on another element is passed
over, and when no selector finds the element the model saw, it is not acted on
(:class:`ElementReplaced`: the caller looks again). In the accessibility-tree view, while
the page has not changed since the snapshot, the snapshot's ``aria-ref`` finds the element
instead (records still keep the ladder); once it changed, a rung's element must be the very
node the tree showed (:func:`~..aria.checks.same_node`), not just one with the same role and
name, and a node that is still there but changed is :class:`ElementChanged` (the model must
see it as it is now: it is never looked for again by what it used to say).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._errors import ElementNotFoundError
from ..._signal import Signal
from ..._snapshot import Element
from ...cache._fingerprint import fingerprint_from_element
from ..aria.checks import same_node, still_attached
from ..browser.locate import frame_scope
from ..browser.settle import PageVersion, page_version
from ..cache.fingerprint import locate_fingerprinted

logger = logging.getLogger("stagehand_py")


class ActionNotRun(Signal):
    """An action that could not run; ``message`` says why, for the model to read."""


class ElementReplaced(ActionNotRun):
    """The element the model chose is no longer on the page as it saw it."""


class ElementChanged(ActionNotRun):
    """The node the model chose is still on the page but no longer what it saw (its label or
    role moved): another element now says what it said, so it is not looked for again by
    what it said; the model must see the page as it is."""


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
    if element.view == "aria":
        return await _same_node_by_rung(page, element, timeout_ms=timeout_ms, check_time=check_time)
    # A bare text node has no element of its own to compare with: its selectors are enough.
    fingerprint = None if element.tag == "#text" else fingerprint_from_element(element)
    if fingerprint is not None and not fingerprint.identifiable:
        # Nothing to compare (a text-less, attribute-less icon): the stored selectors, tried
        # in order, are all that can find it; "cannot tell" must not read as "replaced".
        fingerprint = None
    try:
        return await locate_fingerprinted(
            page, element.frame, element.selectors, fingerprint, timeout_ms=timeout_ms()
        )
    except ElementNotFoundError:
        check_time()
        raise _replaced(element) from None


async def _same_node_by_rung(
    page: AsyncPage,
    element: Element,
    *,
    timeout_ms: Callable[[], float],
    check_time: Callable[[], None],
) -> tuple[AsyncLocator, str]:
    """The page changed since the tree was read (else :func:`by_ref` had found the element):
    the first rung that finds exactly one element which is the very node the tree showed.
    An accessibility-tree element's attributes are the tree's, not the DOM's: no fingerprint."""
    # Asked first: the per-element snapshots below replace the map aria-ref reads.
    attached = await still_attached(page, element)
    for selector in element.selectors:
        try:
            located = await locate_fingerprinted(
                page, element.frame, [selector], None, timeout_ms=timeout_ms()
            )
        except ElementNotFoundError:
            continue
        # The node itself while it is there; once the page replaced it (a list re-rendered),
        # its copy: the same role and name, found by a rung that matches one element only.
        if await same_node(located[0], element, timeout_ms=timeout_ms(), same_ref=attached):
            return located
    check_time()
    if attached:
        raise ElementChanged(
            f"element {element.index} changed since you saw it: it no longer reads as it did "
            "(the page moved its label or role); look at the page as it is now before acting "
            "on it"
        )
    raise _replaced(element)


def _replaced(element: Element) -> ElementReplaced:
    return ElementReplaced(
        f"element {element.index} is no longer on the page as you saw it (the page replaced "
        "or removed it)"
    )
