"""Request bodies of OpenAI's chat completions API, for each rung of the capability ladder.

Pure functions producing the exact JSON sent, used by ``_async/llm/openai.py`` and its sync
twin. Two rules hold for every server:

* no message is sent with ``"content": null`` (an assistant turn that only called tools gets
  ``""``, which every server accepts, where some reject ``null`` or a missing key);
* with ``compat`` (any server but OpenAI's own), each tool result is repeated in a user
  message and each call in the assistant's text, because many chat templates drop ``tool``
  messages and ``tool_calls``: without that, a re-ask never reaches the model.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from typing import Any

from ._ladder import Strategy
from ._messages import Message, ToolCall, ToolSpec
from ._schema_strip import strip_schema

_VALID_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CALL_TOOLS = "Answer by calling exactly one of these tools: {names}."
_CALL_ONE = "Answer by calling the tool {name}, with the answer as its arguments."
_JSON_TOOL = (
    "Answer with one JSON object calling exactly one of these tools, shaped "
    '{{"name": <tool name>, "arguments": {{...}}}}, and nothing else. Tools:\n{tools}'
)
_JSON_ANSWER = (
    "Answer with one JSON object that matches this JSON schema, and nothing else:\n{schema}"
)


def tool_name(name: str) -> str:
    """``name`` as a function name every server accepts (letters, digits, ``_`` and ``-``)."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64]
    return cleaned or "answer"


def chat_body(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    strategy: Strategy,
    *,
    tool_choice: str,
    sampling: dict[str, Any],
    compat: bool,
) -> dict[str, Any]:
    """The request of a tool chat (act's doAction/skipSection) on rung ``strategy``."""
    names = ", ".join(t.name for t in tools)
    body: dict[str, Any] = {"model": model, **sampling}
    if not tools:  # a plain chat: nothing to call, nothing to force
        return {**body, "messages": wire_messages(messages, compat=compat)}
    if strategy in ("required", "auto"):
        offered = [wire_tool(t, strip=compat) for t in tools]
        if strategy == "auto":
            body["messages"] = with_instruction(
                wire_messages(messages, compat=compat), _CALL_TOOLS.format(names=names)
            )
            return {**body, "tools": offered, "tool_choice": "auto"}
        body["messages"] = wire_messages(messages, compat=compat)
        return {**body, "tools": offered, "tool_choice": tool_choice}
    listing = "\n".join(
        json.dumps({"name": t.name, "description": t.description, "arguments": t.parameters})
        for t in tools
    )
    instruction = _JSON_TOOL.format(tools=listing)
    body["messages"] = with_instruction(plain_wire_messages(messages), instruction)
    schema = tool_choice_schema(tools)
    return _with_format(body, strategy, "tool_call", strip_schema(schema) if compat else schema)


def structured_body(
    model: str,
    messages: Sequence[Message],
    name: str,
    schema: dict[str, Any],
    strategy: Strategy,
    *,
    sampling: dict[str, Any],
    compat: bool,
) -> dict[str, Any]:
    """The request of a structured answer (``schema``, sent as tool ``name``) on a rung."""
    sent = strip_schema(schema) if compat else schema
    body: dict[str, Any] = {"model": model, **sampling}
    if strategy in ("required", "auto"):
        tool = {"type": "function", "function": {"name": name, "parameters": sent}}
        conversation = wire_messages(messages, compat=compat)
        if strategy == "auto":
            body["messages"] = with_instruction(conversation, _CALL_ONE.format(name=name))
            return {**body, "tools": [tool], "tool_choice": "auto"}
        body["messages"] = conversation
        choice = {"type": "function", "function": {"name": name}}
        return {**body, "tools": [tool], "tool_choice": choice}
    instruction = _JSON_ANSWER.format(schema=json.dumps(sent))
    body["messages"] = with_instruction(plain_wire_messages(messages), instruction)
    return _with_format(body, strategy, name, sent)


def _with_format(
    body: dict[str, Any], strategy: Strategy, name: str, schema: dict[str, Any]
) -> dict[str, Any]:
    if strategy == "json_schema":
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema},
        }
    elif strategy == "json_object":
        # llama.cpp (and Anyscale-style servers) constrain json_object answers to "schema".
        body["response_format"] = {"type": "json_object", "schema": schema}
    return body


def wire_messages(messages: Sequence[Message], *, compat: bool) -> list[dict[str, Any]]:
    """Messages for a request that offers tools.

    A call is sent as a call only when its name is valid and a tool message answers it (the
    API rejects anything else); other calls, and results without their call, travel as text.
    """
    answered = {m.tool_call_id for m in messages if m.role == "tool" and m.tool_call_id}
    sent_ids: dict[str, str] = {}  # id -> tool name, of calls sent as calls
    wire: list[dict[str, Any]] = []
    pending_mirror: list[dict[str, Any]] = []
    for message in messages:
        if message.role != "tool" and pending_mirror:
            wire.extend(pending_mirror)  # after the whole run of tool results
            pending_mirror = []
        if message.role == "tool":
            label = _result_label(message)
            name = sent_ids.get(message.tool_call_id or "")
            if name is None:
                wire.append({"role": "user", "content": f"{label}: {message.content}"})
                continue
            wire.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
            if compat:
                pending_mirror.append(
                    {"role": "user", "content": f"{label} ({name}): {message.content}"}
                )
            continue
        entry: dict[str, Any] = {"role": message.role, "content": _content(message)}
        if message.role == "assistant" and message.tool_calls:
            as_calls = [c for c in message.tool_calls if _sendable(c, answered)]
            as_text = [c for c in message.tool_calls if c not in as_calls]
            written = as_text + (as_calls if compat else [])
            if written:
                entry["content"] = "\n".join([message.content, *map(call_text, written)]).strip()
            if as_calls:
                entry["tool_calls"] = [_wire_call(c) for c in as_calls]
                sent_ids.update({c.id: c.name for c in as_calls})
        wire.append(entry)
    wire.extend(pending_mirror)
    return wire


def plain_wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages with no tool-call fields at all, for requests that offer no tools."""
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            wire.append({"role": "user", "content": f"{_result_label(message)}: {message.content}"})
            continue
        content: Any = _content(message)
        if message.role == "assistant" and message.tool_calls:
            content = "\n".join([message.content, *map(call_text, message.tool_calls)]).strip()
        wire.append({"role": message.role, "content": content})
    return wire


def with_instruction(wire: list[dict[str, Any]], instruction: str) -> list[dict[str, Any]]:
    """``instruction`` joined to the system prompt (many chat templates accept a system
    message only in first place)."""
    if wire and wire[0]["role"] == "system" and isinstance(wire[0]["content"], str):
        return [{"role": "system", "content": f"{wire[0]['content']}\n\n{instruction}"}, *wire[1:]]
    return [{"role": "system", "content": instruction}, *wire]


def call_text(call: ToolCall) -> str:
    """A call written as the JSON text a model would write."""
    arguments: Any = call.arguments if call.arguments_error is None else call.raw_arguments
    return json.dumps({"name": call.name, "arguments": arguments})


def wire_tool(tool: ToolSpec, *, strip: bool = False) -> dict[str, Any]:
    parameters = strip_schema(tool.parameters) if strip else tool.parameters
    return {
        "type": "function",
        "function": {"name": tool.name, "description": tool.description, "parameters": parameters},
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


def _sendable(call: ToolCall, answered: set[str]) -> bool:
    return bool(_VALID_NAME.match(call.name)) and call.id in answered


def _wire_call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {
            "name": call.name,
            "arguments": call.raw_arguments or json.dumps(call.arguments),
        },
    }


def _result_label(message: Message) -> str:
    return "Tool error" if message.is_error else "Tool result"


def _content(message: Message) -> Any:
    if not message.images:
        return message.content
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    for image in message.images:
        data = base64.b64encode(image.data).decode("ascii")
        url = f"data:{image.media_type};base64,{data}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts
