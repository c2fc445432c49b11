"""Virtualised lists on real Chromium: which containers qualify (the ADR's rule and metrics),
and the act loop's own scroll search (``AsyncListWalk``, driven here without a model): found
at row 150 of 10,000, not found for a missing row with every logged field, and stopped early by
the guard when the list stops moving."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py._async.act.state import ActState
from stagehand_py._async.act.vlist import AsyncListWalk
from stagehand_py._async.aria.lists import find_list_containers
from stagehand_py._config import Settings
from stagehand_py._variables import Variables
from stagehand_py.aria._vlist import ListContainer, ListSearch


async def containers(page: AsyncPage, url: str) -> list[ListContainer]:
    await page.goto(url)
    await page.wait_for_load_state("load")
    return await find_list_containers(page)


def visible_rows(page: AsyncPage, text: str) -> Callable[[], Awaitable[int]]:
    async def count() -> int:
        return await page.get_by_text(text, exact=True).count()

    return count


async def walk_until(page: AsyncPage, matches: Callable[[], Awaitable[int]]) -> AsyncListWalk:
    """The act loop's walk, with ``matches`` standing in for the model: after each scroll, a
    target in view is "chosen" (``found``), none is "skipped" (the next ``step``)."""
    walk = AsyncListWalk(ActState(page, None, "find", variables=Variables(), settings=Settings()))
    while await walk.step():
        if await matches():
            walk.found()
            break
    return walk


def first_search(walk: AsyncListWalk) -> ListSearch:
    assert walk.searches
    return walk.searches[0]


@pytest.mark.no_sync_twin
async def test_candidates_and_their_metrics(async_page: AsyncPage, pages_url: str) -> None:
    found = await containers(async_page, pages_url + "aria/vlist.html")
    scroller = found[0]
    assert scroller.scrolls and scroller.role == "list"
    assert scroller.client_height == 600 and scroller.scroll_height == 300_000
    assert scroller.ratio == 500.0
    assert scroller.log_fields() == {
        "containerSelector": scroller.selector,
        "clientHeight": 600.0,
        "scrollHeight": 300_000.0,
        "ratio": 500.0,
    }
    assert await async_page.locator(scroller.selector).count() == 1
    # The nav's <ul> qualifies by role only; the tall overflow:hidden block not at all.
    others = found[1:]
    assert [(c.role, c.scrolls) for c in others] == [("list", False)]
    assert "notes" not in " ".join(c.selector for c in found)


async def test_row_150_is_found_by_scrolling(async_page: AsyncPage, pages_url: str) -> None:
    (scroller, *_) = await containers(async_page, pages_url + "aria/vlist.html")
    assert await visible_rows(async_page, "Row 150: contact 150")() == 0
    search = first_search(
        await walk_until(async_page, visible_rows(async_page, "Row 150: contact 150"))
    )
    assert search.container == scroller
    assert search.found and search.stopped_by == "found"
    # 0.8 x 600 px per step over 30 px rows: row 150 renders after the 9th scroll.
    assert search.scroll_positions == [480.0 * n for n in range(1, 10)]
    assert search.viewport_match_counts == [0] * 8 + [1]


async def test_a_missing_row_ends_after_ten_scrolls_with_every_field_logged(
    async_page: AsyncPage, pages_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    (scroller, *_) = await containers(async_page, pages_url + "aria/vlist.html")
    with caplog.at_level(logging.INFO, logger="stagehand_py"):
        walk = await walk_until(async_page, visible_rows(async_page, "Row 99999"))
        stop = walk.not_reached()
    search = first_search(walk)
    assert not search.found and search.stopped_by == "max_attempts"
    fields = search.log_fields()
    assert stop is not None and stop.code == "VLIST_NOT_REACHED" and stop.details == fields
    assert fields == {
        "containerSelector": scroller.selector,
        "clientHeight": 600.0,
        "scrollHeight": 300_000.0,
        "ratio": 500.0,
        "attemptCount": 10,
        "scrollPositions": [480.0 * n for n in range(1, 11)],
        "viewportMatchCounts": [0] * 10,
    }
    assert any("attemptCount" in r.getMessage() for r in caplog.records)


@pytest.mark.no_sync_twin
async def test_a_list_that_stops_moving_ends_the_search_early(
    async_page: AsyncPage, pages_url: str
) -> None:
    (feed, *_) = await containers(async_page, pages_url + "aria/vlist_stuck.html")
    assert feed.scrolls and feed.ratio >= 2.0 and feed.role == "list"
    search = first_search(
        await walk_until(async_page, visible_rows(async_page, "Entry 80 was updated"))
    )
    assert not search.found and search.stopped_by == "stalled"
    # 1,500 px of entries in 600 px: two steps reach the end, then two that do not move.
    assert search.scroll_positions == [480.0, 900.0, 900.0, 900.0]
    assert search.attempt_count == 4
