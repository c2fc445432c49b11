"""Run one allow-listed Playwright method on an element found through its stored selectors."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._act_decision import scroll_percent
from ..._errors import ConfigurationError, PageError
from ..._secret import reveal
from ...dom._js import load_js
from ...prompts.act import ALLOWED_METHODS, LOCATOR_CALLS, SCROLL_DIRECTIONS
from .locate import locate_selectors
from .settle import DEFAULT_QUIET_MS, PageVersion, arm, settle

logger = logging.getLogger("stagehand_py")

_TOGGLES = {"click", "check", "uncheck"}
# Keys that scroll what has the focus: what the scroll sets off comes with the next frames.
_SCROLL_KEYS = frozenset(
    {"PageDown", "PageUp", "End", "Home", "Space", " ", "ArrowDown", "ArrowUp"}
)
# How long a styled (visually hidden) radio/checkbox may take to prove itself clickable before
# we click its label instead.
_TRIAL_TIMEOUT_MS = 600
# Elements whose `target` attribute can send a click to a new tab.
_TARGET_TAGS = frozenset({"a", "area"})


@dataclass(frozen=True)
class ScrollOutcome:
    """Where a scroll stopped: ``before``/``after``/``max`` in CSS pixels of its scroller."""

    page: bool  # True when the page's main scroller moved (not an element's)
    before: float
    after: float
    max: float
    height: float

    @property
    def moved(self) -> bool:
        return abs(self.after - self.before) >= 1


async def scroll(
    target: AsyncLocator, direction: str, *, pages: float = 1.0, timeout_ms: float = 5000
) -> ScrollOutcome:
    """Scroll ``target`` (or its nearest scrollable ancestor; the page for ``:root``) one of
    ``SCROLL_DIRECTIONS``: ``up``/``down`` by ``pages`` x 0.8 of its visible height (Stagehand's
    prevChunk/nextChunk), to its ``top``/``bottom``, or to a position given as a percentage of
    its scroll range, ``"50%"`` (Stagehand's scrollTo). For the page pass
    ``page.locator(":root")``."""
    percent = scroll_percent(direction)
    if direction not in SCROLL_DIRECTIONS and percent is None:
        raise PageError(
            f"Cannot scroll {direction!r}: use one of {', '.join(SCROLL_DIRECTIONS)} or a "
            "percentage from 0% to 100%."
        )
    raw: dict[str, Any] = await target.evaluate(
        load_js("scroll.js"),
        {"direction": direction, "pages": pages, "percent": percent},
        timeout=timeout_ms,
    )
    return ScrollOutcome(
        page=bool(raw["page"]),
        before=float(raw["before"]),
        after=float(raw["after"]),
        max=float(raw["max"]),
        height=float(raw["height"]),
    )


@dataclass
class Performed:
    """What running one action produced. ``before``/``after``: the page's version right before
    the action and once settled (None when not settled or unreadable); a different ``doc``
    means the action navigated."""

    selector: str
    page: AsyncPage
    opened: list[AsyncPage] = field(default_factory=list)
    via_label: bool = False
    before: PageVersion | None = None
    after: PageVersion | None = None
    # act() in aria mode: the element was found through the snapshot's ``aria-ref`` (the
    # snapshot was still current); ``selector`` is still the durable ladder rung.
    via_ref: bool = False

    @property
    def navigated(self) -> bool:
        """True when the action left the document it started on (a new page or tab)."""
        if self.opened and self.page in self.opened:
            return True
        return self.before is None or self.after is None or self.before.doc != self.after.doc


def _xpath_literal(value: str) -> str:
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    parts = value.split('"')
    return "concat(" + ", '\"', ".join(f'"{p}"' for p in parts) + ")"


async def _visible_label(locator: AsyncLocator) -> AsyncLocator | None:
    """The visible <label> of a visually hidden radio/checkbox, if it has one."""
    candidates = []
    input_id = await locator.get_attribute("id")
    if input_id:
        # Relative XPath from the input up to its document root, then down to label[@for].
        candidates.append(
            locator.locator(
                f"xpath=ancestor-or-self::*[last()]//label[@for={_xpath_literal(input_id)}]"
            )
        )
    candidates.append(locator.locator("xpath=ancestor::label[1]"))
    for candidate in candidates:
        if await candidate.count() == 1 and await candidate.is_visible():
            return candidate
    return None


async def _blocked(locator: AsyncLocator, timeout_ms: float) -> bool:
    """True when a click on ``locator`` could not go through (hidden, covered by its label)."""
    if not await locator.is_visible():
        return True
    try:
        await locator.click(trial=True, timeout=min(timeout_ms, _TRIAL_TIMEOUT_MS))
    except PlaywrightError:
        return True
    return False


async def _set_files(
    page: AsyncPage, locator: AsyncLocator, paths: Sequence[str], timeout_ms: float
) -> None:
    """Set files on a file input (or the label of one); for a styled button that opens the
    file chooser itself, click it and answer the chooser.

    Playwright reads the files here, in this process: one it cannot read (a path given in
    ``variables`` that names no file) is the caller's to fix, so it raises
    :class:`ConfigurationError` at once, naming the problem but never the path (a variable's
    value is kept out of every message)."""
    # A path given as a variable arrives masked for printing (SecretText): Playwright builds a
    # pathlib.Path from it, which takes str() of a string (before 1.65 it read the mask).
    paths = [reveal(path) for path in paths]
    try:
        await _give_files(page, locator, paths, timeout_ms)
        return
    except OSError as exc:  # its message names the path: only the reason is kept
        reason = exc.strerror or type(exc).__name__
    # Raised outside the handler, so the OSError is not chained to it either.
    raise ConfigurationError(
        f"set_input_files could not read a file it was given ({reason}). Check that each file "
        "path passed in variables names a readable file."
    )


async def _give_files(
    page: AsyncPage, locator: AsyncLocator, paths: list[str], timeout_ms: float
) -> None:
    try:
        await locator.set_input_files(paths, timeout=timeout_ms)
        return
    except PlaywrightError as exc:
        message = exc.message or str(exc)
        if "not" not in message.lower() or "input" not in message.lower():
            raise  # the element is a file input, and setting the files failed
    async with page.expect_file_chooser(timeout=timeout_ms) as chooser_info:
        await locator.click(timeout=timeout_ms)
    chooser = await chooser_info.value
    await chooser.set_files(paths, timeout=timeout_ms)


async def _run(
    locator: AsyncLocator,
    method: str,
    args: Sequence[str],
    timeout_ms: float,
    *,
    page: AsyncPage,
    drag_target: AsyncLocator | None = None,
    tag: str | None = None,
) -> bool:
    """Call ``method``; return True when it went through the element's label instead.
    ``tag``, when known, spares reading the type of an element that is no ``<input>``."""
    if method in _TOGGLES and (not tag or tag.lower() == "input"):
        kind = (await locator.get_attribute("type") or "").lower()
        if kind in {"checkbox", "radio"} and await _blocked(locator, timeout_ms):
            label = await _visible_label(locator)
            if label is not None:
                checked = await locator.is_checked()
                if (method == "check" and checked) or (method == "uncheck" and not checked):
                    return True
                await label.click(timeout=timeout_ms)
                return True
    if method in LOCATOR_CALLS:
        call = getattr(locator, LOCATOR_CALLS[method])
        if ALLOWED_METHODS[method][1]:  # fill, type, press: the text or key
            await call(args[0], timeout=timeout_ms)
        else:
            await call(timeout=timeout_ms)
    elif method == "select_option":
        try:
            await locator.select_option(list(args), timeout=timeout_ms)
        except PlaywrightError as exc:
            if "not a <select>" not in (exc.message or str(exc)):
                raise
            raise PageError(
                "the element is a custom dropdown, not a native <select>: click it to open "
                "its list, then click the option in the list that appears"
            ) from None
    elif method == "scroll":
        await scroll(locator, args[0], timeout_ms=timeout_ms)
    elif method == "drag_to":
        if drag_target is None:
            raise PageError("drag_to needs a target element.")
        await locator.drag_to(drag_target, timeout=timeout_ms)
    elif method == "set_input_files":
        await _set_files(page, locator, args, timeout_ms)
    else:  # unreachable: callers check the allow-list first
        raise PageError(f"Method {method!r} is not on the allow-list.")
    return False


async def perform(
    page: AsyncPage,
    *,
    method: str,
    selectors: Sequence[str],
    frame: Sequence[str] = (),
    args: Sequence[str] = (),
    timeout_ms: float = 5000,
    follow_new_tabs: bool = True,
    settle_timeout_ms: float = 3000,
    quiet_ms: float = DEFAULT_QUIET_MS,
    located: tuple[AsyncLocator, str] | None = None,
    settle_after: bool = True,
    tag: str | None = None,
    drag_target: tuple[AsyncLocator, str] | None = None,
) -> Performed:
    """Resolve the element (first selector that matches exactly one), run the method, settle.

    ``args`` are final values (variables already substituted): never log them.
    Raises ``ElementNotFoundError`` or ``PageError``; both messages are safe to show the
    model once redacted by the caller. ``located`` skips the lookup when the caller already
    resolved the element; ``quiet_ms`` is the DOM-quiet window waited for afterwards, and
    ``settle_after=False`` skips that wait altogether (the caller settles when it needs to).
    ``tag``, when known, spares a round trip: only links can open a tab by ``target``.
    ``drag_to`` drops on ``drag_target`` (already located) or else on the element that
    ``args[0]``, a selector in the same frame, finds (how a cached step stores it).

    Only tabs this page opens (its popups) are followed, never one another page of the same
    context opened meanwhile: concurrent acts on pages of one context stay apart.
    """
    if method not in ALLOWED_METHODS:
        raise PageError(
            f"Method {method!r} is not allowed. Use one of: {', '.join(ALLOWED_METHODS)}."
        )
    if located is None:
        located = await locate_selectors(page, list(frame), list(selectors))
    locator, selector = located
    if method == "drag_to" and drag_target is None:
        drag_target = await locate_selectors(page, list(frame), list(args[:1]))
    opened: list[AsyncPage] = []

    def on_popup(new_page: AsyncPage) -> None:
        opened.append(new_page)

    opens_tab = (
        method in {"click", "double_click"}
        and (tag is None or tag.lower() in _TARGET_TAGS)
        and (await locator.get_attribute("target", timeout=timeout_ms) or "_self").lower()
        not in {"_self", "_parent", "_top"}
    )
    scrolls = method == "scroll" or (method == "press" and bool(args) and args[0] in _SCROLL_KEYS)
    before = await arm(page, frames=scrolls) if settle_after else None
    after: PageVersion | None = None
    page.on("popup", on_popup)
    try:
        try:
            via_label = await _run(
                locator,
                method,
                args,
                timeout_ms,
                page=page,
                drag_target=drag_target[0] if drag_target else None,
                tag=tag,
            )
        except PlaywrightError as exc:
            first_line = (exc.message or str(exc)).splitlines()[0]
            raise PageError(f"{method} on {selector} failed: {first_line}") from None
        # Settling inside the listener window catches tabs that open a moment after the click.
        if settle_after:
            after = await settle(page, timeout_ms=settle_timeout_ms, quiet_ms=quiet_ms)
        # A link with a target, or window.open calls the page made: the popup events can
        # reach us after the page settled (a busy machine), so wait for the promised tabs.
        promised = max(1 if opens_tab else 0, after.opened if after else 0)
        while len(opened) < promised:
            try:
                await page.wait_for_event("popup", timeout=settle_timeout_ms)
            except PlaywrightError:
                logger.debug("stagehand_py: a tab the action promised did not open")
                break
    finally:
        page.remove_listener("popup", on_popup)
    current = page
    if opened and follow_new_tabs:
        current = opened[-1]
        await settle(current, timeout_ms=settle_timeout_ms)
        logger.info("stagehand_py: following the new tab the action opened")
    return Performed(selector, current, opened, via_label, before, after)
