"""act() on a real page with the real provider clients talking to the loopback fake server:
the whole LLM layer under the SDK, and usage summed per call and per session."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel

from stagehand_py import ActError, AsyncStagehand, ExtractError, ProviderError
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
@pytest.mark.no_sync_twin
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
@pytest.mark.no_sync_twin
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


# -- every request counted, failed or not (issue #13 item 8, #14 item 7) ----------------------

_PLACE_LINE = re.compile(r"^(\d+):<button\b[^>]*>Place order", re.MULTILINE)
_SELECT_LINE = re.compile(r"^(\d+):<select\b", re.MULTILINE)


def make_llm(provider: str, server: LLMWireServer, **options: Any) -> Any:
    options.setdefault("max_retries", 0)
    if provider == "openai":
        return AsyncOpenAILLM("gpt-test", base_url=server.openai_base_url, api_key="k", **options)
    return AsyncAnthropicLLM("claude-test", base_url=server.anthropic_base_url, **options)


def choose(provider: str, line: re.Pattern[str], method: str, *args: str, done: bool) -> Any:
    def answer(request: ReceivedRequest) -> dict[str, Any]:
        found = line.search(prompt_text(request.body))
        assert found, "the prompt does not show the element"
        arguments = {"method": method, "element": int(found.group(1)), "args": list(args)}
        arguments |= {"step": method, "why": "asked to", "completed": done}
        return answer_with_a_tool(provider, "doAction", arguments)

    return answer


def error_reply(provider: str, message: str) -> dict[str, Any]:
    if provider == "openai":
        return {"error": {"message": message, "type": "invalid_request_error"}}
    return {"type": "error", "error": {"type": "authentication_error", "message": message}}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("raise_on_failure", [True, False])
@pytest.mark.no_sync_twin
async def test_an_act_whose_model_fails_keeps_its_record(
    provider: str,
    raise_on_failure: bool,
    llm_server: LLMWireServer,
    async_page: AsyncPage,
    pages_url: str,
) -> None:
    llm_server.reply(choose(provider, _SELECT_LINE, "select_option", "3", done=False))
    llm_server.reply(error_reply(provider, "key revoked"), status=401)
    stagehand = AsyncStagehand(llm=make_llm(provider, llm_server))
    page = stagehand.wrap(async_page)
    await page.goto(f"{pages_url}llm/order.html")

    if raise_on_failure:
        with pytest.raises(ActError) as caught:
            await page.act("order 3 candles and place the order")
        result = caught.value.result
        assert caught.value.code == "MODEL_ERROR"
    else:
        result = await page.act("order 3 candles and place the order", raise_on_failure=False)

    assert not result.success and result.code == "MODEL_ERROR"
    assert "HTTP 401: key revoked" in result.message
    assert await page.input_value("#qty") == "3"  # the action before the failure was done
    [record] = stagehand.history
    assert not record.success and [a.method for a in record.actions] == ["select_option"]
    assert record.llm_calls == 2 and record.usage.requests == 2
    assert record.usage.prompt_tokens == 100  # the first answer's tokens; the 401 had none
    assert stagehand.usage.of("act").requests == 2


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.no_sync_twin
async def test_a_verify_that_never_validates_after_a_click(
    provider: str, llm_server: LLMWireServer, async_page: AsyncPage, pages_url: str
) -> None:
    llm_server.reply(choose(provider, _PLACE_LINE, "click", done=True))
    llm_server.reply(answer_with_a_tool(provider, "VerifyAnswer", {"completed": "maybe"}), times=2)
    stagehand = AsyncStagehand(llm=make_llm(provider, llm_server))
    page = stagehand.wrap(async_page)
    await page.goto(f"{pages_url}llm/order.html")

    with pytest.raises(ActError) as caught:
        await page.act("place the order")

    assert caught.value.code == "MODEL_ERROR"
    assert "VerifyAnswer" in str(caught.value)
    assert await page.locator("#confirmation").is_visible()
    [record] = stagehand.history
    assert [a.method for a in record.actions] == ["click"]
    assert record.llm_calls == 3 == record.usage.requests  # the chat, the verify, its re-ask


class Receipt(BaseModel):
    number: str
    total_eur: float


@pytest.mark.no_sync_twin
async def test_a_failed_extract_is_recorded_with_its_requests(
    llm_server: LLMWireServer, async_page: AsyncPage, pages_url: str
) -> None:
    bad = answer_with_a_tool("openai", "ExtractAnswer", {"data": {"total_eur": "lots"}})
    llm_server.reply(bad, times=3)
    stagehand = AsyncStagehand(llm=make_llm("openai", llm_server))
    page = stagehand.wrap(async_page)
    await page.goto(f"{pages_url}llm/order.html")

    with pytest.raises(ExtractError):
        await page.extract("the receipt", schema=Receipt)

    [record] = stagehand.history
    assert not record.success
    assert record.llm_calls == 3 and record.usage.requests == 3  # the answer and 2 re-asks
    assert record.usage.prompt_tokens == 300 and record.usage.completion_tokens == 30
    assert stagehand.usage.of("extract") == record.usage


@pytest.mark.no_sync_twin
async def test_a_failed_observe_and_a_re_asked_one_are_counted(
    llm_server: LLMWireServer, async_page: AsyncPage, pages_url: str
) -> None:
    llm_server.reply(
        error_reply("openai", "overloaded"), status=500, headers={"retry-after-ms": "1"}
    )
    llm_server.reply(error_reply("openai", "overloaded"), status=500)
    llm_server.reply(answer_with_a_tool("openai", "ObserveAnswer", {"elements": "none"}))
    llm_server.reply(answer_with_a_tool("openai", "ObserveAnswer", {"elements": []}))
    stagehand = AsyncStagehand(llm=make_llm("openai", llm_server, max_retries=1))
    page = stagehand.wrap(async_page)
    await page.goto(f"{pages_url}llm/newsletter.html")

    with pytest.raises(ProviderError, match="overloaded"):
        await page.observe("the subscribe button")
    assert await page.observe("the subscribe button") == []

    failed, reasked = stagehand.history
    assert (failed.success, failed.llm_calls, failed.usage.requests) == (False, 2, 2)
    assert (reasked.success, reasked.llm_calls, reasked.usage.requests) == (True, 2, 2)
    assert stagehand.usage.of("observe").requests == 4 == len(llm_server.requests)


_FIELD_LINE = r"^(\d+):<input\b[^>]*{}"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.no_sync_twin
async def test_several_actions_in_one_reply_over_the_wire(
    provider: str, llm_server: LLMWireServer, async_page: AsyncPage, pages_url: str
) -> None:
    # One reply holding three doAction calls (OpenAI tool_calls / Anthropic tool_use blocks):
    # all three run, in order, from one request.
    plan = [("first_name", "fill", ["Ada"]), ("last_name", "fill", ["Lovelace"])]
    plan.append(("terms", "check", []))

    def fill_in_one_reply(request: ReceivedRequest) -> dict[str, Any]:
        prompt = prompt_text(request.body)
        calls = []
        for n, (field, method, args) in enumerate(plan, 1):
            found = re.search(_FIELD_LINE.format(field), prompt, re.MULTILINE)
            assert found, f"the prompt shows no {field} field"
            arguments = {"method": method, "element": int(found.group(1)), "args": args}
            arguments |= {"step": f"{method} {field}", "why": "asked to", "completed": n == 3}
            calls.append((f"call_{n}", arguments))
        if provider == "openai":
            tools = [openai_tool_call("doAction", a, call_id=i) for i, a in calls]
            return openai_completion(tool_calls=tools)
        return anthropic_message([anthropic_tool_use("doAction", a, block_id=i) for i, a in calls])

    llm_server.reply(fill_in_one_reply)
    llm_server.reply(answer_with_a_tool(provider, "VerifyAnswer", {"completed": True}))
    page = AsyncStagehand(llm=make_llm(provider, llm_server)).wrap(async_page)
    await page.goto(f"{pages_url}form.html")

    result = await page.act("fill in Ada Lovelace and accept the terms")

    assert result.success, result.message
    assert [a.method for a in result.actions] == ["fill", "fill", "check"]
    assert await page.input_value("#first-name") == "Ada"
    assert await page.input_value("#last-name") == "Lovelace"
    assert await page.is_checked("#terms")
    assert len(llm_server.bodies) == 2  # one act request, one verify
