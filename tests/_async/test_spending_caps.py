"""Hard spending caps on real Chromium with the scripted fake: per call, per Stagehand, for
every verb. A request that would cross a cap is never sent: every test counts what the fake
recorded (test_spending_caps_wire.py does the same over the real provider clients).
"""

from __future__ import annotations

import logging

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import (
    AsyncStagehand,
    BudgetExceededError,
    ConfigurationError,
    PriceTable,
    ProviderError,
    Usage,
)
from stagehand_py.testing import (
    AsyncScriptedLLM,
    do_action,
    observe_answer,
    verify_answer,
)
from tests import secret_values

PAGE = "<h1>Shop</h1><p>Lamp: 16.13 EUR</p><button onclick=\"document.title='added'\">Add</button>"
PRICES = PriceTable.of({"scripted": {"input": 1.0, "output": 4.0}})  # $ per million tokens


class Price(BaseModel):
    amount: float


async def _shop(stagehand: AsyncStagehand, async_page: AsyncPage) -> AsyncPage:
    page = stagehand.wrap(async_page)
    await page.set_content(PAGE)
    return page


@pytest.mark.no_sync_twin
async def test_a_calls_own_cap_refuses_its_first_request_and_nothing_is_sent(
    async_page: AsyncPage,
) -> None:
    llm = AsyncScriptedLLM(do_action("click", 2, completed=True), verify_answer(True))
    stagehand = AsyncStagehand(llm=llm)
    page = await _shop(stagehand, async_page)

    with pytest.raises(BudgetExceededError) as refused:
        await page.act(
            "click Add for %email%",
            max_total_tokens=500,
            variables={"email": secret_values.EMAIL},
        )

    assert llm.calls == 0 and await page.title() == ""  # nothing sent, nothing done
    error = refused.value
    assert (error.cap, error.scope) == ("max_total_tokens", "call")
    assert (error.limit, error.spent) == (500, 0)
    assert error.request > 500 and error.call == "act('click Add for %email%')"
    assert "Raise the cap (max_total_tokens= on the call)" in str(error)
    assert secret_values.EMAIL not in str(error)
    [record] = stagehand.history
    assert not record.success and record.message.startswith("BudgetExceededError: act(")
    assert record.llm_calls == 0
    # The cap was this call's: the next call, without one, asks the model.
    assert (await page.act("click Add")).success and llm.calls == 2


@pytest.mark.no_sync_twin
async def test_a_stagehands_cap_spans_its_calls_and_stops_the_one_that_would_cross_it(
    async_page: AsyncPage,
) -> None:
    llm = AsyncScriptedLLM(do_action("click", 2, completed=True), verify_answer(True))
    stagehand = AsyncStagehand(llm=llm)
    page = await _shop(stagehand, async_page)
    await page.act("click Add")
    spent = stagehand.usage.total.total_tokens
    # Room for what was spent and a little more, not for another request's worst case.
    stagehand.settings = stagehand.settings.updated(max_total_tokens=spent + 200)

    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button")

    assert llm.calls == 2  # the two requests of the first act, and no more
    error = refused.value
    assert (error.scope, error.cap, error.spent) == ("Stagehand", "max_total_tokens", spent)
    assert "this Stagehand past its max_total_tokens" in str(error)
    assert "STAGEHAND_PY_MAX_TOTAL_TOKENS" in str(error)
    # Another Stagehand keeps its own account.
    other = AsyncStagehand(llm=AsyncScriptedLLM(observe_answer(2)), max_total_tokens=50_000)
    assert len(await other.wrap(async_page).observe("the Add button")) == 1


@pytest.mark.no_sync_twin
async def test_a_cost_cap_prices_the_worst_case_before_sending(async_page: AsyncPage) -> None:
    llm = AsyncScriptedLLM(observe_answer(2))
    stagehand = AsyncStagehand(llm=llm, prices=PRICES, max_cost_usd=0.002)
    page = await _shop(stagehand, async_page)
    # An observe request's worst case: its prompt plus a 2,048-token answer at $4 per million.
    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button")
    assert llm.calls == 0
    error = refused.value
    assert (error.cap, error.limit) == ("max_cost_usd", 0.002) and error.request > 0.008
    # A smaller answer budget makes the same request fit.
    assert len(await page.observe("the Add button", max_tokens=100)) == 1
    assert llm.calls == 1


async def test_a_cost_cap_without_a_price_is_a_configuration_error_before_any_request(
    async_page: AsyncPage,
) -> None:
    with pytest.raises(ConfigurationError, match=r"max_cost_usd.*no prices were given"):
        AsyncStagehand(llm=AsyncScriptedLLM(), max_cost_usd=1.0)
    with pytest.raises(ConfigurationError, match="there is no price for 'elsewhere'"):
        AsyncStagehand(llm=AsyncScriptedLLM(model="elsewhere"), prices=PRICES, max_cost_usd=1.0)
    llm = AsyncScriptedLLM()
    page = await _shop(AsyncStagehand(llm=llm), async_page)
    with pytest.raises(ConfigurationError, match=r"observe\('the Add button'\): max_cost_usd"):
        await page.observe("the Add button", max_cost_usd=0.5)
    with pytest.raises(ConfigurationError, match="max_total_tokens takes a positive whole"):
        await page.observe("the Add button", max_total_tokens=0)
    assert llm.calls == 0


@pytest.mark.no_sync_twin
async def test_every_verb_obeys_the_caps_of_its_call(async_page: AsyncPage) -> None:
    llm = AsyncScriptedLLM()  # any request that got through would fail the test differently
    page = await _shop(AsyncStagehand(llm=llm), async_page)
    calls = {
        "act": lambda: page.act("click Add", max_total_tokens=10),
        "extract": lambda: page.extract("the lamp's price", Price, max_total_tokens=10),
        "observe": lambda: page.observe("the Add button", max_total_tokens=10),
        "agent": lambda: page.agent("add the lamp to the cart", max_total_tokens=10),
        "workflow": lambda: page.workflow("1. add the lamp to the cart", max_total_tokens=10),
    }
    first_request = {"workflow": "checklist"}  # a workflow first writes its checklist
    for kind, call in calls.items():
        with pytest.raises(BudgetExceededError) as refused:
            await call()
        # The call's first request is the one refused: nothing ran on without the model.
        assert refused.value.call.startswith(f"{kind}("), kind
        assert f"a model request ({first_request.get(kind, kind)})" in str(refused.value)
    assert llm.calls == 0


async def test_a_cap_ends_an_agent_run_at_once_instead_of_failing_step_after_step(
    async_page: AsyncPage, caplog: pytest.LogCaptureFixture
) -> None:
    llm = AsyncScriptedLLM()
    page = await _shop(AsyncStagehand(llm=llm), async_page)
    with caplog.at_level(logging.INFO, logger="stagehand_py"), pytest.raises(BudgetExceededError):
        await page.agent("add the lamp to the cart", max_total_tokens=10, max_failures=2)
    assert not [r for r in caplog.records if "failed" in r.getMessage()]  # no step ran on
    assert llm.calls == 0


async def test_a_re_ask_is_a_request_too_and_is_refused_when_it_would_cross(
    async_page: AsyncPage,
) -> None:
    # The first answer does not fit the schema and is long: the re-ask it calls for would
    # take the call past its cap, so it is never sent.
    llm = AsyncScriptedLLM({"elements": "x" * 40_000}, observe_answer(2))
    stagehand = AsyncStagehand(llm=llm)
    page = await _shop(stagehand, async_page)
    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button", max_total_tokens=9_000, max_tokens=200)
    assert llm.calls == 1
    error = refused.value
    assert error.usage.requests == 1 and error.spent >= 10_000
    assert "a further model request (observe, after 1 sent)" in str(error)
    [record] = stagehand.history
    assert record.llm_calls == 1 and record.usage.completion_tokens >= 10_000


@pytest.mark.no_sync_twin
async def test_failed_requests_count_against_the_caps(async_page: AsyncPage) -> None:
    failed = ProviderError("scripted", "http://127.0.0.1", "the server broke")
    failed.usage = Usage(requests=1, prompt_tokens=3_000, completion_tokens=0)
    llm = AsyncScriptedLLM(failed)
    stagehand = AsyncStagehand(llm=llm, max_total_tokens=3_000)
    page = await _shop(stagehand, async_page)
    with pytest.raises(ProviderError):
        await page.observe("the Add button", max_tokens=100)
    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button", max_tokens=100)
    assert refused.value.spent == 3_000 and llm.calls == 1
