"""The caller's deadline on the wire (``RequestOptions.timeout_s``): at the deadline the client
closes the HTTP connection (the server sees it close and can drop the work), no retry starts
that could not finish in time, and nothing more is sent."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py._async.llm.anthropic import AsyncAnthropicLLM
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py._errors import ProviderError
from stagehand_py.llm import Message, RequestOptions
from stagehand_py.prompts.act import ACT_TOOLS
from tests.llm_wire_server import (
    LLMWireServer,
    anthropic_error,
    anthropic_message,
    anthropic_tool_use,
    openai_completion,
    openai_error,
    openai_tool_call,
)

PROVIDERS = ["openai", "anthropic"]
CLICK = {"method": "click", "element": 3, "args": [], "step": "s", "why": "w", "completed": True}


def make_llm(provider: str, server: LLMWireServer) -> AsyncOpenAILLM | AsyncAnthropicLLM:
    # A generous client timeout: only the caller's deadline can end these requests early.
    if provider == "openai":
        return AsyncOpenAILLM(
            "gpt-test", base_url=server.openai_base_url, timeout=30, max_retries=2
        )
    return AsyncAnthropicLLM(
        "claude-test", base_url=server.anthropic_base_url, timeout=30, max_retries=2
    )


def answer(provider: str) -> dict[str, Any]:
    if provider == "openai":
        return openai_completion(tool_calls=[openai_tool_call("doAction", CLICK)])
    return anthropic_message([anthropic_tool_use("doAction", CLICK)])


def conversation() -> list[Message]:
    return [Message(role="user", content="Click the Buy button.\n3:<button>Buy</button>")]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_connection_closes_at_the_deadline(
    provider: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(answer(provider), delay=20.0, times=3)
    llm = make_llm(provider, llm_server)
    started = time.monotonic()

    with pytest.raises(ProviderError) as caught:
        await llm.chat(conversation(), ACT_TOOLS, options=RequestOptions(timeout_s=0.75))

    assert time.monotonic() - started < 0.75 + 1.0
    [closed] = llm_server.wait_for_disconnects(1)  # the server saw the client hang up
    assert closed.waited_s < 0.75 + 1.0
    assert "timeout_s" in caught.value.reason and "max_tokens" in caught.value.reason
    # Nothing more is sent after the deadline: no retry, no second request.
    assert len(llm_server.wait_for_requests(2, timeout=1.5)) == 1
    assert caught.value.usage.requests == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_no_retry_that_cannot_finish_in_time(
    provider: str, llm_server: LLMWireServer
) -> None:
    busy = openai_error("busy") if provider == "openai" else anthropic_error("busy")
    llm_server.reply(busy, status=503, headers={"retry-after": "5"}, times=3)
    llm = make_llm(provider, llm_server)
    started = time.monotonic()

    with pytest.raises(ProviderError, match="not retried") as caught:
        await llm.chat(conversation(), ACT_TOOLS, options=RequestOptions(timeout_s=3.0))

    assert time.monotonic() - started < 3.0
    assert "HTTP 503: busy" in caught.value.reason
    assert len(llm_server.wait_for_requests(2, timeout=1.0)) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_retry_that_fits_is_sent(provider: str, llm_server: LLMWireServer) -> None:
    busy = openai_error("busy") if provider == "openai" else anthropic_error("busy")
    llm_server.reply(busy, status=503, headers={"retry-after-ms": "10"})
    llm_server.reply(answer(provider))
    llm = make_llm(provider, llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS, options=RequestOptions(timeout_s=10.0))

    assert response.tool_calls[0].arguments == CLICK
    assert response.usage.requests == 2  # the failed request counts too


@pytest.mark.parametrize("page_name", ["newsletter.html", "order.html"])
async def test_an_act_waiting_on_a_hung_model_ends_on_time(
    page_name: str, llm_server: LLMWireServer, async_page: AsyncPage, pages_url: str
) -> None:
    llm_server.reply(answer("openai"), delay=30.0, times=3)
    llm = make_llm("openai", llm_server)
    stagehand = AsyncStagehand(llm=llm)
    page = stagehand.wrap(async_page)
    await page.goto(f"{pages_url}llm/{page_name}")
    started = time.monotonic()

    result = await page.act("click the main button", timeout_s=2.0, raise_on_failure=False)

    assert time.monotonic() - started < 2.0 + 1.0
    assert result.code == "TIMEOUT"
    assert "waiting for the model" in result.message and "max_tokens" in result.message
    assert llm_server.wait_for_disconnects(1)
    assert len(llm_server.wait_for_requests(2, timeout=1.5)) == 1
    [record] = stagehand.history
    assert record.llm_calls == 1 and not record.success
