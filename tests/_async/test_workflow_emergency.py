"""Emergency mode on real Chromium: each trigger (failures in a row, a stall measured on a
clock the test controls, low confidence) switches from the primary model to the fallback and
from the accessibility tree to the DOM view, asserted on the requests each fake received."""

from __future__ import annotations

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, ConfigurationError
from stagehand_py.testing import AsyncFunctionLLM
from tests.agent_plan import AgentPlan, Do, state_text
from tests.agent_plan import done as agent_done
from tests.workflow_plan import WorkflowPlan, is_aria

CHECKLIST = ["[] 「プログラミング本」を検索する"]
SEARCH = [
    Do("fill", r"キーワード|name=\"q\"", text="プログラミング本"),
    Do("click", r"^<button[^>]*>検索"),
]
WRONG = [Do("fill", r"^<button[^>]*>検索", text="プログラミング本")]  # a button cannot be filled
DONE_WHEN = {1: r"検索結果: \d+件"}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def agent_states(llm: AsyncFunctionLLM) -> list[str]:
    return [state_text(r.messages) for r in llm.requests if r.schema_name == "AgentOutput"]


async def bookshop(async_page: AsyncPage, pages_url: str, llm: AsyncFunctionLLM, **kw: object):
    page = AsyncStagehand(llm=llm, **kw).wrap(async_page)  # type: ignore[arg-type]
    await page.goto(pages_url + "workflow/index.html")
    return page


async def test_three_failures_in_a_row_switch_to_the_fallback_and_the_dom(
    async_page: AsyncPage, pages_url: str
) -> None:
    small = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [WRONG] * 5}, DONE_WHEN), model="small"
    )
    large = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [SEARCH]}, DONE_WHEN), model="large"
    )
    page = await bookshop(async_page, pages_url, small, fallback_model=large)
    result = await page.workflow("「プログラミング本」を検索する", sitemap=False)

    assert result.success, result.summary()
    [escalation] = result.items[0].escalations
    assert (escalation.trigger, escalation.attempt) == ("failures", 4)
    assert (escalation.model_before, escalation.model_after) == ("small", "large")
    assert (escalation.view_before, escalation.view_after) == ("aria", "dom")
    assert [r.options.kind for r in small.requests] == ["checklist", "agent", "agent", "agent"]
    assert all(is_aria(s) for s in agent_states(small))
    assert [r.options.kind for r in large.requests] == ["agent", "agent", "verify"]
    assert (
        not any(is_aria(s) for s in agent_states(large))
        and '<input id="q"' in agent_states(large)[0]
    )
    assert result.items[0].attempts == 5


@pytest.mark.no_sync_twin
async def test_a_stall_on_the_test_clock_escalates(async_page: AsyncPage, pages_url: str) -> None:
    clock = Clock()

    def thirty_seconds_pass() -> None:
        clock.now += 20.0

    idle = [Do("wait", seconds=0)]
    small = AsyncFunctionLLM(
        structured=WorkflowPlan(
            CHECKLIST, {1: [idle] * 6}, DONE_WHEN, on_answer=thirty_seconds_pass
        ),
        model="small",
    )
    large = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [SEARCH]}, DONE_WHEN), model="large"
    )
    page = await bookshop(async_page, pages_url, small, fallback_model=large)
    result = await page.workflow("「プログラミング本」を検索する", sitemap=False, clock=clock)

    assert result.success, result.summary()
    [escalation] = result.escalations
    assert escalation.trigger == "stall" and escalation.attempt == 3
    assert escalation.detail == "no progress for 40 s (limit 30 s)"
    assert len(agent_states(small)) == 2 and all(is_aria(s) for s in agent_states(small))
    assert not any(is_aria(s) for s in agent_states(large))


@pytest.mark.no_sync_twin
async def test_low_confidence_over_five_attempts_escalates(
    async_page: AsyncPage, pages_url: str
) -> None:
    unsure = [Do("hover", r"^<(button|heading)[^>]*>本を探す|^<h1>")]
    small = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [unsure] * 8}, DONE_WHEN, confidence=0.1),
        model="small",
    )
    large = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [SEARCH]}, DONE_WHEN), model="large"
    )
    page = await bookshop(async_page, pages_url, small, fallback_model=large)
    result = await page.workflow("「プログラミング本」を検索する", sitemap=False, clock=Clock())

    assert result.success, result.summary()
    [escalation] = result.escalations
    assert escalation.trigger == "low_confidence" and escalation.attempt == 6
    assert "average confidence 0.10 over the last 5 attempts" in escalation.detail
    assert (escalation.model_before, escalation.model_after) == ("small", "large")
    assert (escalation.view_before, escalation.view_after) == ("aria", "dom")
    assert len(agent_states(small)) == 5 and len(agent_states(large)) == 2
    assert all(is_aria(s) for s in agent_states(small))
    assert not any(is_aria(s) for s in agent_states(large))
    assert result.items[0].actions[0].confidence == 0.1


@pytest.mark.no_sync_twin
async def test_without_a_fallback_only_the_view_switches_and_the_result_says_so(
    async_page: AsyncPage, pages_url: str
) -> None:
    llm = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [WRONG, WRONG, WRONG, SEARCH]}, DONE_WHEN),
        model="small",
    )
    page = await bookshop(async_page, pages_url, llm)
    result = await page.workflow("「プログラミング本」を検索する", sitemap=False)

    assert result.success, result.summary()
    [escalation] = result.escalations
    assert not escalation.model_switched and escalation.model_after == "small"
    assert escalation.note == "no fallback_model is configured: the model stays"
    assert [is_aria(s) for s in agent_states(llm)] == [True, True, True, False, False]


@pytest.mark.no_sync_twin
async def test_the_agent_escalates_through_the_same_settings(
    async_page: AsyncPage, pages_url: str
) -> None:
    small = AsyncFunctionLLM(structured=AgentPlan(WRONG, WRONG, WRONG, WRONG), model="small")
    large = AsyncFunctionLLM(structured=AgentPlan(SEARCH, agent_done("searched")), model="large")
    page = await bookshop(async_page, pages_url, small, fallback_model=large)
    result = await page.agent("「プログラミング本」を検索する", snapshot="aria")

    assert result.success, result.summary()
    [escalation] = result.escalations
    assert (escalation.trigger, escalation.model_after, escalation.view_after) == (
        "failures",
        "large",
        "dom",
    )
    assert len(agent_states(small)) == 3 and all(is_aria(s) for s in agent_states(small))
    assert not any(is_aria(s) for s in agent_states(large))


async def test_a_fallback_named_by_a_model_string_is_made_only_when_first_needed(
    async_page: AsyncPage, pages_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import stagehand_py._async.emergency as emergency

    large = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [SEARCH]}, DONE_WHEN), model="gpt-large"
    )
    made: list[str] = []

    def create_llm(spec: str) -> AsyncFunctionLLM:
        made.append(spec)
        return large

    monkeypatch.setattr(emergency, "create_llm", create_llm)
    small = AsyncFunctionLLM(
        structured=WorkflowPlan(CHECKLIST, {1: [WRONG] * 5}, DONE_WHEN), model="small"
    )
    page = await bookshop(async_page, pages_url, small, fallback_model="openai/gpt-large")
    assert made == []  # a string is checked at once but only made into a client on need
    result = await page.workflow("「プログラミング本」を検索する", sitemap=False)

    assert result.success, result.summary()
    assert made == ["openai/gpt-large"]
    [escalation] = result.items[0].escalations
    assert (escalation.model_before, escalation.view_after) == ("small", "dom")
    assert escalation.model_after in ("openai/gpt-large", "gpt-large")
    assert [r.options.kind for r in large.requests] == ["agent", "agent", "verify"]
    with pytest.raises(ConfigurationError, match="fallback_model"):
        AsyncStagehand(llm=small, fallback_model=42)  # type: ignore[arg-type]
