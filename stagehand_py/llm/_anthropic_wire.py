"""Anthropic's Messages API on the wire: request messages and tools, and replies read from the
raw body (``content: null``, ``content: {}``, an empty object and blocks with missing fields
included). Pure; used by ``_async/llm/anthropic.py`` and its sync twin."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

from .._usage import Usage
from ._messages import Message, ToolSpec
from ._reply import MalformedReply, Reply, checked_call, count, load_body


def wire_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The ``system`` text and the message list, merging neighbours of the same role (tool
    results travel in user turns, and the API wants the roles to alternate)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
        if not blocks:
            continue  # an empty turn: the API rejects empty content
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return system, wire


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "content": message.content,
        }
        if message.is_error:
            result["is_error"] = True
        return [result]
    blocks: list[dict[str, Any]] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for image in message.images:
        data = base64.b64encode(image.data).decode("ascii")
        blocks.append(
            {
                "type": "image",
                "source": {"type": "base64", "media_type": image.media_type, "data": data},
            }
        )
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        )
    return blocks


def wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def parse_message(raw: bytes | str, wall_time_s: float) -> Reply:
    """A Messages API reply read from its body."""
    data = load_body(raw)
    if data.get("type") == "error":
        raise MalformedReply(f"the server sent an error with status 200: {data.get('error')}")
    if "content" not in data and not data.get("type") and not data.get("id"):
        raise MalformedReply(
            f"the response is not a message: it has no content, type or id (got {data})"[:200]
        )
    usage = message_usage(data.get("usage"), wall_time_s)
    reply = Reply.of_body(data, usage, truncated=data.get("stop_reason") == "max_tokens")
    content = data.get("content")
    if not isinstance(content, list):
        reply.problem = f"the reply has no content list (content: {str(content)[:60]})"
        return reply
    texts: list[str] = []
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_use" and isinstance(block, dict):
            reply.tool_calls.append(
                checked_call(block.get("id"), block.get("name"), block.get("input"))
            )
        elif kind == "text" and isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
    reply.text = "\n".join(texts)
    return reply


def message_usage(usage: object, wall_time_s: float) -> Usage:
    """Usage of one message. Anthropic counts cache reads and writes apart from
    ``input_tokens``; here they are all prompt tokens, cache reads also counted as cached."""
    fields = usage if isinstance(usage, dict) else {}
    cache_read = count(fields.get("cache_read_input_tokens"))
    cache_write = count(fields.get("cache_creation_input_tokens"))
    return Usage(
        requests=1,
        prompt_tokens=count(fields.get("input_tokens")) + cache_read + cache_write,
        completion_tokens=count(fields.get("output_tokens")),
        cached_tokens=cache_read,
        wall_time_s=wall_time_s,
    )
