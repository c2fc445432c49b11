"""Wait until a page has settled after navigation or an action, and tell whether it changed.

Both run ``stagehand_py/dom/settle/``, a watcher installed once per document that counts DOM
changes and tracks the work an action starts (short timers, fetch/XHR, CSS animations). See
that file for the exact rules; in short, :func:`settle` returns when

* the DOM has been quiet for ``quiet_ms`` since its last change (or since the last tracked
  timer or request finished), no tracked timer or request is pending and no finite CSS
  transition/animation is running; or
* right after an action (:func:`arm` was called before it) that changed nothing, started no
  timer, request or animation within two frames: the page did not react, so there is nothing
  to wait for; or
* ``timeout_ms`` ran out (a page that keeps changing is used as it is).

:func:`page_version` reads the change counter: equal versions mean the DOM did not change in
between, so a snapshot taken in between is still the page as it is.

From the first settle on, every later document of the page gets its watcher at its start
(:func:`watch_from_start`), armed as if loading it were an action: the first look at a freshly
loaded page then settles by the rules after an action instead of waiting a whole quiet window
to learn what the page was doing.
"""

from __future__ import annotations

import functools
import json
import logging
import weakref
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ..._errors import SerializationError
from ..._playwright_identity import identity
from ...dom._js import load_js
from .scripts import run_page_script, script_in_template

logger = logging.getLogger("stagehand_py")

# Long enough to see a framework re-render that follows an event, short enough to do per step.
DEFAULT_QUIET_MS = 100.0
# Timers up to this long that an action starts are waited for (a menu opening after 300 ms).
SHORT_TIMER_MS = 1000


@dataclass(frozen=True)
class PageVersion:
    """The watcher's ``doc`` id (new on every navigation) and its DOM change count. A settle
    also reports ``opened``: windows the armed action opened (not part of the version)."""

    doc: str
    changes: int
    opened: int = field(default=0, compare=False)


def _version(raw: Any) -> PageVersion | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("doc"), str):
        return None
    changes, opened = raw.get("changes"), raw.get("opened")
    return PageVersion(
        raw["doc"],
        changes if isinstance(changes, int) else -1,
        opened if isinstance(opened, int) else 0,
    )


async def _watch(page: AsyncPage, op: str, *, frames: bool = False) -> PageVersion | None:
    try:
        options = {"op": op, "frames": frames}
        raw = await run_page_script(page, "watch_state", load_js("watch_state.js"), options)
        if raw is None:  # no watcher in this document yet: install one
            options["shortTimerMs"] = SHORT_TIMER_MS
            raw = await run_page_script(page, "settle", load_js("settle"), options)
    except PlaywrightError as exc:
        # Navigating or closed: no version, which callers read as "changed".
        logger.debug("watch %s: %s", op, exc.message.splitlines()[0] if exc.message else exc)
        return None
    return _version(raw)


# Pages whose later documents get their watcher at their start (the init script is added once).
_watched_from_start: weakref.WeakSet[Any] = weakref.WeakSet()
_OPTIONS_MARKER = "/* WATCH_OPTIONS */"


@functools.cache
def _from_start_script() -> str:
    script = script_in_template("watch_from_start.js", load_js("settle"))
    if _OPTIONS_MARKER not in script:
        raise SerializationError("watch_from_start.js lost its options marker")
    options = json.dumps({"op": "start", "shortTimerMs": SHORT_TIMER_MS})
    return script.replace(_OPTIONS_MARKER, options)


async def watch_from_start(page: AsyncPage) -> None:
    """Give every later document of ``page`` its watcher at its start (once per page; the
    document loaded now keeps the watcher it has, or gets one on first use)."""
    if identity(page) in _watched_from_start:
        return
    _watched_from_start.add(identity(page))
    try:
        await page.add_init_script(script=_from_start_script())
    except PlaywrightError as exc:  # closed: nothing later to watch
        logger.debug("watch from start: %s", exc.message.splitlines()[0] if exc.message else exc)


async def page_version(page: AsyncPage) -> PageVersion | None:
    """The page's current version, or None when it cannot be read (navigating, closed)."""
    return await _watch(page, "version")


async def arm(page: AsyncPage, *, frames: bool = False) -> PageVersion | None:
    """Start tracking what the next action sets off; call right before the action.

    ``frames``: the action scrolls, so the page's reactions (scroll events, a list that loads
    more when its end comes into view) arrive with the next frames: the settle after it waits
    for the scroll to end and two frames more before saying the page did not react.
    """
    return await _watch(page, "arm", frames=frames)


async def settle(
    page: AsyncPage, *, timeout_ms: float = 3000, quiet_ms: float = DEFAULT_QUIET_MS
) -> PageVersion | None:
    """Wait for DOMContentLoaded, then for the page to settle (rules above), both bounded by
    ``timeout_ms``. Returns the page's version once settled (None if it could not be read).

    Never raises for a slow page: a page that keeps changing is simply used as it is.
    ``quiet_ms <= 0`` waits for the load state only.
    """
    await watch_from_start(page)
    try:
        await page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
    except PlaywrightError:
        logger.debug("settle: load state not reached within %.0f ms", timeout_ms)
    if quiet_ms <= 0:
        return None
    options = {
        "op": "settle",
        "quietMs": quiet_ms,
        "maxMs": timeout_ms,
        "shortTimerMs": SHORT_TIMER_MS,
    }
    for _ in range(2):
        try:
            return _version(await run_page_script(page, "settle", load_js("settle"), options))
        except PlaywrightError as exc:
            # A navigation destroyed the context mid-wait: wait for the new document once.
            logger.debug("settle: %s", exc.message.splitlines()[0] if exc.message else exc)
            try:
                await page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
            except PlaywrightError:
                return None
    return None
