"""Hard spending caps over the real OpenAI and Anthropic clients, against the loopback wire
server: a request that would cross a cap (the call's, the Stagehand's) never reaches the
server, what the sent requests cost is what the caps count, failed ones included.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand, BudgetExceededError, PriceTable, StructuredOutputError
from stagehand_py._async.llm.anthropic import AsyncAnthropicLLM
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py.testing import observe_answer
from tests.llm_wire_server import (
    LLMWireServer,
    anthropic_message,
    anthropic_tool_use,
    openai_completion,
    openai_tool_call,
)

PAGE = "<h1>Shop</h1><p>Lamp: 16.13 EUR</p><button>Add</button>"
PROVIDERS = ["openai", "anthropic"]
# US dollars per million tokens: input, output.
PRICE = {"input": 1.0, "output": 4.0}


def _stagehand(provider: str, server: LLMWireServer, **caps: Any) -> AsyncStagehand:
    llm: Any
    if provider == "openai":
        llm = AsyncOpenAILLM("gpt-test", base_url=server.openai_base_url, api_key="k")
    else:
        llm = AsyncAnthropicLLM("claude-test", base_url=server.anthropic_base_url, api_key="k")
    return AsyncStagehand(llm=llm, prices=PriceTable.of({llm.model: PRICE}), **caps)


def _observed(provider: str, arguments: Any, *, prompt_tokens: int) -> dict[str, Any]:
    """The provider's answer calling the observe tool, billed ``prompt_tokens`` and 5 more."""
    if provider == "openai":
        call = openai_tool_call("ObserveAnswer", arguments)
        return openai_completion(tool_calls=[call], prompt_tokens=prompt_tokens)
    use = anthropic_tool_use("ObserveAnswer", arguments)
    return anthropic_message([use], input_tokens=prompt_tokens)


def _the_add_button(provider: str, *, prompt_tokens: int = 10) -> dict[str, Any]:
    found = observe_answer(2).model_dump(mode="json")
    return _observed(provider, found, prompt_tokens=prompt_tokens)


async def _shop(stagehand: AsyncStagehand, async_page: AsyncPage) -> Any:
    page = stagehand.wrap(async_page)
    await page.set_content(PAGE)
    return page


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("cap", "limit"), [("max_total_tokens", 500), ("max_cost_usd", 0.0005)])
@pytest.mark.no_sync_twin
async def test_a_calls_cap_refuses_its_first_request_before_it_reaches_the_server(
    provider: str, cap: str, limit: float, llm_server: LLMWireServer, async_page: AsyncPage
) -> None:
    page = await _shop(_stagehand(provider, llm_server), async_page)

    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button", **{cap: limit})

    assert llm_server.requests == []
    error = refused.value
    assert (error.scope, error.cap, error.limit, error.spent) == ("call", cap, limit, 0)
    assert error.request > limit and error.call == "observe('the Add button')"
    # The same call without the cap goes out: the client really talks to the server.
    llm_server.reply(_the_add_button(provider))
    assert len(await page.observe("the Add button")) == 1
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(("cap", "limit"), [("max_total_tokens", 31_000), ("max_cost_usd", 0.031)])
@pytest.mark.no_sync_twin
async def test_a_stagehands_cap_counts_what_the_server_billed_and_refuses_the_next_request(
    provider: str, cap: str, limit: float, llm_server: LLMWireServer, async_page: AsyncPage
) -> None:
    stagehand = _stagehand(provider, llm_server, **{cap: limit})
    page = await _shop(stagehand, async_page)
    # The first request fits (its worst case is a few thousand tokens); the server bills
    # 30,000 prompt tokens and 5 answer tokens: 30,005 tokens, $0.03002.
    llm_server.reply(_the_add_button(provider, prompt_tokens=30_000))
    assert len(await page.observe("the Add button", max_tokens=1_000)) == 1

    # What is left (995 tokens, $0.00098) is less than the answer budget alone.
    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button", max_tokens=1_000)

    assert len(llm_server.requests) == 1
    error = refused.value
    assert (error.scope, error.cap, error.limit) == ("Stagehand", cap, limit)
    billed = 30_005 if cap == "max_total_tokens" else 30_000 * 1e-6 + 5 * 4e-6
    assert error.spent == pytest.approx(billed)
    assert stagehand.history[-1].message.startswith("BudgetExceededError: observe(")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_failed_requests_count_against_the_caps(
    provider: str, llm_server: LLMWireServer, async_page: AsyncPage
) -> None:
    stagehand = _stagehand(provider, llm_server, max_total_tokens=31_000)
    page = await _shop(stagehand, async_page)
    # Every answer is billed 10,000 prompt tokens and never validates: the call fails.
    llm_server.reply(_observed(provider, {"elements": "none"}, prompt_tokens=10_000), times=3)
    with pytest.raises(StructuredOutputError):
        await page.observe("the Add button", max_tokens=1_000)
    sent = len(llm_server.requests)
    assert sent == 3  # the request and its two re-asks

    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button", max_tokens=1_000)

    assert len(llm_server.requests) == sent
    assert refused.value.spent == 3 * 10_005


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_a_re_ask_is_checked_before_it_goes_out(
    provider: str, llm_server: LLMWireServer, async_page: AsyncPage
) -> None:
    stagehand = _stagehand(provider, llm_server)
    page = await _shop(stagehand, async_page)
    # The answer does not validate and was billed 8,000 prompt tokens: its re-ask would
    # take the call past its 6,000 tokens.
    llm_server.reply(_observed(provider, {"elements": "not a list"}, prompt_tokens=8_000))

    with pytest.raises(BudgetExceededError) as refused:
        await page.observe("the Add button", max_total_tokens=6_000, max_tokens=100)

    assert len(llm_server.requests) == 1
    error = refused.value
    assert error.usage.requests == 1 and error.usage.prompt_tokens == 8_000
    assert "a further model request (observe, after 1 sent)" in str(error)
    assert stagehand.history[-1].usage.prompt_tokens == 8_000  # the sent request is counted
