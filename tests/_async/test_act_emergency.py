"""Emergency mode in act() on real Chromium: failures in a row and low confidence switch from
the primary model to ``fallback_model`` and from the accessibility tree to the DOM view for
the rest of the act, asserted on the requests each fake received; without a fallback only the
view switches, and the result says so."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, EmergencySettings, Settings
from stagehand_py._async.act.loop import AsyncActRun
from stagehand_py._async.emergency import WithFallback
from stagehand_py._variables import Variables
from stagehand_py.llm import Message, ToolCall, ToolSpec
from stagehand_py.testing import AsyncFunctionLLM
from tests._async.plan_llm import find_element
from tests.workflow_plan import is_aria

SECTION_MARK = "(nearest to the current scroll position first):"
QUERY = "プログラミング本"


def section(messages: list[Message]) -> str:
    return messages[1].content.split(SECTION_MARK)[-1]


def do_action(element: int, method: str, *args: str, **extra: Any) -> ToolCall:
    arguments = {"method": method, "element": element, "args": list(args), "step": method}
    return ToolCall(id=f"c{element}{method}", name="doAction", arguments={**arguments, **extra})


def search(messages: list[Message], tools: list[ToolSpec]) -> list[ToolCall]:
    """Reads the DOM section like a model would: fills the keyword box, clicks search, done."""
    shown = section(messages)
    box = find_element(shown, r'^<input id="q"')
    button = find_element(shown, r"^<button[^>]*>検索")
    assert box is not None and button is not None, shown
    return [do_action(box, "fill", QUERY), do_action(button, "click", completed=True)]


def verified(messages: list[Message], schema: object) -> dict[str, Any]:
    return {"completed": True, "reason": "results shown"}


def sections(llm: AsyncFunctionLLM) -> list[str]:
    return [section(list(r.messages)) for r in llm.requests if r.options.kind == "act"]


async def bookshop(async_page: AsyncPage, pages_url: str, **options: Any) -> Any:
    page = AsyncStagehand(**options).wrap(async_page)
    await page.goto(pages_url + "workflow/index.html")
    return page


async def test_act_escalates_after_three_failures_to_the_fallback_and_the_dom(
    async_page: AsyncPage, pages_url: str
) -> None:
    # The small model keeps choosing an element number the page does not have.
    small = AsyncFunctionLLM(lambda m, t: do_action(9999, "click"), model="small")
    large = AsyncFunctionLLM(search, verified, model="large")
    page = await bookshop(async_page, pages_url, llm=small, fallback_model=large)

    result = await page.act(f"「{QUERY}」を検索する", snapshot="aria")

    assert result.success, result.message
    assert "検索結果" in await page.locator("body").inner_text()
    [escalation] = result.escalations
    assert (escalation.trigger, escalation.attempt) == ("failures", 1)
    assert (escalation.model_before, escalation.model_after) == ("small", "large")
    assert (escalation.view_before, escalation.view_after) == ("aria", "dom")
    assert [r.options.kind for r in small.requests] == ["act"] * 3
    assert all(is_aria(s) for s in sections(small))
    assert [r.options.kind for r in large.requests] == ["act", "verify"]
    assert not any(is_aria(s) for s in sections(large))
    assert '<input id="q"' in sections(large)[0]
    assert [a.method for a in result.actions] == ["fill", "click"]


@pytest.mark.no_sync_twin
async def test_act_escalates_on_low_confidence_and_without_a_fallback_switches_the_view_only(
    async_page: AsyncPage, pages_url: str
) -> None:
    unsure = 0

    def hesitant(messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
        nonlocal unsure
        unsure += 1
        box = find_element(section(messages), r"キーワード|name=\"q\"")
        assert box is not None
        return do_action(box, "fill", f"たぶん{unsure}", confidence=0.1)  # runs, never done

    small = AsyncFunctionLLM(
        lambda m, t: hesitant(m, t) if is_aria(section(m)) else search(m, t),
        verified,
        model="small",
    )
    page = await bookshop(async_page, pages_url, llm=small)

    result = await page.act(
        f"「{QUERY}」を検索する",
        snapshot="aria",
        emergency=EmergencySettings(max_failures=100),
    )

    assert result.success, result.message
    [escalation] = result.escalations
    assert escalation.trigger == "low_confidence" and escalation.attempt == 6
    assert not escalation.model_switched and escalation.model_after == "small"
    assert (escalation.view_before, escalation.view_after) == ("aria", "dom")
    assert "no fallback_model is configured" in escalation.note
    views = [is_aria(s) for s in sections(small)]
    assert views == [True] * 5 + [False]
    assert [a.method for a in result.actions] == ["fill"] * 6 + ["click"]


@pytest.mark.no_sync_twin
async def test_act_escalates_after_a_stall_on_the_test_clock(
    async_page: AsyncPage, pages_url: str
) -> None:
    clock = [0.0]

    def slow(messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
        clock[0] += 31  # the answer took 31 s on the test's clock, and was unusable
        return ToolCall(id="c", name="doAction", arguments={"method": "click"})

    small = AsyncFunctionLLM(slow, model="small")
    large = AsyncFunctionLLM(search, verified, model="large")
    await async_page.goto(pages_url + "workflow/index.html")
    run = AsyncActRun(
        async_page,
        WithFallback(small, large, now=lambda: clock[0]),
        f"「{QUERY}」を検索する",
        variables=Variables(),
        settings=Settings(snapshot="aria", emergency=EmergencySettings(max_failures=100)),
    )
    result = await run.run()

    assert result.success, result.message
    [escalation] = result.escalations
    assert escalation.trigger == "stall" and "no progress for 31 s" in escalation.detail
    assert (escalation.model_after, escalation.view_after) == ("large", "dom")
    assert len(small.requests) == 1 and is_aria(sections(small)[0])
    assert [r.options.kind for r in large.requests] == ["act", "verify"]
    assert not any(is_aria(s) for s in sections(large))


@pytest.mark.no_sync_twin
async def test_an_act_escalation_that_can_switch_nothing_is_recorded_and_says_so(
    async_page: AsyncPage, pages_url: str
) -> None:
    # Already the DOM view and no fallback model: the trigger fires, nothing can switch.
    small = AsyncFunctionLLM(lambda m, t: do_action(9999, "click"), model="small")
    page = await bookshop(async_page, pages_url, llm=small, max_reasks=3)

    result = await page.act(f"「{QUERY}」を検索する", raise_on_failure=False)

    assert not result.success and result.code == "NO_USABLE_REPLY"
    [escalation] = result.escalations
    assert (escalation.trigger, escalation.attempt) == ("failures", 1)
    assert not escalation.model_switched and escalation.model_after == "small"
    assert (escalation.view_before, escalation.view_after) == ("dom", "dom")
    assert escalation.note.startswith("nothing could be switched")
    # The loop went on as it was: one act request per try, all in the DOM view.
    assert [r.options.kind for r in small.requests] == ["act"] * 4
    assert not any(is_aria(s) for s in sections(small))
    assert page.stagehand.history[-1].success is False
