"""Find the containers of a page that may hold a virtualised list, and search one by scrolling.

The search is the ADR's loop: scroll the container by ``0.8 * clientHeight`` (one
``executor.scroll`` page), let the list render, ask ``matches()`` how many targets are in view
now, and stop when one is, after ``MAX_ATTEMPTS`` scrolls, or when the last 3 positions moved
less than 5 px twice in a row (the list stopped moving).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from .._errors import PageError
from ..aria._vlist import (
    MAX_ATTEMPTS,
    MIN_RATIO,
    STEP_PAGES,
    ListContainer,
    ListSearch,
    rank_containers,
    stalled,
)
from ..dom import load_js
from .executor import scroll
from .settle import settle

logger = logging.getLogger("stagehand_py")


async def find_list_containers(
    page: AsyncPage, *, min_ratio: float = MIN_RATIO
) -> list[ListContainer]:
    """Candidate containers in the page's own document, scrollers first."""
    options = json.dumps({"task": "lists", "minRatio": min_ratio})
    try:
        raw = await page.evaluate(load_js("aria_page"), options)
        found = [ListContainer.read(item) for item in json.loads(raw)["lists"]]
    except PlaywrightError as exc:
        raise PageError(
            f"Could not look for scrollable lists on {page.url}: "
            f"{(exc.message or str(exc)).splitlines()[0]}"
        ) from None
    return rank_containers(found)


async def search_list(
    page: AsyncPage,
    container: ListContainer,
    matches: Callable[[], Awaitable[int]],
    *,
    max_attempts: int = MAX_ATTEMPTS,
    timeout_ms: float = 5000,
    quiet_ms: float = 100,
) -> ListSearch:
    """Scroll ``container`` down until ``matches()`` (how many targets are in view) is above 0.

    ``timeout_ms`` bounds each scroll and each wait for the list to render.
    """
    search = ListSearch(container=container)
    target = page.locator(container.selector)
    for _ in range(max_attempts):
        try:
            outcome = await scroll(target, "down", pages=STEP_PAGES, timeout_ms=timeout_ms)
        except PlaywrightError as exc:
            raise PageError(
                f"Could not scroll {container.selector}: "
                f"{(exc.message or str(exc)).splitlines()[0]}"
            ) from None
        if not search.scroll_positions:
            search.start_position = outcome.before
        search.scroll_positions.append(outcome.after)
        await settle(page, timeout_ms=timeout_ms, quiet_ms=quiet_ms)
        count = await matches()
        search.viewport_match_counts.append(count)
        if count > 0:
            search.found, search.stopped_by = True, "found"
            return search
        if stalled([search.start_position, *search.scroll_positions]):
            search.stopped_by = "stalled"
            break
    else:
        search.stopped_by = "max_attempts"
    logger.info("stagehand_py: list search ended (%s): %s", search.stopped_by, search.log_fields())
    return search
