"""The "llama.cpp" profile of the loopback LLM server (``server.use_profile(LlamaCpp(model))``).

It answers the way llama-cpp-python's stock OpenAI-compatible server (0.3.x) answers when it
serves a small model whose chat format has no function calling, as issue #14 records:

* ``tool_choice: "required"``: HTTP 500 with an empty body;
* a message with ``"content": null``: HTTP 500 with a 7-entry pydantic validation dump;
* ``response_format`` other than ``text``/``json_object``: HTTP 500, ``Input should be 'text'
  or 'json_object'``;
* a named ``tool_choice`` or ``response_format: {"type": "json_object", "schema": ...}`` holds
  the answer to that schema (a grammar); ``tool_choice: "auto"`` and tools without a named
  choice are ignored: the model answers in text;
* the chat template renders only the role and ``content`` of system, user and assistant
  messages: ``role: "tool"`` messages and assistant ``tool_calls`` never reach the model;
* ``max_tokens`` cuts the answer off: ``finish_reason: "length"`` (a named tool's cut-off
  arguments still come back with ``"tool_calls"``, as the real server sends them);
* a ``pattern`` in a schema it must turn into a grammar crashes the server: that connection
  closes with no reply, and so does every later one.

The model is the test's function: it gets a :class:`Turn` (what the real model would see: the
visible messages and the schema its output is held to) and returns the text it generates.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.llm_wire_server import ReceivedRequest, ScriptedReply

CHARS_PER_TOKEN = 4
_ids = itertools.count(1)


@dataclass(frozen=True)
class Turn:
    """What the model sees of one request."""

    messages: list[dict[str, str]]  # role and content only, tool messages dropped
    schema: dict[str, Any] | None  # the grammar's schema, when the output is constrained

    @property
    def prompt(self) -> str:
        return "\n".join(m["content"] for m in self.messages)

    @property
    def page_section(self) -> str:
        """The last user message that shows numbered element lines."""
        users = [m["content"] for m in self.messages if m["role"] == "user"]
        return next((text for text in reversed(users) if _LINE.search(text)), "")


Model = Callable[[Turn], str]


class LlamaCpp:
    """The profile. ``turns`` records what the model saw, request by request."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.turns: list[Turn] = []
        self.crashed = False

    def answer(self, request: ReceivedRequest) -> ScriptedReply:
        body = request.body if isinstance(request.body, dict) else {}
        if self.crashed:
            return ScriptedReply(None, close=True)
        messages = body.get("messages") or []
        nulls = [i for i, m in enumerate(messages) if m.get("content", "") is None]
        if nulls:
            return _internal_error(_null_content_dump(nulls[0]))
        response_format = body.get("response_format") or {}
        if response_format.get("type", "text") not in ("text", "json_object"):
            return _internal_error(_response_format_dump(response_format.get("type")))
        choice = body.get("tool_choice")
        if choice == "required":
            return ScriptedReply(None, status=500, raw=b"")
        named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
        schema = _grammar_schema(body, named)
        if schema is not None and '"pattern"' in json.dumps(schema):
            self.crashed = True  # the grammar converter fails and takes the server down
            return ScriptedReply(None, close=True)
        turn = Turn(messages=_visible(messages), schema=schema)
        self.turns.append(turn)
        text = self.model(turn)
        budget = body.get("max_tokens")
        cut = isinstance(budget, int) and len(text) > budget * CHARS_PER_TOKEN
        if cut:
            text = text[: budget * CHARS_PER_TOKEN]
        return ScriptedReply(_completion(turn, text, named, cut, body.get("model", "local")))


def _grammar_schema(body: dict[str, Any], named: str | None) -> dict[str, Any] | None:
    if named is not None:
        for tool in body.get("tools") or []:
            if tool.get("function", {}).get("name") == named:
                parameters: dict[str, Any] = tool["function"].get("parameters") or {}
                return parameters
        return None
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_object":
        schema: dict[str, Any] = response_format.get("schema") or {"type": "object"}
        return schema
    return None


def _visible(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [
        {"role": m["role"], "content": m.get("content") or ""}
        for m in messages
        if m.get("role") in ("system", "user", "assistant") and isinstance(m.get("content"), str)
    ]


def _completion(turn: Turn, text: str, named: str | None, cut: bool, model: str) -> dict[str, Any]:
    number = next(_ids)
    message: dict[str, Any] = {"role": "assistant", "content": text}
    finish = "length" if cut else "stop"
    if named is not None:
        call = {"name": named, "arguments": text}
        message = {
            "role": "assistant",
            "content": None,
            "function_call": call,
            "tool_calls": [
                {"id": f"call__0_{named}_cmpl-{number}", "type": "function", "function": call}
            ],
        }
        finish = "tool_calls"
    prompt_tokens = len(turn.prompt) // CHARS_PER_TOKEN + 1
    completion_tokens = len(text) // CHARS_PER_TOKEN + 1
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _internal_error(message: str) -> ScriptedReply:
    body = {"error": {"message": message, "type": "internal_server_error", "param": None}}
    return ScriptedReply(body, status=500)


def _null_content_dump(index: int) -> str:
    kinds = ["System", "User", "User", "Assistant", "Tool", "Function", "Assistant"]
    entries = [
        f"messages.{index}.ChatCompletionRequest{kind}Message.content\n"
        "  Input should be a valid string [type=string_type, input_value=None, "
        "input_type=NoneType]\n"
        "    For further information visit https://errors.pydantic.dev/2.9/v/string_type"
        for kind in kinds
    ]
    return f"{len(entries)} validation errors for CreateChatCompletionRequest\n" + "\n".join(
        entries
    )


def _response_format_dump(kind: object) -> str:
    # As llama-cpp-python 0.3.36 sends it (captured by scripts/local-server-smoke.sh).
    return (
        "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
        f"'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': {kind!r}, "
        "'ctx': {'expected': \"'text' or 'json_object'\"}}\n\n  File \"/venv/lib/python3.11/"
        'site-packages/llama_cpp/server/app.py", line 376, in create_chat_completion\n'
        "    POST /v1/chat/completions"
    )


# -- a stand-in for the small model behind the server ----------------------------------------

_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)
PROSE = "Sure! I can help with that. Let me have a look at the page for you."


@dataclass
class Step:
    """One doAction: ``pattern`` picks the element's line (``<tag attrs>text</tag>``)."""

    method: str
    pattern: str
    args: tuple[str, ...] = ()


@dataclass
class TinyModel:
    """Answers like a small model does: prose when nothing holds it to a schema; with a
    grammar, JSON that fits, its choices read off the numbered lines it is shown.

    ``stubborn``: its first act answer names an element that is not shown (999), and it
    repeats that answer until an error message about it reaches what it sees.
    ``extract_first``: the data of its first extract answer (then ``extract``).
    """

    steps: list[Step] = field(default_factory=list)
    done_text: str = ""
    observe_pattern: str = ""
    extract: dict[str, Any] = field(default_factory=dict)
    extract_first: dict[str, Any] | None = None
    stubborn: bool = False
    position: int = 0
    _said: dict[str, str] = field(default_factory=dict)  # the same prompt, the same answer

    def __call__(self, turn: Turn) -> str:
        if turn.schema is None:
            return PROSE
        properties = turn.schema.get("properties") or {}
        title = turn.schema.get("title")
        if {"name", "arguments"} <= set(properties):
            if turn.prompt not in self._said:
                self._said[turn.prompt] = self._act(turn)
            return self._said[turn.prompt]
        if title == "VerifyAnswer":
            done = bool(self.done_text) and self.done_text in turn.prompt
            return json.dumps({"completed": done, "reason": "seen" if done else "not yet"})
        if title == "ObserveAnswer":
            element = line_number(turn.page_section, self.observe_pattern)
            found = [] if element is None else [{"element": element, "description": "it"}]
            return json.dumps({"elements": found})
        data = self.extract
        if self.extract_first is not None and "Validation Error" not in turn.prompt:
            data = self.extract_first
        return json.dumps({"data": data, "complete": True})

    def _act(self, turn: Turn) -> str:
        if self.stubborn and "Element 999" not in turn.prompt:
            return _call("doAction", method="click", element=999, args=[], completed=False)
        if self.position >= len(self.steps):
            return _call("skipSection", reason="nothing left to do")
        step = self.steps[self.position]
        element = line_number(turn.page_section, step.pattern)
        if element is None:
            return _call("skipSection", reason="not in this section")
        self.position += 1
        done = self.position == len(self.steps)
        return _call(
            "doAction", method=step.method, element=element, args=list(step.args), completed=done
        )


def _call(name: str, **arguments: Any) -> str:
    if name == "doAction":
        arguments = {**arguments, "step": arguments["method"], "why": "asked"}
    return json.dumps({"name": name, "arguments": arguments})


def line_number(section: str, pattern: str) -> int | None:
    """The number of the first element line in ``section`` matching ``pattern``."""
    for match in _LINE.finditer(section):
        if re.search(pattern, match.group(2)):
            return int(match.group(1))
    return None
