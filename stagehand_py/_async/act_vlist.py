"""Virtualised lists in act(), in both snapshot modes (the ADR's rule, phase 1's pieces).

When the model has skipped every section, no action has run yet, and the page has a list
container that can scroll (``aria_lists.find_list_containers``, ranked), the act loop asks
:meth:`AsyncListWalk.step` to scroll it by ``0.8 x clientHeight`` and then shows the model what
came into view (the parts of the fresh snapshot it has not seen), through the same loop. At most
``MAX_ATTEMPTS`` scrolls; the walk stops early when the last 3 ``scrollTop`` values moved less
than 5 px twice in a row (the list stopped moving). Not found: VLIST_NOT_REACHED, logged and on
the result/error with ``containerSelector, clientHeight, scrollHeight, ratio, attemptCount,
scrollPositions[], viewportMatchCounts[]`` (one count per scroll: the elements the model chose
in what that scroll brought into view, so 0 for each one it skipped).
"""

from __future__ import annotations

import logging

from playwright.async_api import Error as PlaywrightError

from .._errors import PageError
from ..aria._vlist import MAX_ATTEMPTS, STALL_PX, STEP_PAGES, ListContainer, ListSearch, stalled
from .act_state import ActState, StopAct
from .aria_lists import find_list_containers
from .executor import scroll
from .settle import PageVersion, page_version

logger = logging.getLogger("stagehand_py")

RENDER_WAIT_MS = 500  # longest wait for a scrolled list to re-render
RENDER_POLL_MS = 50


def searchable(container: ListContainer) -> bool:
    """A scroller by the ADR's ratio, or a list-role container that can scroll at all (one
    whose content fits cannot hide rows: searching it would only delay the answer)."""
    return container.scrolls or container.scroll_height > container.client_height + STALL_PX


class AsyncListWalk:
    """The list search of one act run (made lazily: most acts never need it)."""

    def __init__(self, run: ActState) -> None:
        self._run = run
        self._looked = False
        self.search: ListSearch | None = None

    async def _container(self) -> ListContainer | None:
        try:
            found = await find_list_containers(self._run.page)
        except PageError as exc:
            logger.info("stagehand_py: no list search: %s", exc)
            return None
        candidates = [c for c in found if searchable(c)]
        return candidates[0] if candidates else None

    async def step(self) -> bool:
        """Scroll the list one step; False when there is no list or the search is over."""
        run = self._run
        if not self._looked:
            self._looked = True
            container = await self._container()
            if container is None:
                return False
            self.search = ListSearch(container=container)
        search = self.search
        if search is None or search.stopped_by:
            return False
        if search.attempt_count:
            search.viewport_match_counts.append(0)  # the model skipped what it was shown
        if search.attempt_count >= MAX_ATTEMPTS:
            search.stopped_by = "max_attempts"
            return False
        run.check_time()
        before = await page_version(run.page)
        target = run.page.locator(search.container.selector)
        try:
            outcome = await scroll(
                target,
                "down",
                pages=STEP_PAGES,
                timeout_ms=run.cap_ms(run.settings.action_timeout_ms),
            )
        except (PlaywrightError, PageError) as exc:
            run.check_time()
            logger.info("stagehand_py: list %s not scrolled: %s", search.container.selector, exc)
            search.stopped_by = "scroll_failed"
            return False
        if not search.scroll_positions:
            search.start_position = outcome.before
        search.scroll_positions.append(outcome.after)
        if outcome.after != outcome.before:
            await self._rendered(before)
        if stalled([search.start_position, *search.scroll_positions]):
            search.viewport_match_counts.append(0)  # nothing new came into view
            search.stopped_by = "stalled"
            return False
        logger.info(
            "stagehand_py: list %s scrolled to %.0f (attempt %d)",
            search.container.selector,
            outcome.after,
            search.attempt_count,
        )
        return True

    async def _rendered(self, before: PageVersion | None) -> None:
        """Wait (briefly) for the list to re-render after a scroll: lists render on the next
        animation frame after the scroll event, which a loaded machine can delay past the
        settle's quiet window. A list that does not re-render (all rows present) costs
        ``RENDER_WAIT_MS``."""
        page, waited = self._run.page, 0.0
        while waited < self._run.cap_ms(RENDER_WAIT_MS):
            if before is None or await page_version(page) != before:
                return
            await page.wait_for_timeout(RENDER_POLL_MS)
            waited += RENDER_POLL_MS

    def found(self) -> None:
        """The model chose an element in the view the last scroll brought."""
        search = self.search
        if search is not None and search.attempt_count and not search.stopped_by:
            search.viewport_match_counts.append(1)
            search.found, search.stopped_by = True, "found"

    def not_reached(self) -> StopAct | None:
        """VLIST_NOT_REACHED when a list was searched in vain, else None."""
        search = self.search
        if search is None or not search.attempt_count:
            return None
        fields = search.log_fields()
        logger.info("stagehand_py: VLIST_NOT_REACHED (%s) %s", search.stopped_by, fields)
        why = {
            "stalled": "it stopped moving",
            "max_attempts": f"{MAX_ATTEMPTS} scrolls",
            "scroll_failed": "it could not be scrolled further",
        }.get(search.stopped_by, search.stopped_by)
        return StopAct(
            f"The target did not come into view in the scrollable list "
            f"{search.container.selector} after {search.attempt_count} scroll(s) of "
            f"0.8 x its height ({why}; scrollTop {fields['scrollPositions']}). It may be further "
            "down than the search goes, or not in the list: filter or search the list first.",
            "VLIST_NOT_REACHED",
            details=fields,
        )
