"""Check through Playwright that a stored locator still means the element the tree showed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._errors import SerializationError
from ..._snapshot import Element
from ...aria._parser import parse_aria_snapshot
from ...dom._js import load_js
from ...dom._shadow import is_closed_shadow
from ..browser.locate import frame_scope

# Roles whose node Playwright's per-element snapshot may leave out (a generic container shows
# only its children) or that carry no identity of their own: nothing to compare.
_UNCOMPARABLE_ROLES = frozenset({"", "generic", "text", "none", "presentation", "canvas"})

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


async def same_node(
    locator: AsyncLocator, element: Element, *, timeout_ms: float, same_ref: bool = True
) -> bool:
    """True when ``locator`` (found through a lower rung after the page changed) is still the
    very node the tree showed, read through Playwright's own snapshot of that element.

    Playwright keeps a node's ``ref`` across snapshots for as long as its role and accessible
    name stay what they were; a node that only took the name over (a label moved to another
    button, a re-rendered copy) gets a ref of its own. So the same ref proves the same node
    with the same role and name: a "Go" label moved onto the "Delete account" button, or a
    "Pay 24.00" button that now says "Pay 26.50", is not it, and the model must see the page
    as it is before anything is done there. An element the tree gave no ref is compared by
    role and accessible name, and so is one with ``same_ref=False``: the caller knows the node
    the tree showed is gone (the page re-rendered it), so its copy is the one meant; one inside
    a closed shadow root, where Playwright's tree does not reach, by the role and name the aria
    view gave it, computed again the same way."""
    if element.selectors and is_closed_shadow(element.selectors[0]):
        return await _same_closed_node(locator, element)
    try:
        nodes = parse_aria_snapshot(await locator.aria_snapshot(mode="ai", timeout=timeout_ms))
    except (PlaywrightError, SerializationError):
        return False
    if not nodes:
        # Playwright's per-element snapshot may leave such a node out: nothing to compare.
        return element.role in _UNCOMPARABLE_ROLES
    node = nodes[0]
    if element.ref and same_ref:
        return node.ref == element.ref and _same_role_and_name(node.role, node.name, element)
    if element.role in _UNCOMPARABLE_ROLES:
        return True
    return _same_role_and_name(node.role, node.name, element)


def _same_role_and_name(role: str, name: str, element: Element) -> bool:
    return role == element.role and " ".join(name.split()) == " ".join(element.name.split())


async def still_attached(page: AsyncPage, element: Element) -> bool:
    """True when the node the tree showed is still in the page (whatever it reads now), as far
    as the latest snapshot's ``aria-ref`` map can tell; False when it is gone (or the map no
    longer knows it). Ask before any other snapshot of the frame replaces that map."""
    if not element.ref:
        return False
    scope = await frame_scope(page, element.frame)
    try:
        return await scope.locator(f"aria-ref={element.ref}").count() == 1
    except PlaywrightError:  # a frame that is gone
        return False


async def _same_closed_node(locator: AsyncLocator, element: Element) -> bool:
    """:func:`same_node` inside a closed shadow root (see there)."""
    try:
        seen = await locator.evaluate(load_js("closed_node"))
    except PlaywrightError:
        return False
    if not isinstance(seen, dict):
        return False
    return _same_role_and_name(str(seen.get("role")), str(seen.get("name")), element)
