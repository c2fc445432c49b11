"""A person in the loop of page.agent(): every approval decision, the rule-based approver,
pause/resume/stop from another thread, and secrets kept out of everything the run leaves."""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, AsyncStagehandPage
from stagehand_py.agent import (
    AgentControls,
    AgentOutput,
    AgentState,
    Approve,
    Cancel,
    Retry,
    RuleApprover,
    Skip,
)
from stagehand_py.testing import AsyncFunctionLLM
from tests import secret_values
from tests.agent_plan import AgentPlan, Do, done

SEARCH_BOX = r"^<input[^>]*search"
NAME, EMAIL, ADDRESS = r'name="name"', r'name="email"', r'name="address"'


async def shop(
    async_page: AsyncPage, pages_url: str, llm: Any, path: str = "index.html"
) -> AsyncStagehandPage:
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "agent/" + path)
    return page


async def test_every_approval_decision_and_nothing_runs_before_it(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AgentPlan(
        [Do("fill", SEARCH_BOX, text="vase"), Do("click", r"^<button[^>]*>Search")],
        [Do("fill", SEARCH_BOX, text="lamp"), Do("click", r"^<button[^>]*>Search")],
        [Do("click", r"^<a[^>]*>Checkout")],
        [Do("click", r"^<a[^>]*>All lamps")],
    )
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm)
    decisions = [Retry("search for lamps, not vases"), Approve(), Skip("not now"), Cancel("enough")]
    seen: list[tuple[int, list[str], int, str]] = []
    # The approver runs in a worker thread (where Playwright's sync API cannot be used): what
    # ran before it decides is read from the run's log of actions.
    ran = _Watch("agent step", lambda: None)

    def approve(step: int, output: AgentOutput, state: AgentState) -> Any:
        actions_run = sum(f"agent step {step} action" in line for line in ran.lines)
        seen.append((step, [a.action for a in output.actions], actions_run, state.url))
        return decisions.pop(0)

    logger = logging.getLogger("stagehand_py")
    logger.addHandler(ran)
    try:
        result = await page.agent("Search for lamps.", approval=approve)
    finally:
        logger.removeHandler(ran)

    assert result.reason == "cancelled" and not result.success
    assert result.final_text == "Cancelled: the approver cancelled the run (enough)."
    index = pages_url + "agent/index.html"
    assert seen == [
        (1, ["fill", "click"], 0, index),  # the whole batch, shown before any of it ran
        (1, ["fill", "click"], 0, index),
        (2, ["click"], 0, index),
        (3, ["click"], 0, index),  # skip left the page where it was
    ]
    assert "search for lamps, not vases" in llm.requests[1].messages[-1].content
    assert llm.requests[1].messages[-2].role == "assistant"  # the rejected proposal
    first, skipped, cancelled = result.steps
    assert first.approval == "retry: search for lamps, not vases; approved"
    assert [r.status for r in first.results] == ["ok", "not_run"]  # suggestions appeared
    assert skipped.skipped and skipped.approval == "skipped: not now"
    assert [(r.status, r.note) for r in skipped.results] == [("not_run", "skipped by the approver")]
    assert cancelled.approval == "cancelled" and cancelled.results == []
    assert page.url == index and await page.locator("#q").input_value() == "lamp"


async def test_rule_approver_asks_only_for_matching_clicks(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AgentPlan(
        [Do("scroll", direction="down")], [Do("click", r"Pay now")], done("left unpaid")
    )
    page = await shop(async_page, pages_url, AsyncFunctionLLM(structured=plan), "cart.html")
    asked: list[int] = []

    def ask(step: int, output: AgentOutput, state: AgentState) -> Skip:
        asked.append(step)
        return Skip("a person said no")

    approver = RuleApprover.for_clicks("pay|delete|submit", ask=ask)
    result = await page.agent("Pay for the cart.", approval=approver)

    assert result.success, result.summary()
    assert asked == [2]
    [[proposal]] = approver.asked
    assert re.fullmatch(r'click \[\d+\] <button id="pay" type="button">Pay now</button>', proposal)
    assert [s.approval for s in result.steps] == [
        "approved",
        "skipped: a person said no",
        "approved",
    ]
    assert await page.locator("#paid").inner_text() == ""


class _Watch(logging.Handler):
    """Calls ``then`` when a log line containing ``when`` is emitted (on the run's thread)."""

    def __init__(self, when: str, then: Callable[[], None]) -> None:
        super().__init__(logging.INFO)
        self.when, self.then = when, then
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        line = record.getMessage()
        self.lines.append(line)
        if self.when in line:
            self.then()


def _fill_two_fields() -> AgentPlan:
    return AgentPlan(
        [Do("fill", NAME, text="Ada"), Do("fill", ADDRESS, text="12 Harbour Street")],
        done("filled"),
    )


async def _run_watched(
    page: AsyncStagehandPage,
    controls: AgentControls,
    watch: _Watch,
    controller: Callable[[], None],
) -> Any:
    logger = logging.getLogger("stagehand_py")
    logger.addHandler(watch)
    thread = threading.Thread(target=controller)
    thread.start()
    try:
        return await page.agent("Fill in name and address.", controls=controls)
    finally:
        logger.removeHandler(watch)
        controls.resume()
        thread.join(10)


async def test_pause_holds_between_actions_until_resumed_from_another_thread(
    async_page: AsyncPage, pages_url: str
) -> None:
    page = await shop(
        async_page, pages_url, AsyncFunctionLLM(structured=_fill_two_fields()), "checkout.html"
    )
    controls = AgentControls()
    watch = _Watch("action 1/2", controls.pause)
    while_held: list[str] = []

    def resume_when_held() -> None:
        if controls.wait_until_holding(timeout=10):
            while_held.extend(watch.lines)
            controls.resume()

    result = await _run_watched(page, controls, watch, resume_when_held)

    assert result.success, result.summary()
    assert controls.holds == 1
    assert any("action 1/2" in line for line in while_held)
    assert not any("action 2/2" in line for line in while_held)  # held between the actions
    assert await page.locator("#address").input_value() == "12 Harbour Street"


async def test_stop_ends_the_run_at_the_next_checkpoint(
    async_page: AsyncPage, pages_url: str
) -> None:
    page = await shop(
        async_page, pages_url, AsyncFunctionLLM(structured=_fill_two_fields()), "checkout.html"
    )
    controls = AgentControls()
    watch = _Watch("action 1/2", controls.pause)

    def stop_while_held() -> None:
        if controls.wait_until_holding(timeout=10):
            controls.stop()

    result = await _run_watched(page, controls, watch, stop_while_held)

    assert (result.success, result.reason) == (False, "cancelled")
    assert result.final_text == "Cancelled: stopped by AgentControls.stop()."
    assert [(r.status, r.note) for r in result.steps[0].results] == [
        ("ok", ""),
        ("not_run", "the run was stopped"),
    ]
    assert await page.locator("#name").input_value() == "Ada"
    assert await page.locator("#address").input_value() == ""


def _confirmation(state: str) -> dict[str, Any]:
    found = re.search(r"A confirmation goes to (\S+),", state)
    sent_to = found.group(1) if found else "?"
    return done(f"Order placed; confirmation sent to {sent_to}", data={"email": sent_to})


async def test_no_variable_value_in_requests_logs_history_or_the_saved_run(
    async_page: AsyncPage, pages_url: str, tmp_path: Path
) -> None:
    plan = AgentPlan(
        [
            Do("fill", NAME, text="Ada"),
            Do("fill", EMAIL, text="<|EMAIL|>"),
            Do("fill", r'type="password"', text="<|PASSWORD|>"),
        ],
        [Do("click", r"Place order")],
        _confirmation,
    )
    llm = AsyncFunctionLLM(structured=plan)
    page = await shop(async_page, pages_url, llm, "checkout.html")
    variables = {"email": secret_values.EMAIL, "password": secret_values.PASSWORD}
    result = await page.agent(
        "Order as Ada with <|EMAIL|> and <|PASSWORD|>.", variables=variables, use_vision=True
    )

    assert result.success, result.summary()
    # The values reached the page, and the page echoed one back...
    assert await page.locator("#email").input_value() == secret_values.EMAIL
    assert await page.locator("#password").input_value() == secret_values.PASSWORD
    assert secret_values.EMAIL in await page.locator("#result").inner_text()
    # ...but the model read placeholders only, and so did everything the run left behind.
    assert 'value="<|EMAIL|>"' in plan.states[1]
    assert result.data == {"email": "<|EMAIL|>"}
    assert all(r.messages[-1].images for r in llm.requests)  # screenshots were sent
    saved = result.save(tmp_path / "run.json")
    assert list((tmp_path / "run_screenshots").glob("step_*.png"))
    left_behind = [
        *(r.model_dump_json(exclude={"messages": {"__all__": {"images"}}}) for r in llm.requests),
        result.model_dump_json(),
        result.summary(),
        json.dumps(result.conversation),
        saved.read_text("utf-8"),
        *(record.summary() for record in page.stagehand.history),
    ]
    for secret in (secret_values.EMAIL, secret_values.PASSWORD):
        assert not any(secret in text for text in left_behind), secret
