"""workflow() ends within a second of its timeout_s, like every public call, whatever the page
or the model does: a page that spins after a click, a model that hangs on the checklist or on a
step. Nothing is left running: the page's main thread answers again afterwards."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py.llm._messages import Message
from stagehand_py.testing import AsyncFunctionLLM
from stagehand_py.workflow import WorkflowHistory
from tests.agent_plan import Do
from tests.workflow_plan import WorkflowPlan

SLACK_S = 1.0
TIMEOUT_S = 4
REPORT = ["[] Build the report"]


async def _answers(page: AsyncPage) -> bool:
    """The page's main thread runs scripts again (it was not left spinning)."""
    return await page.locator("body").text_content(timeout=2000) is not None


@pytest.mark.parametrize("replayed", [False, True], ids=["model-step", "history-replay"])
async def test_a_page_that_spins_after_a_click_ends_the_workflow_at_its_timeout(
    async_page: AsyncPage, pages_url: str, tmp_path: Path, replayed: bool
) -> None:
    # A replayed flow runs its steps back to back: the page must already be busy when the
    # click returns, or the next step could land before the page's own timer starts it.
    url = pages_url + "hostile/spin.html?ms=40000" + ("&in_handler" if replayed else "")
    history = WorkflowHistory(tmp_path)
    if replayed:  # the click comes from a flow a quick run on a calm page stored
        steps = [[Do("click", r"Build the report"), Do("fill", r"Note", text="quarterly")]]
        calm = WorkflowPlan(REPORT, {1: steps}, {1: r"."})
        page = AsyncStagehand(llm=AsyncFunctionLLM(structured=calm), history_dir=history)
        await async_page.goto(pages_url + "hostile/spin.html?ms=0")
        assert (await page.wrap(async_page).workflow("build the report", sitemap=False)).success
    plan = WorkflowPlan(REPORT, {1: [[Do("click", r"Build the report")]]}, {1: r"never"})
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan), history_dir=history).wrap(
        async_page
    )
    await page.goto(url)
    started = time.monotonic()
    result = await page.workflow("build the report", sitemap=False, timeout_s=TIMEOUT_S)
    elapsed = time.monotonic() - started

    assert elapsed < TIMEOUT_S + SLACK_S, elapsed
    assert not result.success and result.reason == "timeout", result.summary()
    assert result.items[0].status == "failed" and result.items[0].code == "TIMEOUT"
    assert "stopped at the deadline" in result.message, result.message
    assert await _answers(page)


class _HangingLLM:
    """Answers like ``plan`` until ``hang_on`` (a schema name), then hangs on every request."""

    model = "hanging"

    def __init__(self, plan: WorkflowPlan, hang_on: str) -> None:
        self.plan, self.hang_on, self.hung = plan, hang_on, 0

    async def chat(self, messages: Sequence[Message], tools: Any, **options: Any) -> Any:
        raise AssertionError("a workflow asks for structured answers only")

    async def structured(self, messages: Sequence[Message], schema: Any, **options: Any) -> Any:
        if schema.__name__ == self.hang_on:
            self.hung += 1
            await asyncio.sleep(60)
        return await AsyncFunctionLLM(structured=self.plan).structured(messages, schema, **options)


@pytest.mark.parametrize("hang_on", ["ChecklistAnswer", "AgentOutput"])
async def test_a_hung_model_ends_the_workflow_at_its_timeout(
    async_page: AsyncPage, pages_url: str, hang_on: str
) -> None:
    plan = WorkflowPlan(["[] Say hello"], {1: [[Do("click", r"^<button")]]}, {1: r"never"})
    llm = _HangingLLM(plan, hang_on)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    started = time.monotonic()
    result = await page.workflow("say hello", sitemap=False, timeout_s=TIMEOUT_S)
    elapsed = time.monotonic() - started

    assert elapsed < TIMEOUT_S + SLACK_S, elapsed
    assert not result.success and result.reason == "timeout", result.summary()
    assert llm.hung == 1
