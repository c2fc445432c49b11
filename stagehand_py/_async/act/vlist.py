"""Virtualised lists in act(), in both snapshot modes (the ADR's rule).

When the model has skipped every section and the page has list containers that can scroll
(``aria_lists.find_list_containers`` in the top document and each same-origin iframe, ranked
together), the act loop asks :meth:`AsyncListWalk.step` to scroll the best one by
``0.8 x clientHeight`` and then shows the model what came into view (the parts of the fresh
snapshot it has not seen), through the same loop. Per container (the ADR's numbers): at most
``MAX_ATTEMPTS`` scrolls, and the search of it stops early when the last 3 ``scrollTop`` values
moved less than 5 px twice in a row (the list stopped moving); then the next ranked container is
searched. The loop makes a new walk after every action, so a list is searched before or after
any action. Not found in any: VLIST_NOT_REACHED, logged and on the result/error with
``containerSelector, clientHeight, scrollHeight, ratio, attemptCount, scrollPositions[],
viewportMatchCounts[]`` of the first container searched (one count per scroll: the elements the
model chose in what that scroll brought into view, so 0 for each one it skipped), and when more
than one was searched, ``containers``: the same fields for each, in order.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame

from ..._errors import PageError
from ...aria._vlist import (
    MAX_ATTEMPTS,
    STALL_PX,
    STEP_PAGES,
    ListContainer,
    ListSearch,
    rank_key,
    stalled,
)
from ..aria.lists import find_list_containers
from ..browser.executor import scroll
from ..browser.settle import PageVersion, page_version
from .state import ActState, StopAct

logger = logging.getLogger("stagehand_py")

RENDER_WAIT_MS = 500  # longest wait for a scrolled list to re-render
RENDER_POLL_MS = 50


def searchable(container: ListContainer) -> bool:
    """A scroller by the ADR's ratio, or a list-role container that can scroll at all (one
    whose content fits cannot hide rows: searching it would only delay the answer)."""
    return container.scrolls or container.scroll_height > container.client_height + STALL_PX


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc


class AsyncListWalk:
    """The list search of one act run between two actions (made lazily: most acts never need
    it). ``searches``: one per container scrolled so far, in order."""

    def __init__(self, run: ActState) -> None:
        self._run = run
        self._queue: list[tuple[AsyncFrame, ListContainer]] | None = None
        self._frame: AsyncFrame | None = None  # the document of the container being searched
        self.searches: list[ListSearch] = []

    @property
    def search(self) -> ListSearch | None:
        """The container being searched (or the last one)."""
        return self.searches[-1] if self.searches else None

    async def _containers(self) -> list[tuple[AsyncFrame, ListContainer]]:
        """Candidates of the top document and of every same-origin iframe, ranked together."""
        page = self._run.page
        origin = _origin(page.url)
        found: list[tuple[AsyncFrame, ListContainer]] = []
        for frame in page.frames:
            top = frame == page.main_frame
            if not top and (frame.is_detached() or _origin(frame.url) != origin):
                continue
            try:
                listed = await find_list_containers(frame)
            except PageError as exc:
                logger.info("stagehand_py: no list search in %s: %s", frame.url, exc)
                continue
            for container in listed:
                if searchable(container):
                    if not top:
                        container = replace(container, frame_url=frame.url)
                    found.append((frame, container))
        return sorted(found, key=lambda item: rank_key(item[1]))

    async def step(self) -> bool:
        """Scroll a list one step; False when there is no list left to search."""
        if self._queue is None:
            self._queue = await self._containers()
        while True:
            search = self.search
            if search is not None and search.found:
                return False
            if search is None or search.stopped_by:
                if not self._queue:
                    return False
                self._frame, container = self._queue.pop(0)
                self.searches.append(ListSearch(container=container))
                continue
            if await self._scroll(search):
                return True
            # This container is done (stalled, 10 scrolls, cannot scroll): the next one.

    async def _scroll(self, search: ListSearch) -> bool:
        """One scroll of ``search``'s container; False (with ``stopped_by`` set) when over."""
        run = self._run
        if search.attempt_count:
            search.viewport_match_counts.append(0)  # the model skipped what it was shown
        if search.attempt_count >= MAX_ATTEMPTS:
            search.stopped_by = "max_attempts"
            return False
        run.check_time()
        before = await page_version(run.page)
        frame = self._frame if self._frame is not None else run.page.main_frame
        target = frame.locator(search.container.selector)
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
        """VLIST_NOT_REACHED when lists were searched in vain, else None."""
        searched = [s for s in self.searches if s.attempt_count]
        if not searched:
            return None
        first = searched[0]
        fields: dict[str, Any] = first.log_fields()
        if len(searched) > 1:
            fields["containers"] = [s.log_fields() for s in searched]
        logger.info("stagehand_py: VLIST_NOT_REACHED (%s) %s", first.stopped_by, fields)
        why = {
            "stalled": "it stopped moving",
            "max_attempts": f"{MAX_ATTEMPTS} scrolls",
            "scroll_failed": "it could not be scrolled further",
        }
        lists = "; ".join(
            f"{s.container.selector} after {s.attempt_count} scroll(s) "
            f"({why.get(s.stopped_by, s.stopped_by)}; scrollTop {s.scroll_positions})"
            for s in searched
        )
        return StopAct(
            f"The target did not come into view in the scrollable list(s) searched, each "
            f"scrolled by 0.8 x its height: {lists}. It may be further down than the search "
            "goes, or not in a list: filter or search the list first.",
            "VLIST_NOT_REACHED",
            details=fields,
        )
