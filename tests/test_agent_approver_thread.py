"""Where an approver runs: in a worker thread (so timeout_s can end a run whose approver
blocks). An ``async def`` approver's coroutine still runs on the run's own loop, so with the
async API it may read the page; with the sync API, Playwright cannot be used from that thread
and the approver that tries gets a ConfigurationError saying what to do instead."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, ConfigurationError, Stagehand
from stagehand_py.agent import AgentOutput, AgentState, Approve
from stagehand_py.testing import AsyncFunctionLLM, FunctionLLM
from tests.agent_plan import AgentPlan, Do, done

SEARCH_BOX = r"^<input[^>]*search"


def _plan() -> AgentPlan:
    return AgentPlan([Do("fill", SEARCH_BOX, text="lamp")], done("typed"))


async def test_an_async_approver_reads_the_page_on_the_runs_loop(
    async_page: AsyncPage, pages_url: str
) -> None:
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=_plan())).wrap(async_page)
    await page.goto(pages_url + "agent/index.html")
    typed: list[str] = []

    async def approve(step: int, output: AgentOutput, state: AgentState) -> Approve:
        typed.append(await page.locator("#q").input_value())  # untouched until approved
        return Approve()

    result = await page.agent("Search for lamps.", approval=approve)
    assert result.success, result.summary()
    assert typed == ["", "lamp"]


def test_a_sync_approver_that_calls_playwright_is_told_what_to_do(
    sync_page: Any, pages_url: str
) -> None:
    page = Stagehand(llm=FunctionLLM(structured=_plan())).wrap(sync_page)
    page.goto(pages_url + "agent/index.html")

    def approve(step: int, output: AgentOutput, state: AgentState) -> Approve:
        page.locator("#q").input_value()
        return Approve()

    with pytest.raises(ConfigurationError, match="decide from the state it is given"):
        page.agent("Search for lamps.", approval=approve)
    assert sync_page.locator("#q").input_value() == ""
