"""Every public call ends within a second of its timeout_s, whatever the page or the model
does (issue #13, item 4). Pages under tests/pages/hostile/ hold the main thread, or build
200,000 elements; models hang. Each bound is asserted against its own limit plus slack."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import pytest
from playwright.async_api import CDPSession as AsyncCDPSession
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from stagehand_py import (
    AsyncStagehand,
    ConfigurationError,
    StagehandTimeoutError,
    annotated_screenshot,
    take_snapshot,
)
from stagehand_py._async.browser.interrupt import (
    BUSY_STOPPED,
    attach_interrupter,
    devtools_session,
    interrupt_if_busy,
    session_value,
)
from stagehand_py.llm._messages import Message
from stagehand_py.testing import AsyncFunctionLLM, AsyncScriptedLLM
from tests._async.plan_llm import AsyncPlanLLM, Step
from tests.agent_plan import AgentPlan, Do, done

SLACK_S = 1.0


class _HungLLM:
    """A model whose every request hangs (longer than any test waits)."""

    model = "hung"

    def __init__(self) -> None:
        self.calls = 0

    async def chat(self, messages: Sequence[Message], tools: Any, **options: Any) -> Any:
        self.calls += 1
        await asyncio.sleep(20)
        raise AssertionError("a hung request was waited for")

    async def structured(self, messages: Sequence[Message], schema: Any, **options: Any) -> Any:
        self.calls += 1
        await asyncio.sleep(20)
        raise AssertionError("a hung request was waited for")


async def _answers(page: AsyncPage) -> bool:
    """The page's main thread runs scripts again (it was not left spinning): a query that
    runs on it answers within 2 s. (Playwright's isolated world: when the interrupt stopped
    one of the SDK's own page-world scripts, Playwright's page-world context can stay lost,
    a known limit noted in the README.)"""
    return await page.locator("body").text_content(timeout=2000) is not None


async def test_a_page_that_spins_after_a_click_is_stopped_at_the_deadline(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"^<button\b[^>]*>Build the report")])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "hostile/spin.html?ms=25000")
    started = time.monotonic()
    result = await page.act("build the report", timeout_s=3, raise_on_failure=False)
    elapsed = time.monotonic() - started

    assert elapsed < 3 + SLACK_S, elapsed
    assert result.timed_out and result.code == "TIMEOUT"
    assert "stopped at the deadline" in result.message
    assert await _answers(page)


# Once stopped, the page runs its own 200 ms of queued work before it can confirm it is free,
# inside what is left of the second after the deadline: beside four other browsers on two cores
# that work and the probes around it can outlast it. It runs before the other tests
# (scripts/run-tests.sh), with only the static checks beside it.
@pytest.mark.alone
@pytest.mark.parametrize("call", ["act", "take_snapshot"])
async def test_a_page_with_more_work_queued_behind_the_busy_script_is_reported_stopped(
    async_page: AsyncPage, pages_url: str, call: str
) -> None:
    # Behind the 8 s script the page has queued 200 ms more of work (a page that works in
    # chunks). Once the interrupt stops the first, the page is free after the second: the
    # call must say the script was stopped, not that the page could not be interrupted.
    llm = AsyncPlanLLM([Step("click", r"^<button\b[^>]*>Build the report")])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "hostile/spin.html?ms=8000&then=200")
    started = time.monotonic()
    if call == "act":  # the nested deadline of act's own loop reports for the call
        result = await page.act("build the report", timeout_s=2, raise_on_failure=False)
        assert result.timed_out
        message = result.message
    else:
        assert (await take_snapshot(async_page, timeout_s=5)).elements  # idle: the page is known
        await async_page.evaluate("document.getElementById('build').click()")
        started = time.monotonic()
        with pytest.raises(StagehandTimeoutError) as caught:
            await take_snapshot(async_page, timeout_s=1)
        message = str(caught.value)
    assert time.monotonic() - started < (2 if call == "act" else 1) + SLACK_S
    assert "stopped at the deadline" in message, message
    assert await _answers(page)


@pytest.mark.parametrize("call", ["act", "extract", "observe"])
async def test_a_page_busy_when_the_call_starts(
    async_page: AsyncPage, pages_url: str, call: str
) -> None:
    # A model that would answer at once: only the page can hold the call up.
    llm = AsyncScriptedLLM()
    llm.queue({"data": {"text": "report"}, "complete": True}, {"elements": []})
    page = AsyncStagehand(llm=llm).wrap(async_page)
    # The page holds its main thread for 8 s from the moment its document is parsed.
    await page.goto(pages_url + "hostile/spin.html?on_load&ms=8000", wait_until="commit")
    started = time.monotonic()
    if call == "act":
        result = await page.act("write a note", timeout_s=2, raise_on_failure=False)
        assert result.timed_out and "busy" in result.message
    else:
        with pytest.raises(StagehandTimeoutError, match="busy") as caught:
            if call == "extract":
                await page.extract("the report", timeout_s=2)
            else:
                await page.observe("notes", timeout_s=2)
        assert f"{call}() ran out of time after 2 s" in str(caught.value)
    assert time.monotonic() - started < 2 + SLACK_S
    history = page.stagehand.history
    assert history[-1].kind == call and not history[-1].success


# Chromium lays out the 200,000 elements in one uninterruptible step (about 2 s on a quiet
# core): beside three other browsers on two cores it can take twice that, and the call's
# second of grace goes to the machine, not to the page. It runs before the other tests
# (scripts/run-tests.sh), with only the static checks beside it.
@pytest.mark.alone
async def test_a_200000_element_page_cannot_overrun_the_deadline(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([Step("click", r"^<button\b[^>]*>#100\b")])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "hostile/huge.html?n=200000")
    started = time.monotonic()
    result = await page.act("open transaction 100", timeout_s=3, raise_on_failure=False)
    assert time.monotonic() - started < 3 + SLACK_S
    assert result.timed_out
    assert await _answers(page)  # our serializer was stopped, not left walking


async def test_a_10_mb_fill_cannot_overrun_the_deadline(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncPlanLLM([Step("fill", r'^<input\b[^>]*id="note"', ["<|NOTE|>"])])
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(pages_url + "hostile/spin.html")
    started = time.monotonic()
    await page.act(
        "paste the note", variables={"note": "x" * 10_000_000}, timeout_s=2, raise_on_failure=False
    )
    assert time.monotonic() - started < 2 + SLACK_S


async def test_hung_model_calls_of_one_stagehand_never_hold_up_another(
    async_page: AsyncPage, pages_url: str
) -> None:
    hung = _HungLLM()
    stuck = AsyncStagehand(llm=hung, timeout_s=0.5).wrap(async_page)
    await stuck.goto(pages_url + "hello.html")
    for _ in range(6):  # more than any shared pool of workers would have
        started = time.monotonic()
        result = await stuck.act("say hi", raise_on_failure=False)
        assert result.timed_out and time.monotonic() - started < 0.5 + SLACK_S
    # At most one request per act (none sent after its deadline); on a loaded machine an act
    # can spend its half second before reaching the model.
    assert 1 <= hung.calls <= 6

    quick = AsyncPlanLLM([Step("click", r"^<button\b")])
    other = AsyncStagehand(llm=quick, timeout_s=5).wrap(async_page)
    result = await other.act("say hi")
    assert result.success and quick.calls == 2  # the act and its verify, neither waited


@pytest.mark.parametrize("call", ["extract", "observe"])
async def test_extract_and_observe_end_at_their_timeout_with_a_hung_model(
    async_page: AsyncPage, pages_url: str, call: str
) -> None:
    hung = _HungLLM()
    page = AsyncStagehand(llm=hung).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError):
        if call == "extract":
            await page.extract("the greeting", timeout_s=1)
        else:
            await page.observe("the greeting", timeout_s=1)
    assert time.monotonic() - started < 1 + SLACK_S
    # At most the one request (none after the deadline); on a loaded machine reading the page
    # can use up the second before the model is reached.
    assert hung.calls <= 1


async def test_the_agent_ends_at_its_timeout_on_a_page_that_spins_after_a_click(
    async_page: AsyncPage, pages_url: str
) -> None:
    plan = AgentPlan([Do("click", r"^<button\b[^>]*>Build the report")], done("built"))
    page = AsyncStagehand(llm=AsyncFunctionLLM(structured=plan)).wrap(async_page)
    await page.goto(pages_url + "hostile/spin.html?ms=25000")
    started = time.monotonic()
    result = await page.agent("build the report", timeout_s=3)
    elapsed = time.monotonic() - started

    assert elapsed < 3 + SLACK_S, elapsed
    assert not result.success and result.reason == "timeout", result.summary()


@pytest.mark.parametrize("call", ["snapshot", "annotated_screenshot"])
async def test_snapshot_and_annotated_screenshot_end_at_their_timeout_on_a_busy_page(
    async_page: AsyncPage, pages_url: str, tmp_path: Any, call: str
) -> None:
    # No model is involved: only the page can hold the call up. The snapshot takes its
    # timeout_s; the screenshot takes the Stagehand's default (Settings.timeout_s).
    page = AsyncStagehand(llm=AsyncScriptedLLM(), timeout_s=1).wrap(async_page)
    await page.goto(pages_url + "hostile/spin.html?ms=8000")
    assert (await page.snapshot()).elements  # idle: in time (and the page is known)
    # The page holds its main thread for 8 s from the next task on (a click on the button;
    # Playwright's own click would wait for the page to answer again).
    await page.evaluate("document.getElementById('build').click()")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError, match="stopped at the deadline") as caught:
        if call == "snapshot":
            await page.snapshot(timeout_s=1)
        else:
            await page.annotated_screenshot(tmp_path / "shot.png")
    assert time.monotonic() - started < 1 + SLACK_S
    assert f"{call}() ran out of time after 1 s" in str(caught.value)
    assert await _answers(page)  # the spinning script was stopped, not left running


@pytest.mark.parametrize("call", ["take_snapshot", "annotated_screenshot"])
async def test_the_module_level_inspection_calls_end_at_their_timeout_on_a_busy_page(
    async_page: AsyncPage, pages_url: str, tmp_path: Any, call: str
) -> None:
    # The same calls on a plain Playwright page (no Stagehand), through the functions
    # stagehand_py exports for any page.
    await async_page.goto(pages_url + "hostile/spin.html?ms=8000")
    assert (await take_snapshot(async_page, timeout_s=5)).elements  # idle: in time
    await async_page.evaluate("document.getElementById('build').click()")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError, match="stopped at the deadline") as caught:
        if call == "take_snapshot":
            await take_snapshot(async_page, mode="aria", timeout_s=1)
        else:
            await annotated_screenshot(async_page, tmp_path / "shot.png", timeout_s=1)
    assert time.monotonic() - started < 1 + SLACK_S
    assert f"{call}() ran out of time after 1 s" in str(caught.value)
    assert await _answers(async_page)  # the spinning script was stopped, not left running
    with pytest.raises(ConfigurationError, match=rf"{call}\(timeout_s=...\)"):
        await take_snapshot(async_page, timeout_s=-1) if call == "take_snapshot" else (
            await annotated_screenshot(async_page, tmp_path / "x.png", timeout_s=0)
        )


@pytest.fixture
def devtools_send_without_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """``CDPSession.send`` as Playwright before 1.65 (the floor is 1.60) has it: no timeout."""
    original = AsyncCDPSession.send

    async def send_without_timeout(
        self: AsyncCDPSession, method: str, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return await original(self, method, params)

    monkeypatch.setattr(AsyncCDPSession, "send", send_without_timeout)


@pytest.mark.usefixtures("devtools_send_without_timeout")
@pytest.mark.parametrize("view", ["dom", "aria"])
async def test_a_busy_page_is_stopped_where_devtools_requests_take_no_timeout(
    async_page: AsyncPage, pages_url: str, view: str
) -> None:
    # Without a timeout on DevTools requests, the probe and the interrupt must be bounded
    # another way, not fail on it.
    await async_page.goto(pages_url + "hostile/spin.html?ms=8000")
    assert (await take_snapshot(async_page, mode=view, timeout_s=5)).elements  # idle
    await async_page.evaluate("document.getElementById('build').click()")
    started = time.monotonic()
    with pytest.raises(StagehandTimeoutError, match="stopped at the deadline"):
        await take_snapshot(async_page, mode=view, timeout_s=1)
    assert time.monotonic() - started < 1 + SLACK_S
    assert await _answers(async_page)  # the spinning script was stopped, not left running


@pytest.mark.usefixtures("devtools_send_without_timeout")
async def test_a_devtools_read_of_a_busy_page_ends_at_its_limit_where_requests_take_no_timeout(
    async_page: AsyncPage, pages_url: str
) -> None:
    # The agent asks the page where it is with a limit of its own (a second): on a Playwright
    # whose CDPSession.send takes no timeout, that limit must still hold.
    await async_page.goto(pages_url + "hostile/spin.html?ms=8000")
    await attach_interrupter(async_page)
    session = devtools_session(async_page)
    assert session is not None
    assert await session_value(session, "location.href", timeout_ms=2000) == async_page.url
    await async_page.evaluate("document.getElementById('build').click()")
    started = time.monotonic()
    with pytest.raises(PlaywrightError, match="did not answer within 300 ms"):
        await session_value(session, "location.href", timeout_ms=300)
    assert time.monotonic() - started < 0.3 + SLACK_S
    assert await interrupt_if_busy(async_page, 2) == BUSY_STOPPED
    assert await _answers(async_page)


async def test_snapshot_takes_a_positive_timeout(async_page: AsyncPage, pages_url: str) -> None:
    page = AsyncStagehand(llm=AsyncScriptedLLM()).wrap(async_page)
    await page.goto(pages_url + "hello.html")
    with pytest.raises(ConfigurationError, match=r"snapshot\(timeout_s=...\)"):
        await page.snapshot(timeout_s=0)
    assert (await page.snapshot(timeout_s=5)).elements  # in time: the snapshot as before
