"""Anthropic's Messages API. The only module that touches the ``anthropic`` SDK.

Tools go out as ``tools`` with ``input_schema``; a re-ask answers the model's ``tool_use`` with
a ``tool_result`` block carrying ``is_error``. A structured answer is a call of one tool named
in ``tool_choice``, validated here and re-asked with the validation error (the loop both
providers share). The SDK sends each request with its own retries off; bodies are built and
read in ``llm/_anthropic_wire.py``, so every request is counted and honours the deadline.

No request carries ``temperature``: API version 2026-10-21 (what SDK 2.x sends) rejects every
sampling parameter with HTTP 400. A temperature set anyway is ignored, with one INFO line.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import partial
from typing import Any, TypeVar

import anthropic
from pydantic import BaseModel

from ...llm._anthropic_wire import parse_message, wire_messages, wire_tool
from ...llm._guard import check_request_allowed
from ...llm._messages import ChatResponse, Message, RequestOptions, StructuredResponse
from ...llm._reply import MalformedReply, Reply
from ...llm._structured_answer import schema_of
from ._exchange import AsyncExchange
from ._provider import AsyncProviderLLM
from ._structured import structured_answer, structured_tool_name
from .base import ChatRequest, StructuredRequest

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger("stagehand_py.llm")

DEFAULT_MAX_TOKENS = 2048  # the Messages API requires max_tokens


class AsyncAnthropicLLM(AsyncProviderLLM):
    """The model contract over Anthropic's Messages API."""

    path = "/v1/messages"
    api_error = anthropic.APIError
    timeout_error = anthropic.APITimeoutError
    status_error = anthropic.APIStatusError
    truncation = 'stop_reason "max_tokens"'
    provider_name = "Anthropic"
    key_variable = "ANTHROPIC_API_KEY"
    base_url_variable = "ANTHROPIC_BASE_URL"
    _max_tokens: int

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
        self._temperature_noted = False
        self._connect(
            anthropic.AsyncAnthropic,
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            max_tokens=max_tokens,
        )
        self._note_temperature(temperature)

    @staticmethod
    def _own_host(base_url: str) -> bool:
        return "anthropic.com" in base_url

    async def _chat(self, request: ChatRequest) -> ChatResponse:
        check_request_allowed(self.endpoint, self.model)
        exchange = self._exchange(request.options)
        choice = {"type": "any" if request.tool_choice == "required" else "auto"}
        offered = [wire_tool(t) for t in request.tools]

        async def ask(budget: int | None) -> Reply:
            return await self._send(
                exchange, request.messages, budget, tools=offered, choice=choice
            )

        reply = await exchange.complete(ask, self._budget(request.options))
        return self._chat_response(exchange, reply)

    async def _structured(self, request: StructuredRequest[T]) -> StructuredResponse[T]:
        check_request_allowed(self.endpoint, self.model)
        exchange = self._exchange(request.options)
        name = structured_tool_name(request)
        tool = {
            "name": name,
            "description": f"Answer with a {request.schema.__name__}.",
            "input_schema": schema_of(request.schema),
        }

        async def ask(conversation: list[Message], budget: int | None) -> Reply:
            choice = {"type": "tool", "name": name}
            return await self._send(exchange, conversation, budget, tools=[tool], choice=choice)

        return await structured_answer(
            exchange, ask, request, max_tokens=self._budget(request.options)
        )

    async def _send(
        self,
        exchange: AsyncExchange,
        messages: Sequence[Message],
        budget: int | None,
        *,
        tools: list[dict[str, Any]],
        choice: dict[str, Any],
    ) -> Reply:
        system, conversation = wire_messages(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": budget or self._max_tokens,
            "messages": conversation,
        }
        if tools:  # the API refuses a tool_choice without tools
            body |= {"tools": tools, "tool_choice": choice}
        if system:
            body["system"] = system

        raw, seconds = await exchange.post(partial(self._post, body))
        try:
            reply = parse_message(raw, seconds)
        except MalformedReply as malformed:
            raise exchange.error(malformed.reason) from None
        exchange.add_tokens(reply.usage)
        return reply

    def _exchange(self, options: RequestOptions | None) -> AsyncExchange:
        if options is not None:
            self._note_temperature(options.temperature)
        return super()._exchange(options)

    def _note_temperature(self, temperature: float | None) -> None:
        if temperature is None or self._temperature_noted:
            return
        self._temperature_noted = True
        log.info(
            "%s: temperature=%g is ignored: Anthropic's current API version rejects sampling "
            "parameters, so none is sent",
            self.model,
            temperature,
        )
