"""Every model request a failed extract() sent is counted, in its history record and in the
session's total: answers that never validated followed by an error (from the package's fake,
and over the wire from the real OpenAI client), and a request abandoned at the deadline."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import AsyncStagehand, ProviderError, StagehandTimeoutError
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py.llm import Message, StructuredResponse
from stagehand_py.testing import AsyncScriptedLLM
from tests.llm_wire_server import LLMWireServer, openai_completion, openai_tool_call

PAGE = "<h1>Order 42</h1><p>Total: 19.50 EUR</p>"


class Receipt(BaseModel):
    number: str
    total_eur: float


def _invalid_then_failing(kind: str, llm_server: LLMWireServer) -> Any:
    """A model whose two answers do not validate, then whose third request fails."""
    invalid = {"data": {"total_eur": "lots"}, "complete": True}
    if kind == "fake":
        down = ProviderError("scripted", "fake", "the model is down")
        return AsyncScriptedLLM(invalid, invalid, down)
    answer = openai_completion(tool_calls=[openai_tool_call("ExtractAnswer", invalid)])
    llm_server.reply(answer, times=2)
    llm_server.reply({"error": {"message": "the model is down", "type": "x"}}, status=400)
    return AsyncOpenAILLM("gpt-test", base_url=llm_server.openai_base_url, max_retries=0)


@pytest.mark.parametrize("kind", ["fake", "wire"])
@pytest.mark.no_sync_twin
async def test_re_asks_then_an_error_count_every_request(
    kind: str, llm_server: LLMWireServer, async_page: AsyncPage
) -> None:
    stagehand = AsyncStagehand(llm=_invalid_then_failing(kind, llm_server), max_reasks=2)
    page = stagehand.wrap(async_page)
    await page.set_content(PAGE)

    with pytest.raises(ProviderError, match="the model is down"):
        await page.extract("the receipt", schema=Receipt)

    [record] = stagehand.history
    assert not record.success
    assert (record.llm_calls, record.usage.requests) == (3, 3)
    assert stagehand.usage.total.requests == 3
    assert stagehand.usage.of("extract") == record.usage


class HungModel:
    """A model object of the user's own that never answers."""

    model = "hung"

    async def chat(self, messages: list[Message], tools: Any, **keywords: Any) -> Any:
        await asyncio.sleep(10)

    async def structured(
        self, messages: list[Message], schema: type[Any], **keywords: Any
    ) -> StructuredResponse[Any]:
        await asyncio.sleep(10)
        raise AssertionError("the call should have ended at its deadline")


@pytest.mark.parametrize("kind", ["user-object", "wire"])
async def test_a_request_abandoned_at_the_deadline_counts(
    kind: str, llm_server: LLMWireServer, async_page: AsyncPage
) -> None:
    llm: Any = HungModel()
    if kind == "wire":
        llm_server.reply(openai_completion(content="{}"), delay=30.0)
        llm = AsyncOpenAILLM("gpt-test", base_url=llm_server.openai_base_url, timeout=30)
    stagehand = AsyncStagehand(llm=llm)
    page = stagehand.wrap(async_page)
    await page.set_content(PAGE)

    with pytest.raises(StagehandTimeoutError):
        await page.extract("the receipt", schema=Receipt, timeout_s=2.0)

    [record] = stagehand.history
    assert (record.llm_calls, record.usage.requests) == (1, 1)
    assert stagehand.usage.total.requests == 1
