"""The agent held to act()'s standard where it reaches past its own loop: a person's approval
under the run's deadline, two runs on one browser context keeping their secrets apart, a step
that ends with the deadline still recorded, and every model request of a failed run counted."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, AsyncStagehandPage, LLMError, PriceTable
from stagehand_py.agent import AgentOutput, AgentState, Approve
from stagehand_py.llm import Message
from stagehand_py.testing import AsyncFunctionLLM
from tests.agent_plan import AgentPlan, Do, done
from tests.agent_sign_in import USERS, SignInModel, leaks, task
from tests.site_server import Route, site_server

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


# ----------------------------------------------------------------- a step cut off by the deadline
@pytest.mark.parametrize(
    ("link", "content_type"),
    [
        ("<a href=/prices.csv download>Prices</a>", "text/csv"),
        ("<a href=/prices.bin>Prices</a>", "application/octet-stream"),
    ],
)
async def test_a_step_whose_download_ends_with_the_deadline_is_still_recorded(
    async_page: AsyncPage, tmp_path: Path, link: str, content_type: str
) -> None:
    # The click starts a download whose body the server holds back past timeout_s: saving it
    # is what the deadline cuts short, after the click ran.
    plan = AgentPlan([Do("click", r"Prices")], done("downloaded"))
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
    path = link.split("href=", 1)[1].split(">", 1)[0].split(" ", 1)[0]
    with site_server() as site:
        site.routes["/"] = Route(
            f"<!doctype html><title>Prices</title>{link}".encode(), content_type="text/html"
        )
        site.routes[path] = Route(b"lamp,24.50\n", content_type=content_type, body_after_s=30)
        await page.goto(site.url + "/")
        started = time.monotonic()
        # Time enough for the look and the click on a loaded machine: the deadline must land
        # while the file is saved.
        result = await page.agent(
            "Get the price list.",
            downloads_dir=str(tmp_path),
            timeout_s=6,
            action_timeout_ms=30_000,  # a click that waits for the download waits to the end
        )
        elapsed = time.monotonic() - started

    assert elapsed < 6 + SLACK_S, elapsed
    assert result.reason == "timeout", result.summary()
    [step] = result.steps
    [click] = step.results  # the deadline came after the click
    assert click.action == "click" and click.status != "not_run", click.line()
    assert step.error is not None and "timeout_s" in step.error
    assert step.model_requests == 1 and step.ended_at is not None
    [record] = page.stagehand.history
    assert [a.method for a in record.actions] == ["click"]


# ----------------------------------------------------------------- every request of a failed run
class _FailingLLM:
    """A user's own model: each request is sent, then fails in a way that says nothing of
    what it cost (a hang past the time limit, or an error without usage)."""

    model = "failing"

    def __init__(self, how: str) -> None:
        self.how = how
        self.calls = 0

    async def chat(self, messages: Sequence[Message], tools: Any, **options: Any) -> Any:
        raise AssertionError("the agent sends structured requests only")

    async def structured(self, messages: Sequence[Message], schema: Any, **options: Any) -> Any:
        self.calls += 1
        if self.how == "hangs":
            await asyncio.sleep(20)
        raise LLMError("the provider is down")


@pytest.mark.parametrize(
    ("how", "limits"),
    [
        ("hangs", {"llm_timeout_s": 0.5, "max_failures": 2, "timeout_s": 20}),
        ("hangs", {"timeout_s": 2}),
        ("errs", {"max_failures": 3}),
    ],
)
async def test_a_failed_run_counts_and_prices_every_request_it_sent(
    async_page: AsyncPage, pages_url: str, how: str, limits: dict[str, Any]
) -> None:
    llm = _FailingLLM(how)
    prices = PriceTable.of({"failing": {"input": 2.0, "output": 8.0}})
    page = AsyncStagehand(llm=llm, prices=prices).wrap(async_page)
    await page.goto(pages_url + "agent/index.html")
    result = await page.agent("Look around.", **limits)

    assert not result.success, result.summary()
    assert llm.calls >= 1
    assert result.usage.requests == llm.calls, result.summary()
    assert sum(step.model_requests for step in result.steps) == llm.calls
    assert all(step.cost is not None for step in result.steps) and result.cost is not None
    [record] = page.stagehand.history
    assert record.llm_calls == llm.calls
    assert page.stagehand.usage.total.requests == llm.calls


# ----------------------------------------------------------------- two runs on one context
@pytest.mark.parametrize("sessions", [1, 2])
@pytest.mark.no_sync_twin
async def test_runs_one_after_the_other_on_one_context_keep_their_secrets_apart(
    async_page: AsyncPage, pages_url: str, sessions: int
) -> None:
    # A signs in on one tab; then B, on another tab of the context, lists A's tab, whose URL
    # and title carry A's values. One session for both runs, or one each.
    model = SignInModel()
    stagehands = [AsyncStagehand(llm=AsyncFunctionLLM(structured=model)) for _ in range(sessions)]
    tabs = [async_page, await async_page.context.new_page()]
    pages = [stagehands[n % sessions].wrap(tab) for n, tab in enumerate(tabs)]
    for page in pages:
        await page.goto(pages_url + "agent/signin.html")
    results = {}
    for who, page in zip(USERS, pages, strict=True):
        results[who] = await page.agent(task(who), variables=USERS[who], timeout_s=30)

    assert all(result.success for result in results.values()), results
    assert model.saw_the_other_tab_signed_in("B")
    for who, other in (("A", "B"), ("B", "A")):
        assert leaks("\n".join(model.sent[who]), of=other) == []
        assert leaks(results[who].model_dump_json(), of=other) == []
    assert leaks("\n".join(model.sent["A"] + model.sent["B"]), of="A") == []


# ----------------------------------------------------------------- a 10 MB answer and the deadline
@pytest.mark.parametrize("where", ["fill", "memory"])
async def test_a_10_mb_answer_cannot_carry_the_run_past_timeout_s(
    async_page: AsyncPage, pages_url: str, where: str
) -> None:
    huge = "x" * 10_000_000
    if where == "fill":
        plan = AgentPlan(*[[Do("fill", r'^<input\b[^>]*id="note"', text=huge)]] * 10_000)
    else:
        plan = AgentPlan(*[[Do("scroll", direction="down")]] * 10_000, memory=huge)
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
    await page.goto(pages_url + "hostile/spin.html")
    started = time.monotonic()
    # Each refusal is quick: only the deadline may end the run (not max_steps or max_failures).
    result = await page.agent("Paste the note.", timeout_s=4, max_failures=1000, max_steps=10_000)
    elapsed = time.monotonic() - started

    assert elapsed < 4 + SLACK_S, elapsed
    assert result.reason == "timeout", result.summary()
    # Every step the model answered was refused (the last one may be cut off by the deadline).
    answered = [step for step in result.steps if "timeout_s ran out" not in (step.error or "")]
    refused = [step.error or "" for step in answered if step.model_requests]
    assert refused and all("characters of text" in error for error in refused), refused
    assert await async_page.locator("#note").input_value() == ""  # nothing was typed
