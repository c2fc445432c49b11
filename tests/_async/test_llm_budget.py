"""Capability fallback, token budgets and cut-off answers over the wire, with the real clients.

The fallback must never hide a real error from a server that supports the feature: an auth
error, a rate limit, a context overflow or another bad request surfaces as it is, on the
first request, and the client does not step down."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import BaseModel

from stagehand_py._async.llm.anthropic import AsyncAnthropicLLM
from stagehand_py._async.llm.openai import AsyncOpenAILLM
from stagehand_py._errors import IncompleteOutputError, ProviderError
from stagehand_py.llm import Message, RequestOptions
from stagehand_py.prompts.act import ACT_TOOLS
from tests.llm_wire_server import (
    LLMWireServer,
    anthropic_message,
    anthropic_tool_use,
    openai_completion,
    openai_error,
    openai_tool_call,
)

CLICK = {"method": "click", "element": 3, "args": [], "step": "s", "why": "w", "completed": True}
FAST_RETRY = {"retry-after-ms": "1"}


class Verdict(BaseModel):
    done: bool


def conversation() -> list[Message]:
    return [
        Message(role="system", content="You drive a web page."),
        Message(role="user", content="Click the Buy button.\n3:<button>Buy</button>"),
    ]


def local_llm(server: LLMWireServer, **options: Any) -> AsyncOpenAILLM:
    options.setdefault("max_retries", 0)
    return AsyncOpenAILLM("local", base_url=server.openai_base_url, **options)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "Invalid API key for tool calls"),
        (429, "Rate limit reached; tools are busy"),
        (400, "This model's maximum context length is 4096 tokens (tools included)"),
        (400, "messages.1.content: too long for the tool parser"),
    ],
)
@pytest.mark.parametrize("shape", ["chat", "structured"])
@pytest.mark.no_sync_twin
async def test_real_errors_surface_as_they_are(
    status: int, message: str, shape: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(openai_error(message), status=status)
    llm = local_llm(llm_server)

    with pytest.raises(ProviderError) as caught:
        if shape == "chat":
            await llm.chat(conversation(), ACT_TOOLS)
        else:
            await llm.structured(conversation(), Verdict)

    assert f"HTTP {status}" in caught.value.reason
    assert message.split(";")[0] in caught.value.reason
    assert len(llm_server.requests) == 1  # no other strategy was tried
    assert llm.ladder.current("tools") == llm.ladder.current("structured") == "required"


async def test_when_every_strategy_fails_the_error_lists_them(llm_server: LLMWireServer) -> None:
    llm_server.reply(None, status=500, raw=b"")  # required: an empty 500
    for refusal in (
        "tools are not available for this model",
        "response_format json_schema is not supported",
        "response_format json_object with a schema is not supported",
    ):
        llm_server.reply(openai_error(refusal), status=400)
    llm_server.reply(openai_error("upstream model crashed"), status=502)
    llm = local_llm(llm_server)

    with pytest.raises(ProviderError) as caught:
        await llm.chat(conversation(), ACT_TOOLS)

    reason = caught.value.reason
    assert "HTTP 502: upstream model crashed" in reason
    for tried in ('tool_choice "required"', 'tool_choice "auto"', "json_schema", "json_object"):
        assert tried in reason
    assert caught.value.usage.requests == 5
    # Nothing worked, so nothing was learned: the next call starts at the top again.
    assert llm.ladder.current("tools") == "required"


@pytest.mark.no_sync_twin
async def test_a_learned_strategy_is_logged_once_and_kept(
    llm_server: LLMWireServer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.reply(openai_error("tool_choice 'required' is not supported"), status=400)
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", CLICK)]), times=3)
    llm = local_llm(llm_server)

    with caplog.at_level(logging.INFO, logger="stagehand_py.llm"):
        for _ in range(3):
            response = await llm.chat(conversation(), ACT_TOOLS)
            assert response.tool_calls[0].arguments == CLICK

    choices = [body["tool_choice"] for body in llm_server.bodies]
    assert choices == ["required", "auto", "auto", "auto"]
    learned = [r for r in caplog.records if "from now on" in r.getMessage()]
    assert len(learned) == 1 and learned[0].levelno == logging.INFO


@pytest.mark.no_sync_twin
async def test_openai_itself_never_steps_down(llm_server: LLMWireServer) -> None:
    llm_server.reply(None, status=500, raw=b"", headers=FAST_RETRY, times=3)
    llm = local_llm(llm_server, compat=False, max_retries=2)

    with pytest.raises(ProviderError, match="empty body") as caught:
        await llm.chat(conversation(), ACT_TOOLS)

    assert [b["tool_choice"] for b in llm_server.bodies] == ["required"] * 3  # retried only
    assert "after 2 retries" in caught.value.reason and "log" in caught.value.reason


@pytest.mark.parametrize(
    ("compat", "key"), [(True, "max_tokens"), (False, "max_completion_tokens")]
)
@pytest.mark.no_sync_twin(keep=["False-max_completion_tokens"])
async def test_budget_and_temperature_on_the_openai_wire(
    compat: bool, key: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", CLICK)]))
    llm = local_llm(llm_server, compat=compat)

    await llm.chat(conversation(), ACT_TOOLS, options=RequestOptions(max_tokens=321, temperature=0))

    [body] = llm_server.bodies
    assert body[key] == 321 and body["temperature"] == 0
    assert ("max_tokens" in body) == compat  # OpenAI's reasoning models refuse max_tokens


async def test_anthropic_ignores_temperature_with_one_info_line(
    llm_server: LLMWireServer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.reply(anthropic_message([anthropic_tool_use("doAction", CLICK)]), times=2)
    llm = AsyncAnthropicLLM("claude-test", base_url=llm_server.anthropic_base_url)
    options = RequestOptions(kind="act", max_tokens=99, temperature=0.7)

    with caplog.at_level(logging.INFO, logger="stagehand_py.llm"):
        await llm.chat(conversation(), ACT_TOOLS, options=options)
        await llm.chat(conversation(), ACT_TOOLS, options=options)

    assert all("temperature" not in body and body["max_tokens"] == 99 for body in llm_server.bodies)
    notes = [r for r in caplog.records if "temperature" in r.getMessage()]
    assert len(notes) == 1 and notes[0].levelno == logging.INFO


def cut_off(provider: str, arguments: str) -> dict[str, Any]:
    if provider == "openai":
        reply = openai_completion(tool_calls=[openai_tool_call("doAction", arguments)])
        reply["choices"][0]["finish_reason"] = "length"
        return reply
    reply = anthropic_message([anthropic_tool_use("doAction", {"method": "cli"})])
    reply["stop_reason"] = "max_tokens"
    return reply


def whole(provider: str) -> dict[str, Any]:
    if provider == "openai":
        return openai_completion(tool_calls=[openai_tool_call("doAction", CLICK)])
    return anthropic_message([anthropic_tool_use("doAction", CLICK)])


def make(provider: str, server: LLMWireServer) -> AsyncOpenAILLM | AsyncAnthropicLLM:
    if provider == "openai":
        return local_llm(server)
    return AsyncAnthropicLLM("claude-test", base_url=server.anthropic_base_url, max_retries=0)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.no_sync_twin(keep=["openai"])
async def test_a_cut_off_answer_is_asked_again_with_a_larger_budget(
    provider: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(cut_off(provider, '{"method": "cli'))
    llm_server.reply(whole(provider))
    llm = make(provider, llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS, options=RequestOptions(max_tokens=64))

    assert response.tool_calls[0].arguments == CLICK
    assert [body["max_tokens"] for body in llm_server.bodies] == [64, 128]
    assert response.usage.requests == 2


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("shape", ["chat", "structured"])
@pytest.mark.no_sync_twin(keep=["chat-anthropic"])
async def test_cut_off_twice_is_a_typed_error(
    provider: str, shape: str, llm_server: LLMWireServer
) -> None:
    llm_server.reply(cut_off(provider, '{"method": "cli'), times=2)
    llm = make(provider, llm_server)
    options = RequestOptions(max_tokens=50)

    with pytest.raises(IncompleteOutputError) as caught:
        if shape == "chat":
            await llm.chat(conversation(), ACT_TOOLS, options=options)
        else:
            await llm.structured(conversation(), Verdict, options=options)

    error = caught.value
    assert "cut off by the token limit twice" in str(error) and "max_tokens" in str(error)
    assert error.max_tokens == 100 and error.usage.requests == 2


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_a_chat_without_tools_is_plain_text(provider: str, llm_server: LLMWireServer) -> None:
    if provider == "openai":
        llm_server.reply(openai_completion(content="pong"))
    else:
        llm_server.reply(anthropic_message([{"type": "text", "text": "pong"}]))
    llm = make(provider, llm_server)

    answer = await llm.chat([Message(role="user", content="ping")], [])

    assert answer.text == "pong" and answer.tool_calls == []
    [body] = llm_server.bodies
    assert "tools" not in body and "tool_choice" not in body


@pytest.mark.parametrize("ignored", ["", "I will click the Buy button for you."])
@pytest.mark.no_sync_twin
async def test_a_required_call_answered_with_text_steps_down(
    ignored: str, llm_server: LLMWireServer
) -> None:
    # The llama.cpp server measured by scripts/local-server-smoke.sh answers
    # tool_choice "required" with HTTP 200 and text (or nothing) when the model's chat format
    # has no function calling.
    llm_server.reply(openai_completion(content=ignored))
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", CLICK)]))
    llm = local_llm(llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS)

    assert response.tool_calls[0].arguments == CLICK
    assert [body["tool_choice"] for body in llm_server.bodies] == ["required", "auto"]
    assert response.usage.requests == 2


def test_the_request_timeout_comes_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stagehand_py._async.llm.factory import create_llm
    from stagehand_py._errors import ConfigurationError

    monkeypatch.setenv("STAGEHAND_PY_LLM_TIMEOUT", "300")
    llm = create_llm("openai/local", base_url="http://127.0.0.1:9/v1")
    assert isinstance(llm, AsyncOpenAILLM) and llm._timeout == 300.0
    monkeypatch.setenv("STAGEHAND_PY_LLM_TIMEOUT", "soon")
    with pytest.raises(ConfigurationError, match="STAGEHAND_PY_LLM_TIMEOUT"):
        create_llm("openai/local", base_url="http://127.0.0.1:9/v1")


@pytest.mark.no_sync_twin
async def test_a_bad_answer_on_a_json_rung_is_the_models_not_the_servers(
    llm_server: LLMWireServer,
) -> None:
    # Seen with SmolLM2 on llama.cpp: JSON that names no tool. A re-ask is the answer to that;
    # stepping down to plain text would lose the grammar for every later request.
    llm_server.reply(openai_completion(content='{"email": "reader@example.org"}'))
    llm = local_llm(llm_server)
    llm.ladder.learn("tools", "json_object")

    response = await llm.chat(conversation(), ACT_TOOLS)

    assert response.tool_calls == [] and len(llm_server.requests) == 1
    assert llm.ladder.current("tools") == "json_object"


@pytest.mark.no_sync_twin
async def test_a_cut_off_answer_teaches_the_ladder_nothing(llm_server: LLMWireServer) -> None:
    prose = openai_completion(content="Sure, let me think about which button to click " * 9)
    prose["choices"][0]["finish_reason"] = "length"
    llm_server.reply(openai_completion(content="I would click Buy."))  # required: ignored
    llm_server.reply(prose)  # auto: cut off by the budget
    llm_server.reply(openai_completion(content="I would click Buy."))  # required, again
    llm_server.reply(openai_completion(content="Buy is the one."))  # auto: prose
    llm_server.reply(openai_completion(tool_calls=[openai_tool_call("doAction", CLICK)]))
    llm = local_llm(llm_server)

    response = await llm.chat(conversation(), ACT_TOOLS, options=RequestOptions(max_tokens=40))

    assert response.tool_calls[0].arguments == CLICK
    sent = [
        (b.get("tool_choice"), b.get("response_format", {}).get("type")) for b in llm_server.bodies
    ]
    assert sent == [
        ("required", None),
        ("auto", None),
        ("required", None),  # the cut-off "auto" answer was not learned from
        ("auto", None),
        (None, "json_schema"),
    ]
    assert llm.ladder.current("tools") == "json_schema"
