"""The real openai and anthropic clients against the loopback fake server (tests/llm_wire_server).

Each case runs for both providers where it applies. Retry delays are kept short with the
``retry-after-ms`` header the SDKs honour.
"""

from __future__ import annotations

import base64
import socket
from typing import Any

import pytest
from pydantic import BaseModel

from stagehand_py._act_decision import InvalidReply, decide
from stagehand_py._async.llm.anthropic import AsyncAnthropicLLM
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py._errors import ProviderError, RealRequestsBlockedError, StructuredOutputError
from stagehand_py.llm import ImagePart, Message, RequestOptions, ToolCall
from stagehand_py.prompts.act import ACT_TOOLS
from tests.llm_wire_server import (
    LLMWireServer,
    anthropic_error,
    anthropic_message,
    anthropic_text,
    anthropic_tool_use,
    openai_completion,
    openai_error,
    openai_tool_call,
)

PROVIDERS = ["openai", "anthropic"]
FAST_RETRY = {"retry-after-ms": "1"}
CLICK = {"method": "click", "element": 3, "args": [], "step": "s", "why": "w", "completed": True}
KEY = "sk-wire-test-key"


class Product(BaseModel):
    name: str
    price: float


def make_llm(
    provider: str, server: LLMWireServer, **options: Any
) -> AsyncOpenAILLM | AsyncAnthropicLLM:
    options.setdefault("api_key", KEY)
    options.setdefault("max_retries", 0)
    options.setdefault("timeout", 5.0)
    if provider == "openai":
        return AsyncOpenAILLM("gpt-test", base_url=server.openai_base_url, **options)
    return AsyncAnthropicLLM("claude-test", base_url=server.anthropic_base_url, **options)


def tool_reply(provider: str, name: str, arguments: Any, **usage: Any) -> dict[str, Any]:
    if provider == "openai":
        return openai_completion(tool_calls=[openai_tool_call(name, arguments)], **usage)
    return anthropic_message([anthropic_tool_use(name, arguments)], **usage)


def text_reply(provider: str, text: str) -> dict[str, Any]:
    if provider == "openai":
        return openai_completion(content=text)
    return anthropic_message([anthropic_text(text)])


def error_body(provider: str, message: str) -> dict[str, Any]:
    return openai_error(message) if provider == "openai" else anthropic_error(message)


def conversation() -> list[Message]:
    return [
        Message(role="system", content="You drive a web page."),
        Message(role="user", content="Click the Buy button.\n3:<button>Buy</button>"),
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_tool_call_round_trip(provider: str, llm_server: LLMWireServer) -> None:
    llm_server.reply(tool_reply(provider, "doAction", CLICK))
    llm = make_llm(provider, llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS)

    [call] = response.tool_calls
    assert (call.name, call.arguments, call.arguments_error) == ("doAction", CLICK, None)
    [request] = llm_server.requests
    body = request.body
    if provider == "openai":
        assert request.path == "/v1/chat/completions"
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert body["tool_choice"] == "required"
        assert [t["function"]["name"] for t in body["tools"]] == [t.name for t in ACT_TOOLS]
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
    else:
        assert request.path == "/v1/messages"
        auth = request.headers.get("authorization", "").removeprefix("Bearer ")
        assert KEY in (request.headers.get("x-api-key"), auth)  # SDK versions differ
        assert body["tool_choice"] == {"type": "any"}
        assert body["tools"][0]["input_schema"] == ACT_TOOLS[0].parameters
        assert body["system"] == "You drive a web page."
        assert [m["role"] for m in body["messages"]] == ["user"]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_no_tool_call_returns_the_text(provider: str, llm_server: LLMWireServer) -> None:
    llm_server.reply(text_reply(provider, "I am not sure what to click."))
    llm = make_llm(provider, llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS, tool_choice="auto")

    assert response.tool_calls == []
    assert response.text == "I am not sure what to click."
    sent = llm_server.bodies[0]["tool_choice"]
    assert sent == ("auto" if provider == "openai" else {"type": "auto"})
    assert isinstance(decide(response, {3}), InvalidReply)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_arguments_that_are_not_json(provider: str, llm_server: LLMWireServer) -> None:
    # OpenAI sends arguments as text; a broken server can send Anthropic input as a string.
    llm_server.reply(tool_reply(provider, "doAction", '{"method": "click", "element": 3'))
    llm = make_llm(provider, llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS)

    [call] = response.tool_calls
    assert call.arguments == {}
    assert call.arguments_error is not None and "invalid JSON" in call.arguments_error
    assert call.raw_arguments == '{"method": "click", "element": 3'
    decision = decide(response, {3})
    assert isinstance(decision, InvalidReply) and "not a valid JSON object" in decision.error


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_arguments_that_fail_validation_are_re_asked(
    provider: str, llm_server: LLMWireServer
) -> None:
    bad = {"method": "explode", "element": 3}
    llm_server.reply(tool_reply(provider, "doAction", bad))
    llm_server.reply(tool_reply(provider, "doAction", CLICK))
    llm = make_llm(provider, llm_server)

    first = await llm.chat(conversation(), ACT_TOOLS)
    decision = decide(first, {3})
    assert isinstance(decision, InvalidReply) and first.tool_calls[0].arguments == bad
    call = first.tool_calls[0]
    reask = [
        *conversation(),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", tool_call_id=call.id, content=decision.error, is_error=True),
    ]
    second = await llm.chat(reask, ACT_TOOLS)

    assert second.tool_calls[0].arguments == CLICK
    sent = llm_server.bodies[1]["messages"]
    if provider == "openai":
        assert sent[2]["tool_calls"][0]["id"] == call.id
        assert sent[2]["tool_calls"][0]["function"]["name"] == "doAction"
        assert sent[3] == {"role": "tool", "tool_call_id": call.id, "content": decision.error}
    else:
        assert sent[1]["content"] == [
            {"type": "tool_use", "id": call.id, "name": "doAction", "input": bad}
        ]
        assert sent[2] == {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": call.id,
                    "content": decision.error,
                    "is_error": True,
                }
            ],
        }


@pytest.mark.no_sync_twin
async def test_json_text_tool_call_from_a_compatible_server(llm_server: LLMWireServer) -> None:
    call_json = '{"name": "doAction", "arguments": {"method": "click", "element": 3}}'
    text = f"Sure.\n```json\n{call_json}\n```"
    llm_server.reply(openai_completion(content=text))
    llm = make_llm("openai", llm_server, api_key=None)  # a local server: no key needed

    response = await llm.chat(conversation(), ACT_TOOLS)

    [call] = response.tool_calls
    assert (call.name, call.arguments) == ("doAction", {"method": "click", "element": 3})
    assert response.text == text


@pytest.mark.no_sync_twin
async def test_server_without_tools_gets_a_json_schema_format(llm_server: LLMWireServer) -> None:
    llm_server.reply(openai_error("model tiny does not support tools"), status=400)
    answer = '{"name": "skipSection", "arguments": {"reason": "no button here"}}'
    llm_server.reply(openai_completion(content=answer), times=2)
    llm = make_llm("openai", llm_server, api_key=None)

    first = await llm.chat(conversation(), ACT_TOOLS)
    call = first.tool_calls[0]
    reask = [
        *conversation(),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", tool_call_id=call.id, content="Try again.", is_error=True),
    ]
    second = await llm.chat(reask, ACT_TOOLS)

    for response in (first, second):
        assert [(c.name, c.arguments) for c in response.tool_calls] == [
            ("skipSection", {"reason": "no button here"})
        ]
    rejected, fallback, direct = llm_server.bodies
    assert "tools" in rejected
    for body in (fallback, direct):  # once refused, tools are not offered again
        assert "tools" not in body
        assert body["response_format"]["type"] == "json_schema"
        schema = body["response_format"]["json_schema"]["schema"]
        assert schema["properties"]["name"]["enum"] == [t.name for t in ACT_TOOLS]
        system = body["messages"][0]
        assert system["role"] == "system" and "skipSection" in system["content"]
        assert system["content"].startswith("You drive a web page.")
    # Earlier calls and results travel as plain text a tool-less server accepts.
    assert [m["role"] for m in direct["messages"]] == ["system", "user", "assistant", "user"]
    assert "skipSection" in direct["messages"][2]["content"]
    assert direct["messages"][3]["content"] == "Tool error: Try again."
    assert all(set(m) == {"role", "content"} for m in direct["messages"])
    # Learned: tool requests to this client start at the json_schema rung from now on.
    assert isinstance(llm, AsyncOpenAILLM) and llm.ladder.current("tools") == "json_schema"


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_structured_output_with_one_re_ask(provider: str, llm_server: LLMWireServer) -> None:
    llm_server.reply(tool_reply(provider, "Product", {"name": "Lamp"}))
    llm_server.reply(tool_reply(provider, "Product", {"name": "Lamp", "price": 19.5}))
    llm = make_llm(provider, llm_server)

    answer = await llm.structured(conversation(), Product, max_retries=1)

    assert answer.value == Product(name="Lamp", price=19.5)
    assert answer.attempts == 2
    assert answer.usage.requests == 2
    assert answer.usage.prompt_tokens == 20
    first, second = llm_server.bodies
    last = second["messages"][-1]
    if provider == "openai":
        assert first["tool_choice"] == {"type": "function", "function": {"name": "Product"}}
        result = second["messages"][-2]
        assert result["role"] == "tool" and "price" in result["content"]
        assert "Field required" in result["content"]
        # A local server's template may drop tool messages: the error also goes as user text.
        assert last["role"] == "user" and "Field required" in last["content"]
    else:
        assert first["tool_choice"]["type"] == "tool"
        [result] = last["content"]
        assert result["type"] == "tool_result" and result["is_error"] is True
        assert "price" in result["content"]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin(keep=["openai"])
async def test_structured_output_that_never_validates(
    provider: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(tool_reply(provider, "Product", {"name": "Lamp", "price": "cheap"}), times=2)
    llm = make_llm(provider, llm_server)

    with pytest.raises(StructuredOutputError) as caught:
        await llm.structured(conversation(), Product, max_retries=1)

    assert caught.value.last_answer == {"name": "Lamp", "price": "cheap"}
    assert "price" in caught.value.errors
    assert len(llm_server.requests) == 2


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_429_then_success(provider: str, llm_server: LLMWireServer) -> None:
    llm_server.reply(error_body(provider, "slow down"), status=429, headers=FAST_RETRY)
    llm_server.reply(tool_reply(provider, "doAction", CLICK))
    llm = make_llm(provider, llm_server, max_retries=2)

    response = await llm.chat(conversation(), ACT_TOOLS)

    assert response.tool_calls[0].arguments == CLICK
    assert len(llm_server.requests) == 2  # the SDK's own retry
    assert llm_server.bodies[0] == llm_server.bodies[1]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_500_until_failure(provider: str, llm_server: LLMWireServer) -> None:
    broke = error_body(provider, "upstream broke")
    llm_server.reply(broke, status=500, headers=FAST_RETRY, times=3)
    llm = make_llm(provider, llm_server, max_retries=2)

    with pytest.raises(ProviderError) as caught:
        await llm.chat(conversation(), ACT_TOOLS)

    error = caught.value
    assert len(llm_server.requests) == 3
    assert error.model == llm.model
    assert error.endpoint == llm.endpoint and error.endpoint.startswith(llm_server.url)
    assert "HTTP 500" in error.reason and "upstream broke" in error.reason
    assert "after 2 retries" in error.reason


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_structured_request_failure_is_a_provider_error(
    provider: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(error_body(provider, "bad key"), status=401)
    llm = make_llm(provider, llm_server, max_retries=2)

    with pytest.raises(ProviderError, match="HTTP 401: bad key"):
        await llm.structured(conversation(), Product)

    assert len(llm_server.requests) == 1  # 401 is not retried


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_timeout(provider: str, llm_server: LLMWireServer) -> None:
    llm_server.reply(tool_reply(provider, "doAction", CLICK), delay=5.0, times=2)
    llm = make_llm(provider, llm_server, timeout=0.25, max_retries=1)

    with pytest.raises(ProviderError) as caught:
        await llm.chat(conversation(), ACT_TOOLS)

    reason = caught.value.reason
    assert "0.25s timeout" in reason
    assert "timeout" in reason and "max_tokens" in reason  # the message names the fixes
    # The client closed the connection; a timed-out request is not sent again (the server
    # may still be working on it).
    [closed] = llm_server.wait_for_disconnects(1)
    assert closed.waited_s < 5.0
    assert len(llm_server.requests) == 1
    assert caught.value.usage.requests == 1


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_usage_figures(provider: str, llm_server: LLMWireServer) -> None:
    if provider == "openai":
        usage = {"prompt_tokens": 120, "completion_tokens": 7, "cached_tokens": 100}
    else:
        usage = {"input_tokens": 20, "output_tokens": 7, "cache_read_input_tokens": 100}
    llm_server.reply(tool_reply(provider, "doAction", CLICK, **usage), delay=0.2)
    llm = make_llm(provider, llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS)

    got = response.usage
    assert (got.requests, got.prompt_tokens, got.completion_tokens) == (1, 120, 7)
    assert got.cached_tokens == 100
    assert 0.2 <= got.wall_time_s < 5.0  # the server's delay is part of the wall time


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_real_endpoint_is_refused_before_any_request(
    provider: str, llm_server: LLMWireServer
) -> None:
    if provider == "openai":
        llm: AsyncOpenAILLM | AsyncAnthropicLLM = AsyncOpenAILLM("gpt-4.1-mini", api_key=KEY)
    else:
        llm = AsyncAnthropicLLM("claude-sonnet-4-5", api_key=KEY)

    with pytest.raises(RealRequestsBlockedError, match="switched off"):
        await llm.chat(conversation(), ACT_TOOLS)
    with pytest.raises(RealRequestsBlockedError):
        await llm.structured(conversation(), Product)
    assert llm_server.requests == []


@pytest.mark.no_sync_twin
async def test_assistant_tool_calls_keep_their_raw_arguments(llm_server: LLMWireServer) -> None:
    llm_server.reply(tool_reply("openai", "doAction", CLICK))
    llm = make_llm("openai", llm_server, compat=False)
    call = ToolCall(id="c1", name="doAction", raw_arguments="{bad", arguments_error="invalid JSON")
    reask = [
        *conversation(),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", tool_call_id="c1", content="Not JSON.", is_error=True),
    ]

    await llm.chat(reask, ACT_TOOLS)

    sent = llm_server.bodies[0]["messages"][-2]
    # Never "content": null: some servers reject it (llama.cpp: HTTP 500), "" works everywhere.
    assert sent["content"] == ""
    assert sent["tool_calls"][0]["function"]["arguments"] == "{bad"


async def test_structured_output_without_tools_uses_a_json_schema(
    llm_server: LLMWireServer,
) -> None:
    llm_server.reply(openai_error("this model does not support tools"), status=400)
    llm_server.reply(openai_completion(content='{"name": "Lamp", "price": 19.5}'))
    llm = make_llm("openai", llm_server, api_key=None)

    answer = await llm.structured(conversation(), Product)

    assert answer.value == Product(name="Lamp", price=19.5)
    rejected, accepted = llm_server.bodies
    assert "tools" in rejected and "tools" not in accepted
    assert accepted["response_format"]["type"] == "json_schema"
    assert accepted["response_format"]["json_schema"]["schema"]["required"] == ["name", "price"]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin(keep=["anthropic"])
async def test_nothing_listening_is_a_provider_error(provider: str) -> None:
    with socket.socket() as probe:  # a loopback port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    if provider == "openai":
        llm: AsyncOpenAILLM | AsyncAnthropicLLM = AsyncOpenAILLM(
            "gpt-test", base_url=f"{url}/v1", max_retries=1
        )
    else:
        llm = AsyncAnthropicLLM("claude-test", base_url=url, max_retries=1)

    with pytest.raises(ProviderError, match=r"could not connect \(after 1 retry\)") as caught:
        await llm.chat(conversation(), ACT_TOOLS)

    assert caught.value.endpoint.startswith(url)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_images_and_request_options_reach_the_wire(
    provider: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(tool_reply(provider, "doAction", CLICK))
    llm = make_llm(provider, llm_server)
    png = b"\x89PNG\r\n\x1a\nfake-pixels"
    messages = [
        Message(role="system", content="You drive a web page."),
        Message(role="user", content="What is on screen?", images=[ImagePart(data=png)]),
    ]
    options = RequestOptions(kind="agent", max_tokens=77, temperature=0.25)

    await llm.chat(messages, ACT_TOOLS, options=options)

    body = llm_server.bodies[0]
    encoded = base64.b64encode(png).decode("ascii")
    assert body["max_tokens"] == 77
    # Anthropic's current API version rejects sampling parameters: never sent there.
    assert body.get("temperature") == (0.25 if provider == "openai" else None)
    user = body["messages"][-1]["content"]
    if provider == "openai":
        assert user[0] == {"type": "text", "text": "What is on screen?"}
        assert user[1]["image_url"]["url"] == f"data:image/png;base64,{encoded}"
    else:
        assert user[0] == {"type": "text", "text": "What is on screen?"}
        assert user[1]["source"] == {"type": "base64", "media_type": "image/png", "data": encoded}
