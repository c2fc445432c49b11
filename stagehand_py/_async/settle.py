"""Wait until a page has settled after navigation or an action."""

from __future__ import annotations

import logging

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ..dom import load_js

logger = logging.getLogger("stagehand_py")

# Long enough to see a framework re-render that follows an event, short enough to do per step.
DEFAULT_QUIET_MS = 100.0


async def settle(
    page: AsyncPage, *, timeout_ms: float = 3000, quiet_ms: float = DEFAULT_QUIET_MS
) -> None:
    """Wait for DOMContentLoaded, then for a DOM-quiet window, both bounded by ``timeout_ms``.

    Never raises for a slow page: a page that keeps changing is simply used as it is.
    """
    try:
        await page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
    except PlaywrightError:
        logger.debug("settle: load state not reached within %.0f ms", timeout_ms)
    if quiet_ms <= 0:
        return  # the caller only needed the load state (e.g. a cache replay between steps)
    for _ in range(2):
        try:
            await page.evaluate(load_js("settle.js"), {"quietMs": quiet_ms, "maxMs": timeout_ms})
            return
        except PlaywrightError as exc:
            # A navigation destroyed the context mid-wait: wait for the new document once.
            logger.debug("settle: %s", exc.message.splitlines()[0] if exc.message else exc)
            try:
                await page.wait_for_load_state("domcontentloaded", timeout=timeout_ms)
            except PlaywrightError:
                return
