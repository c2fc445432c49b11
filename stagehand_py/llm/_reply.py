"""One model reply, read from the raw response body, whatever shape the server gave it.

The providers send requests with the real SDKs but read the body themselves, so a body that is
not JSON, is cut off, or has ``null`` where an object belongs becomes either a reply the
caller can re-ask (no message, no content, a call without a name) or a :class:`MalformedReply`
naming what was wrong. Nothing here trusts a field's type.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .._usage import Usage
from ._messages import ToolCall, ToolSpec
from ._tool_arguments import tool_call_from_wire, tool_calls_from_text

_generated_ids = itertools.count(1)


class MalformedReply(Exception):
    """The response body is not a reply at all; ``reason`` says what it is instead."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Reply:
    """What the model answered: tool calls (sent as calls, or written as JSON in the text), the
    text, and whether the answer was cut off by the token limit. ``problem`` notes a reply
    that came back empty in an odd way (``message: null``), for the logs."""

    tool_calls: list[ToolCall] = field(default_factory=list)
    text: str = ""
    truncated: bool = False
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    problem: str = ""
    calls_from_text: bool = False

    def with_text_calls(self, tools: Sequence[ToolSpec]) -> Reply:
        """The reply, with calls written as JSON in its text read as calls when it sent none."""
        if not self.tool_calls and self.text:
            found = tool_calls_from_text(self.text, tools)
            if found:
                self.tool_calls = found
                self.calls_from_text = True
        return self

    @classmethod
    def of_body(cls, data: dict[str, Any], usage: Usage, *, truncated: bool) -> Reply:
        """An empty reply holding what a body says at its top: the model, usage, cut-off."""
        model = data.get("model")
        return cls(usage=usage, model=model if isinstance(model, str) else "", truncated=truncated)


def load_body(raw: bytes | str) -> dict[str, Any]:
    """The JSON object of a response body; MalformedReply when it is empty, cut off, not JSON
    or not an object."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if not text.strip():
        raise MalformedReply("the response body is empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        if _unclosed(text):
            raise MalformedReply(
                f"the response body is cut off: its JSON ends after {len(text)} characters "
                f"({error.msg})"
            ) from None
        raise MalformedReply(f"the response body is not JSON: {_preview(text)}") from None
    except ValueError:  # an integer of more digits than Python converts (4,300 by default)
        raise MalformedReply("the response body holds a number too long to read") from None
    if not isinstance(data, dict):
        raise MalformedReply(f"the response body is a JSON {type(data).__name__}, not an object")
    return data


def parse_completion(raw: bytes | str, wall_time_s: float) -> Reply:
    """A chat completion (OpenAI's shape) read from its body."""
    data = load_body(raw)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        error = data.get("error")
        if error is not None:
            raise MalformedReply(f"the server sent an error with status 200: {_preview(error)}")
        raise MalformedReply(f"the response has no choices: {_preview(data)}")
    choice = choices[0] if isinstance(choices[0], dict) else {}
    usage = completion_usage(data.get("usage"), wall_time_s)
    reply = Reply.of_body(data, usage, truncated=choice.get("finish_reason") == "length")
    message = choice.get("message")
    if not isinstance(message, dict):
        reply.problem = f"the reply has no message (message: {_preview(message)})"
        return reply
    reply.text = content_text(message.get("content"))
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            reply.tool_calls.append(
                checked_call(call.get("id"), function.get("name"), function.get("arguments"))
            )
    return reply


def checked_call(call_id: object, name: object, arguments: object) -> ToolCall:
    """A ToolCall from fields of any type: a missing id is made up; a missing name or bad
    arguments leave ``arguments_error`` set, so the caller re-asks."""
    ident = call_id if isinstance(call_id, str) and call_id else f"call_{next(_generated_ids)}"
    call = tool_call_from_wire(ident, name if isinstance(name, str) else "", arguments or {})
    if not call.name:
        call.arguments_error = "the call named no tool; call one of the tools by its name"
    return call


def content_text(content: object) -> str:
    """Message content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part if isinstance(part, str) else part.get("text")
            for part in content
            if isinstance(part, (str, dict))
        ]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def completion_usage(usage: object, wall_time_s: float) -> Usage:
    """Usage of one completion; cached tokens from ``prompt_tokens_details``."""
    fields = usage if isinstance(usage, dict) else {}
    details = fields.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else 0
    return Usage(
        requests=1,
        prompt_tokens=count(fields.get("prompt_tokens")),
        completion_tokens=count(fields.get("completion_tokens")),
        cached_tokens=count(cached),
        wall_time_s=wall_time_s,
    )


def count(value: object) -> int:
    """A token count from whatever the server sent (missing or odd values count 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _unclosed(text: str) -> bool:
    """Whether JSON text stops inside a string or with brackets still open (cut off)."""
    depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return in_string or depth > 0


def _preview(value: object, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
