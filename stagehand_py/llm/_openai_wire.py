"""The OpenAI chat-completions wire format: messages, tools, usage and error bodies.

Used only by ``_async/llm/openai.py`` and its sync twin; pure functions, no I/O.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

import openai

from ._messages import Message, ToolSpec
from ._usage import Usage


def usage_of(completion: Any, wall_time_s: float) -> Usage:
    """Usage of one chat completion; cached tokens from ``prompt_tokens_details``."""
    usage = getattr(completion, "usage", None)
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        requests=1,
        prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
        completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
        cached_tokens=getattr(details, "cached_tokens", 0) or 0,
        wall_time_s=wall_time_s,
    )


def wire_message(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.images:
        parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
        for image in message.images:
            data = base64.b64encode(image.data).decode("ascii")
            url = f"data:{image.media_type};base64,{data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        wire["content"] = parts
    if message.role == "assistant" and message.tool_calls:
        wire["content"] = message.content or None
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.raw_arguments or json.dumps(call.arguments),
                },
            }
            for call in message.tool_calls
        ]
    return wire


def plain_wire_messages(messages: Sequence[Message], instruction: str) -> list[dict[str, Any]]:
    """Messages with no tool-call fields, the instruction joined to the system prompt (many
    chat templates accept a system message only in first place)."""
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            label = "Tool error" if message.is_error else "Tool result"
            wire.append({"role": "user", "content": f"{label}: {message.content}"})
            continue
        content = message.content
        if message.role == "assistant" and message.tool_calls:
            calls = [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]
            content = "\n".join([content, *(json.dumps(c) for c in calls)]).strip()
        wire.append({"role": message.role, "content": content})
    if wire and wire[0]["role"] == "system":
        wire[0] = {"role": "system", "content": f"{wire[0]['content']}\n\n{instruction}"}
    else:
        wire.insert(0, {"role": "system", "content": instruction})
    return wire


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }


def tool_choice_schema(tools: Sequence[ToolSpec]) -> dict[str, Any]:
    """A JSON schema for ``{"name": ..., "arguments": ...}`` naming one of ``tools``."""
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string", "enum": [t.name for t in tools]},
            "arguments": {"anyOf": [t.parameters for t in tools]} if tools else {"type": "object"},
        },
        "required": ["name", "arguments"],
    }


def rejects_tools(error: openai.APIStatusError) -> bool:
    """Whether a compatible server refused the request because it cannot do tool calls."""
    return error.status_code in (400, 404, 422, 501) and "tool" in error_message(error).lower()


def error_message(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return error.message


def last_answer(completion: Any) -> Any:
    """What the model last answered, for StructuredOutputError: parsed JSON when possible."""
    if completion is None or not getattr(completion, "choices", None):
        return None
    message = completion.choices[0].message
    calls = message.tool_calls or []
    text = calls[0].function.arguments if calls else (message.content or "")
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text
