"""The fakes shipped in stagehand_py.testing: scripted and function-backed models."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from stagehand_py._async.llm.base import AsyncLLM
from stagehand_py._async.llm.testing import AsyncFunctionLLM, AsyncScriptedLLM
from stagehand_py._errors import LLMError, ScriptExhaustedError, StructuredOutputError
from stagehand_py.llm import ChatResponse, Message, ToolCall, ToolSpec, Usage
from stagehand_py.prompts.act import ACT_TOOLS
from stagehand_py.testing import do_action, skip_section, tool_call


class Verdict(BaseModel):
    completed: bool
    reason: str = ""


def ask(text: str) -> list[Message]:
    return [Message(role="system", content="be brief"), Message(role="user", content=text)]


async def test_scripted_chat_answers_in_order() -> None:
    llm = AsyncScriptedLLM(
        do_action("fill", 4, ["<|EMAIL|>"], step="type the email"),
        [skip_section("menu only"), tool_call("doAction", method="click", element=2)],
        ChatResponse(text="thinking", tool_calls=[]),
        "no tool at all",
    )
    assert isinstance(llm, AsyncLLM)

    first = await llm.chat(ask("fill the form"), ACT_TOOLS)
    second = await llm.chat(ask("again"), ACT_TOOLS, tool_choice="auto")
    third = await llm.chat(ask("third"), ACT_TOOLS)
    fourth = await llm.chat(ask("fourth"), ACT_TOOLS)

    [call] = first.tool_calls
    assert call.name == "doAction"
    assert call.arguments == {
        "method": "fill",
        "element": 4,
        "args": ["<|EMAIL|>"],
        "step": "type the email",
        "why": "",
        "completed": False,
    }
    assert [c.name for c in second.tool_calls] == ["skipSection", "doAction"]
    assert second.tool_calls[0].arguments == {"reason": "menu only"}
    assert (third.text, third.tool_calls) == ("thinking", [])
    assert (fourth.text, fourth.tool_calls) == ("no tool at all", [])
    assert first.model == "scripted"
    assert llm.calls == 4 and llm.remaining == 0
    assert [r.tool_choice for r in llm.requests] == ["required", "auto", "required", "required"]
    assert llm.requests[0].tools == list(ACT_TOOLS)
    assert "fill the form" in llm.requests[0].text()


async def test_tool_call_ids_are_unique() -> None:
    ids = {tool_call("x").id for _ in range(50)}
    assert len(ids) == 50


async def test_every_response_carries_an_estimated_usage() -> None:
    llm = AsyncScriptedLLM(do_action("click", 1), {"completed": True})
    prompt = ask("x" * 400)

    chat = await llm.chat(prompt, ACT_TOOLS)
    verdict = await llm.structured(prompt, Verdict)

    for usage in (chat.usage, verdict.usage):
        assert usage.requests == 1
        assert 100 <= usage.prompt_tokens <= 110  # ~ chars / 4
        assert usage.completion_tokens > 0
        assert usage.wall_time_s >= 0.0


async def test_a_given_usage_is_kept() -> None:
    given = Usage(requests=1, prompt_tokens=7, completion_tokens=3)
    llm = AsyncScriptedLLM(ChatResponse(tool_calls=[do_action("click", 1)], usage=given))
    assert (await llm.chat(ask("x"), ACT_TOOLS)).usage == given


async def test_scripted_structured_accepts_instances_and_dicts() -> None:
    llm = AsyncScriptedLLM(Verdict(completed=True, reason="done"), {"completed": False})

    first = await llm.structured(ask("is it done?"), Verdict)
    second = await llm.structured(ask("and now?"), Verdict)

    assert first.value == Verdict(completed=True, reason="done")
    assert second.value == Verdict(completed=False)
    assert (first.attempts, second.attempts) == (1, 1)
    assert [r.schema_name for r in llm.requests] == ["Verdict", "Verdict"]
    assert all(r.kind == "structured" for r in llm.requests)


async def test_an_invalid_structured_answer_is_re_asked_with_the_error() -> None:
    llm = AsyncScriptedLLM({"completed": "perhaps"}, {"completed": True})

    answer = await llm.structured(ask("done?"), Verdict, max_retries=2)

    assert answer.value.completed is True
    assert answer.attempts == 2 and answer.usage.requests == 2
    first, second = llm.requests
    assert len(second.messages) == len(first.messages) + 2
    assert second.messages[-2].role == "assistant" and "perhaps" in second.messages[-2].content
    assert second.messages[-1].role == "user"
    assert "completed" in second.messages[-1].content
    assert "Validation Error" in second.messages[-1].content


async def test_exhausted_re_asks_raise_with_the_last_answer() -> None:
    llm = AsyncScriptedLLM({"reason": "no flag"}, {"completed": "maybe"}, {"completed": True})

    with pytest.raises(StructuredOutputError) as caught:
        await llm.structured(ask("done?"), Verdict, max_retries=1)

    assert caught.value.last_answer == {"completed": "maybe"}
    assert "completed" in caught.value.errors
    assert llm.calls == 2 and llm.remaining == 1


async def test_an_empty_script_names_the_request() -> None:
    llm = AsyncScriptedLLM()

    with pytest.raises(ScriptExhaustedError, match=r"chat.*Open the settings page"):
        await llm.chat(ask("Open the settings page please"), ACT_TOOLS)
    with pytest.raises(ScriptExhaustedError, match="structured, expecting Verdict"):
        await llm.structured(ask("done?"), Verdict)


async def test_queued_exceptions_are_raised() -> None:
    llm = AsyncScriptedLLM(TimeoutError("slow model"), RuntimeError("structured boom"))
    llm.queue(do_action("click", 1))

    with pytest.raises(TimeoutError, match="slow model"):
        await llm.chat(ask("x"), ACT_TOOLS)
    with pytest.raises(RuntimeError, match="structured boom"):
        await llm.structured(ask("x"), Verdict)
    assert (await llm.chat(ask("x"), ACT_TOOLS)).tool_calls[0].name == "doAction"


async def test_answers_of_the_wrong_kind_are_clear_errors() -> None:
    llm = AsyncScriptedLLM({"completed": True}, do_action("click", 1))

    with pytest.raises(LLMError, match="structured answer"):
        await llm.chat(ask("x"), ACT_TOOLS)
    with pytest.raises(LLMError, match="chat answer"):
        await llm.structured(ask("x"), Verdict)


async def test_function_llm_computes_answers() -> None:
    seen: list[tuple[int, list[str]]] = []

    def chat(messages: list[Message], tools: list[ToolSpec]) -> list[ToolCall]:
        seen.append((len(messages), [t.name for t in tools]))
        return [do_action("click", len(messages))]

    def structured(messages: list[Message], schema: type[BaseModel]) -> dict[str, object]:
        # Invalid first, then valid once the re-ask message is there.
        return {"completed": True} if len(messages) > 2 else {"completed": "?"}

    llm = AsyncFunctionLLM(chat, structured, model="fn")

    response = await llm.chat(ask("go"), ACT_TOOLS)
    verdict = await llm.structured(ask("done?"), Verdict)

    assert response.tool_calls[0].arguments["element"] == 2
    assert seen == [(2, [t.name for t in ACT_TOOLS])]
    assert verdict.value.completed is True and verdict.attempts == 2
    assert llm.model == "fn" and llm.calls == 3


async def test_function_llm_without_a_function_says_so() -> None:
    llm = AsyncFunctionLLM()
    with pytest.raises(ScriptExhaustedError, match="no chat function"):
        await llm.chat(ask("go"), ACT_TOOLS)
    with pytest.raises(ScriptExhaustedError, match="no structured function"):
        await llm.structured(ask("go"), Verdict)
