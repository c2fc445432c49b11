"""Malformed replies over the wire (issue #13 item 5), with the real openai and anthropic
clients: each one becomes a reply the caller can re-ask, or a ProviderError naming what was
wrong, never an untyped exception. Every request sent is counted."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from stagehand_py._act_decision import InvalidReply, decide
from stagehand_py._async.llm.anthropic import AsyncAnthropicLLM
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py._errors import ProviderError
from stagehand_py.llm import Message
from stagehand_py.prompts.act import ACT_TOOLS
from tests.llm_wire_server import (
    LLMWireServer,
    anthropic_message,
    anthropic_tool_use,
    openai_completion,
    openai_tool_call,
)

PROVIDERS = ["openai", "anthropic"]


class Verdict(BaseModel):
    done: bool
    reason: str


def make_llm(provider: str, server: LLMWireServer) -> AsyncOpenAILLM | AsyncAnthropicLLM:
    if provider == "openai":
        return AsyncOpenAILLM("gpt-test", base_url=server.openai_base_url, max_retries=0)
    return AsyncAnthropicLLM("claude-test", base_url=server.anthropic_base_url, max_retries=0)


def conversation() -> list[Message]:
    return [
        Message(role="system", content="You drive a web page."),
        Message(role="user", content="Click the Buy button.\n3:<button>Buy</button>"),
    ]


def verdict_reply(provider: str) -> dict[str, Any]:
    answer = {"done": True, "reason": "shown"}
    if provider == "openai":
        return openai_completion(tool_calls=[openai_tool_call("Verdict", answer)])
    return anthropic_message([anthropic_tool_use("Verdict", answer)])


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("raw", "named"),
    [
        (b"<html><body>502 Bad Gateway</body></html>", "is not JSON: <html>"),
        (b'{"id": "x", "choices": [{"index": 0, "message": {"content": "I will cl', "cut off"),
        (b"", "body is empty"),
    ],
)
async def test_a_body_that_is_no_reply_is_a_provider_error(
    provider: str, raw: bytes, named: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(None, raw=raw, times=2)
    llm = make_llm(provider, llm_server)

    with pytest.raises(ProviderError, match=named) as chat_error:
        await llm.chat(conversation(), ACT_TOOLS)
    with pytest.raises(ProviderError, match=named) as structured_error:
        await llm.structured(conversation(), Verdict)

    assert chat_error.value.usage.requests == 1
    assert structured_error.value.usage.requests == 1
    assert len(llm_server.requests) == 2


@pytest.mark.no_sync_twin
async def test_openai_message_null_is_re_asked(llm_server: LLMWireServer) -> None:
    empty = openai_completion(content="x")
    empty["choices"][0]["message"] = None
    llm_server.reply(empty, times=2)
    llm_server.reply(verdict_reply("openai"))
    llm = make_llm("openai", llm_server)

    chat = await llm.chat(conversation(), ACT_TOOLS)
    answer = await llm.structured(conversation(), Verdict)

    assert (chat.tool_calls, chat.text) == ([], "")
    assert isinstance(decide(chat, {3}), InvalidReply)  # act re-asks: "You called no tool"
    assert answer.value.done and answer.attempts == 2 and answer.usage.requests == 2
    reask = llm_server.bodies[2]["messages"]
    assert reask[-1]["role"] == "user" and "empty" in reask[-1]["content"]


@pytest.mark.no_sync_twin
async def test_openai_content_as_a_list_of_parts(llm_server: LLMWireServer) -> None:
    call = '{"name": "skipSection", "arguments": {"reason": "no Buy button here"}}'
    reply = openai_completion(content="x")
    reply["choices"][0]["message"]["content"] = [
        {"type": "text", "text": call[:20]},
        {"type": "text", "text": call[20:]},
    ]
    llm_server.reply(reply)
    llm = make_llm("openai", llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS)

    assert response.text == call
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        ("skipSection", {"reason": "no Buy button here"})
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.no_sync_twin
async def test_a_call_with_null_name_and_id_is_re_asked(
    provider: str, llm_server: LLMWireServer
) -> None:
    arguments = {"method": "click", "element": 3, "args": [], "completed": True}
    if provider == "openai":
        call = openai_tool_call("x", arguments)
        call["id"], call["function"]["name"] = None, None
        llm_server.reply(openai_completion(tool_calls=[call]))
    else:
        block = anthropic_tool_use("x", arguments)
        block["id"], block["name"] = None, None
        llm_server.reply(anthropic_message([block]))
    llm_server.reply(verdict_reply(provider))
    llm = make_llm(provider, llm_server)

    first = await llm.chat(conversation(), ACT_TOOLS)
    [call] = first.tool_calls
    decision = decide(first, {3})
    assert call.id and call.name == "" and isinstance(decision, InvalidReply)
    assert "named no tool" in decision.error
    reask = [
        *conversation(),
        Message(role="assistant", tool_calls=[call]),
        Message(role="tool", tool_call_id=call.id, content=decision.error, is_error=True),
    ]
    await llm.chat(reask, ACT_TOOLS)  # the nameless call goes back without breaking the API

    sent = llm_server.bodies[1]["messages"]
    if provider == "openai":
        assert not any("tool_calls" in m for m in sent)  # a nameless call is sent as text
        assert "named no tool" in sent[-1]["content"]
    else:
        assert sent[-1]["content"][0]["tool_use_id"] == call.id


@pytest.mark.parametrize("content", [None, {}])
@pytest.mark.no_sync_twin(keep=["None"])
async def test_anthropic_content_null_or_an_object_is_re_asked(
    content: Any, llm_server: LLMWireServer
) -> None:
    odd = anthropic_message([])
    odd["content"] = content
    llm_server.reply(odd, times=2)
    llm_server.reply(verdict_reply("anthropic"))
    llm = make_llm("anthropic", llm_server)

    chat = await llm.chat(conversation(), ACT_TOOLS)
    answer = await llm.structured(conversation(), Verdict)

    assert (chat.tool_calls, chat.text) == ([], "")
    assert answer.value.done and answer.usage.requests == 2


async def test_anthropic_empty_object_is_a_provider_error(llm_server: LLMWireServer) -> None:
    llm_server.reply({}, times=2)
    llm = make_llm("anthropic", llm_server)

    with pytest.raises(ProviderError, match="not a message"):
        await llm.chat(conversation(), ACT_TOOLS)
    with pytest.raises(ProviderError, match="not a message") as caught:
        await llm.structured(conversation(), Verdict)
    assert caught.value.usage.requests == 1
