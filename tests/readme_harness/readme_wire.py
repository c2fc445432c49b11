"""The README model over HTTP: a profile of the loopback wire server (``tests/llm_wire_server.py``)
that answers OpenAI chat-completions requests as ``readme_model.py`` would, so a README block
runs with the real ``openai`` client and only a key and a base URL in its environment.

A structured request (one tool, forced by ``tool_choice``) is answered by the README model's
``structured`` for the schema the tool is named after; a tool chat (act's) by its ``chat``.
Each answer is a tool call, as OpenAI's API sends it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from stagehand_py.llm import Message, ToolSpec
from tests.llm_wire_server import (
    ReceivedRequest,
    ScriptedReply,
    openai_completion,
    openai_tool_call,
)
from tests.readme_harness.readme_model import README_MODEL


class ReadmeWireProfile:
    """Answers every request the way the README model answers the same messages."""

    def answer(self, request: ReceivedRequest) -> ScriptedReply:
        body = request.body
        messages = [_message(m) for m in body["messages"] if m["role"] != "tool"]
        choice = body.get("tool_choice")
        if isinstance(choice, dict):
            name = choice["function"]["name"]
            schema = type(name, (BaseModel,), {})  # the README model reads only its name
            value = README_MODEL.structured(messages, schema)
            arguments = value.model_dump() if isinstance(value, BaseModel) else value
            return ScriptedReply(openai_completion(tool_calls=[openai_tool_call(name, arguments)]))
        tools = [_tool(t["function"]) for t in body.get("tools", [])]
        call = README_MODEL.chat(messages, tools)
        reply = openai_tool_call(call.name, call.arguments, call_id=call.id)
        return ScriptedReply(openai_completion(tool_calls=[reply]))


def _message(sent: dict[str, Any]) -> Message:
    role = sent["role"]
    content = sent.get("content") or ""
    if isinstance(content, list):  # text parts (and images, which the README model ignores)
        content = "\n".join(part.get("text", "") for part in content)
    return Message(role=role, content=content)


def _tool(function: dict[str, Any]) -> ToolSpec:
    return ToolSpec(
        name=function["name"],
        description=function.get("description", ""),
        parameters=function.get("parameters", {}),
    )
