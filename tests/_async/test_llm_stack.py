"""act() on a real page with the real provider clients talking to the loopback fake server:
the whole LLM layer under the SDK, and usage summed per call and per session."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py._async.llm.anthropic import AsyncAnthropicLLM
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py.llm import PriceTable, Usage
from stagehand_py.prompts.act import ACT_TOOLS
from tests import secret_values
from tests.llm_wire_server import (
    LLMWireServer,
    ReceivedRequest,
    anthropic_message,
    anthropic_tool_use,
    openai_completion,
    openai_tool_call,
    prompt_text,
)

_BUTTON_LINE = re.compile(r"^(\d+):<button\b", re.MULTILINE)


def answer_with_a_tool(provider: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if provider == "openai":
        return openai_completion(
            tool_calls=[openai_tool_call(name, arguments)],
            prompt_tokens=100,
            completion_tokens=10,
            cached_tokens=60,
        )
    return anthropic_message(
        [anthropic_tool_use(name, arguments)],
        input_tokens=40,
        output_tokens=10,
        cache_read_input_tokens=60,
    )


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_act_over_the_wire(
    provider: str, llm_server: LLMWireServer, async_page: AsyncPage, pages_url: str
) -> None:
    def click_the_button(request: ReceivedRequest) -> dict[str, Any]:
        # Like a model: read the element number off the section shown in the prompt.
        found = _BUTTON_LINE.search(prompt_text(request.body))
        assert found, "the prompt shows no button"
        arguments = {"method": "click", "element": int(found.group(1)), "args": []}
        arguments |= {"step": "click Hi", "why": "asked to", "completed": True}
        return answer_with_a_tool(provider, "doAction", arguments)

    llm_server.reply(click_the_button)
    llm_server.reply(answer_with_a_tool(provider, "VerifyAnswer", {"completed": True}))
    if provider == "openai":
        llm: Any = AsyncOpenAILLM("gpt-test", base_url=llm_server.openai_base_url, api_key="k")
    else:
        llm = AsyncAnthropicLLM("claude-test", base_url=llm_server.anthropic_base_url)
    prices = PriceTable.of({llm.model: {"input": 1.0, "cached_input": 0.5, "output": 2.0}})
    stagehand = AsyncStagehand(llm=llm, prices=prices)
    page = stagehand.wrap(async_page)
    await page.goto(f"{pages_url}hello.html")

    result = await page.act("click the Hi button")

    assert result.success, result.message
    chat, verify = llm_server.bodies
    assert "tools" in chat and len(chat["tools"]) == len(ACT_TOOLS)
    assert [t.get("name") or t["function"]["name"] for t in verify["tools"]] == ["VerifyAnswer"]
    each = Usage(requests=1, prompt_tokens=100, completion_tokens=10, cached_tokens=60)
    assert result.usage.model_copy(update={"wall_time_s": 0.0}) == each + each
    assert result.usage.wall_time_s > 0.0
    assert stagehand.usage.of("act") == result.usage
    assert stagehand.usage.cost(llm.model) == pytest.approx((80 * 1.0 + 120 * 0.5 + 20 * 2.0) / 1e6)


_PASSWORD_LINE = re.compile(r"^(\d+):<input\b[^>]*password", re.MULTILINE)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_variable_values_never_go_over_the_wire(
    provider: str, llm_server: LLMWireServer, async_page: AsyncPage, pages_url: str
) -> None:
    def fill_the_password(request: ReceivedRequest) -> dict[str, Any]:
        found = _PASSWORD_LINE.search(prompt_text(request.body))
        assert found, "the prompt shows no password field"
        arguments = {"method": "fill", "element": int(found.group(1)), "args": ["<|PASSWORD|>"]}
        arguments |= {"step": "type the password", "why": "asked to", "completed": True}
        return answer_with_a_tool(provider, "doAction", arguments)

    llm_server.reply(fill_the_password)
    llm_server.reply(answer_with_a_tool(provider, "VerifyAnswer", {"completed": True}))
    if provider == "openai":
        llm: Any = AsyncOpenAILLM("gpt-test", base_url=llm_server.openai_base_url, api_key="k")
    else:
        llm = AsyncAnthropicLLM("claude-test", base_url=llm_server.anthropic_base_url)
    page = AsyncStagehand(llm=llm).wrap(async_page)
    await page.goto(f"{pages_url}form.html")
    # The page echoes what it is given: the email field already shows the secret value.
    await page.fill("#email", secret_values.EMAIL)

    result = await page.act(
        "type the password",
        variables={"password": secret_values.PASSWORD, "email": secret_values.EMAIL},
    )

    assert result.success, result.message
    assert await page.input_value("#password") == secret_values.PASSWORD
    sent = "\n".join(prompt_text(body) for body in llm_server.bodies)
    assert "<|PASSWORD|>" in sent and "<|EMAIL|>" in sent  # the echo was redacted
    # (the llm_server fixture also scans every body for every secret value)
