"""Anthropic's Messages API. The only module that touches the ``anthropic`` SDK.

Tools go out as ``tools`` with ``input_schema``; a re-ask answers the model's ``tool_use`` with
a ``tool_result`` block carrying ``is_error``. Structured output goes through instructor's
ANTHROPIC_TOOLS mode. Retries on 429, 5xx and connection errors are the SDK's own.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

import anthropic
import instructor
from instructor.core import InstructorRetryException
from instructor.core.hooks import Hooks
from pydantic import BaseModel

from ..._errors import MissingAPIKeyError, ProviderError, StructuredOutputError
from ...llm._guard import check_request_allowed
from ...llm._messages import (
    ChatResponse,
    Message,
    RequestOptions,
    StructuredResponse,
    ToolCall,
    ToolSpec,
)
from ...llm._tool_arguments import tool_call_from_wire
from ...llm._usage import Usage

T = TypeVar("T", bound=BaseModel)

PLACEHOLDER_KEY = "not-needed"
DEFAULT_MAX_TOKENS = 2048  # the Messages API requires max_tokens


class AsyncAnthropicLLM:
    """The model contract over Anthropic's Messages API."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
    ) -> None:
        self.model = model
        self._max_tokens = max_tokens
        self._temperature = temperature
        base = base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            if base is None or "anthropic.com" in base:
                raise MissingAPIKeyError("Anthropic", "ANTHROPIC_API_KEY")
            key = PLACEHOLDER_KEY  # a local proxy or fake server: no key needed
        self._client = anthropic.AsyncAnthropic(
            api_key=key, base_url=base, timeout=timeout, max_retries=max_retries
        )
        self._timeout = timeout
        self._max_retries = max_retries

    @property
    def endpoint(self) -> str:
        return f"{str(self._client.base_url).rstrip('/')}/v1/messages"

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: Literal["auto", "required"] = "required",
        options: RequestOptions | None = None,
    ) -> ChatResponse:
        check_request_allowed(self.endpoint, self.model)
        system, wire_messages = _wire_messages(messages)
        started = time.perf_counter()
        try:
            request: dict[str, Any] = {
                "model": self.model,
                "messages": wire_messages,
                "tools": [_wire_tool(t) for t in tools],
                "tool_choice": {"type": "any" if tool_choice == "required" else "auto"},
                **self._options(system, options),
            }
            reply = await self._client.messages.create(**request)
        except anthropic.APIError as error:
            raise self._provider_error(error) from error
        calls: list[ToolCall] = []
        texts: list[str] = []
        for block in reply.content:
            if block.type == "tool_use":
                calls.append(tool_call_from_wire(block.id, block.name, block.input))
            elif block.type == "text":
                texts.append(block.text)
        return ChatResponse(
            tool_calls=calls,
            text="\n".join(texts),
            usage=usage_of(reply, time.perf_counter() - started),
            model=reply.model or self.model,
        )

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        max_retries: int = 2,
        options: RequestOptions | None = None,
    ) -> StructuredResponse[T]:
        check_request_allowed(self.endpoint, self.model)
        system, wire_messages = _wire_messages(messages)
        # Mode.TOOLS is what instructor 1.17 calls ANTHROPIC_TOOLS (deprecated alias) here.
        patched = instructor.from_anthropic(self._client, mode=instructor.Mode.TOOLS)
        # Read each response's usage as it arrives: instructor later overwrites it with totals.
        usages: list[Usage] = []
        hooks = Hooks()
        hooks.on("completion:response", lambda response: usages.append(usage_of(response, 0.0)))
        started = time.perf_counter()
        try:
            request: dict[str, Any] = {
                "model": self.model,
                "messages": wire_messages,
                **self._options(system, options),
            }
            value, _ = await patched.create_with_completion(
                response_model=schema, max_retries=max_retries, hooks=hooks, **request
            )
        except InstructorRetryException as error:
            cause = error.__cause__
            if isinstance(cause, anthropic.APIError):
                raise self._provider_error(cause) from cause
            raise StructuredOutputError(
                f"{self.model} never produced a valid {schema.__name__} in "
                f"{error.n_attempts} attempt(s): {cause or error}",
                last_answer=_answer_of(error.last_completion),
                errors=str(cause or error),
            ) from error
        except anthropic.APIError as error:
            raise self._provider_error(error) from error
        usage = sum(usages, Usage())
        usage = usage.model_copy(update={"wall_time_s": time.perf_counter() - started})
        # instructor returns a subclass carrying the raw SDK response: hand back a plain one.
        clean = schema.model_validate(value.model_dump(by_alias=True))
        return StructuredResponse[T](value=clean, usage=usage, attempts=max(len(usages), 1))

    def _options(self, system: str, request: RequestOptions | None) -> dict[str, Any]:
        """max_tokens: the request's own, else the client's default. No temperature: API
        version 2026-10-21 (the SDK 2.x default) rejects every sampling parameter."""
        max_tokens = request.max_tokens if request and request.max_tokens else self._max_tokens
        options: dict[str, Any] = {"max_tokens": max_tokens}
        if system:
            options["system"] = system
        return options

    def _provider_error(self, error: anthropic.APIError) -> ProviderError:
        retries = f"after {self._max_retries} retr{'y' if self._max_retries == 1 else 'ies'}"
        if isinstance(error, anthropic.APITimeoutError):
            reason = f"no answer within the {self._timeout:g}s timeout ({retries})"
        elif isinstance(error, anthropic.APIConnectionError):
            reason = f"could not connect ({retries}): {error.__cause__ or error}"
        elif isinstance(error, anthropic.APIStatusError):
            reason = f"HTTP {error.status_code}: {_error_message(error)}"
            if error.status_code == 429 or error.status_code >= 500:
                reason += f" ({retries})"
        else:
            reason = str(error)
        return ProviderError(self.model, self.endpoint, reason)


def usage_of(reply: Any, wall_time_s: float) -> Usage:
    """Usage of one message. Anthropic counts cache reads and writes apart from
    ``input_tokens``; here they are all prompt tokens, cache reads also counted as cached."""
    usage = getattr(reply, "usage", None)
    cache_read = getattr(usage, "cache_read_input_tokens", 0) or 0
    cache_write = getattr(usage, "cache_creation_input_tokens", 0) or 0
    return Usage(
        requests=1,
        prompt_tokens=(getattr(usage, "input_tokens", 0) or 0) + cache_read + cache_write,
        completion_tokens=getattr(usage, "output_tokens", 0) or 0,
        cached_tokens=cache_read,
        wall_time_s=wall_time_s,
    )


def _wire_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The ``system`` text and the message list, merging neighbours of the same role (tool
    results travel in user turns, and the API wants the roles to alternate)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    wire: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = _blocks(message)
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


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}


def _error_message(error: anthropic.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
    return error.message


def _answer_of(reply: Any) -> Any:
    """The last answer, for StructuredOutputError: the tool input, else the text."""
    for block in getattr(reply, "content", None) or []:
        if getattr(block, "type", "") == "tool_use":
            return block.input
    texts = [getattr(b, "text", "") for b in getattr(reply, "content", None) or []]
    text = "".join(texts)
    try:
        return json.loads(text) if text else None
    except json.JSONDecodeError:
        return text
