"""act() on a page whose time Playwright's clock controls (``page.clock``), paused.

A paused clock stands the page's timers, animation frames and ``performance.now()`` still;
the settle watcher waits on the real ones the clock keeps aside, so the page still settles
(before, every settle waited until the call's deadline).
"""

from __future__ import annotations

import datetime

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from tests._async.plan_llm import AsyncPlanLLM, Step

INSTALLED_AT = datetime.datetime(2030, 1, 1, 9, 0)


@pytest.mark.parametrize("when", ["before-the-page-loads", "after-a-first-act"])
@pytest.mark.no_sync_twin
async def test_act_works_while_the_page_clock_is_paused(
    async_page: AsyncPage, pages_url: str, when: str
) -> None:
    llm = AsyncPlanLLM(
        [Step("click", r"^<button\b.*Show now"), Step("click", r"^<button\b.*timer")]
    )
    page = AsyncStagehand(llm=llm).wrap(async_page)
    if when == "after-a-first-act":
        await page.goto(pages_url + "loop/calm.html")
        await page.act("show it now", timeout_s=10)
    await async_page.clock.install(time=INSTALLED_AT)
    await async_page.clock.pause_at(INSTALLED_AT + datetime.timedelta(minutes=1))
    await page.goto(pages_url + "loop/calm.html")
    result = await page.act("show it now", timeout_s=10, raise_on_failure=False)
    assert result.success and not result.timed_out, result.message
    assert await async_page.locator("#out").inner_text() == "now"
    # A timer the page starts runs on the paused clock: it fires once the test moves time on.
    await page.act("show it after the timer", timeout_s=10)
    assert await async_page.locator("#out").inner_text() == "now"
    await async_page.clock.run_for(100)
    assert await async_page.locator("#out").inner_text() == "timer"
