"""The agent held to act()'s standard where it reaches past its own loop: a person's approval
under the run's deadline, two runs on one browser context keeping their secrets apart, a step
that ends with the deadline still recorded, and every model request of a failed run counted."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, AsyncStagehandPage
from stagehand_py.agent import AgentOutput, AgentState, Approve
from stagehand_py.testing import AsyncFunctionLLM
from tests.agent_plan import AgentPlan, Do, done

SLACK_S = 1.0


async def _shop(async_page: AsyncPage, pages_url: str, llm: Any) -> AsyncStagehandPage:
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "agent/index.html")
    return page


def _look_then_finish() -> AgentPlan:
    return AgentPlan([Do("scroll", direction="down")], done("looked around"))


# ----------------------------------------------------------------- approval and the deadline
class _BlockingApprover:
    """A plain function that blocks until released (a console prompt nobody answers)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.asked = 0

    def __call__(self, step: int, output: AgentOutput, state: AgentState) -> Approve:
        self.asked += 1
        self.release.wait(30)
        return Approve()


async def _approves_after(seconds: float) -> Approve:
    await asyncio.sleep(seconds)
    return Approve()


async def test_a_blocking_approver_cannot_carry_the_run_past_timeout_s(
    async_page: AsyncPage, pages_url: str
) -> None:
    approver = _BlockingApprover()
    page = await _shop(async_page, pages_url, AsyncFunctionLLM(structured=_look_then_finish()))
    started = time.monotonic()
    try:
        result = await page.agent("Look around.", approval=approver, timeout_s=3)
    finally:
        approver.release.set()
    elapsed = time.monotonic() - started

    assert elapsed < 3 + SLACK_S, elapsed
    assert (result.success, result.reason) == (False, "timeout"), result.summary()
    assert approver.asked == 1
    assert [r.status for r in result.steps[0].results] == []  # nothing ran unapproved


@pytest.mark.parametrize(("takes_s", "timeout_s"), [(0.4, 30.0), (10.0, 3.0)])
async def test_a_slow_approver_is_waited_for_until_timeout_s(
    async_page: AsyncPage, pages_url: str, takes_s: float, timeout_s: float
) -> None:
    async def approve(step: int, output: AgentOutput, state: AgentState) -> Approve:
        return await _approves_after(takes_s)

    page = await _shop(async_page, pages_url, AsyncFunctionLLM(structured=_look_then_finish()))
    started = time.monotonic()
    result = await page.agent("Look around.", approval=approve, timeout_s=timeout_s)
    elapsed = time.monotonic() - started

    if takes_s < timeout_s:  # its answers are waited for, and its time is the step's own
        assert (result.success, result.reason) == (True, "done"), result.summary()
        assert result.steps[0].timings.approval_s >= takes_s
        assert result.steps[0].results[0].status == "ok"
    else:
        assert elapsed < timeout_s + SLACK_S, elapsed
        assert (result.success, result.reason) == (False, "timeout"), result.summary()
        assert result.steps[0].results == []
