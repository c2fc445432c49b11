"""OpenAI chat completions, and any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM
Studio) through ``base_url``. The only module that touches the ``openai`` SDK.

The SDK sends each request (auth, headers, errors) with its own retries switched off; the
body is built here (``llm/_openai_wire.py``) and read here (``llm/_reply.py``), so every
request is counted, honours the caller's deadline, and a malformed reply becomes a re-ask or a
ProviderError naming what was wrong.

With ``compat`` (the default for any server but OpenAI's own) the client walks the capability
ladder of ``llm/_ladder.py`` when the server refuses a feature, strips schemas of keywords
local grammars cannot handle, repeats tool results in user messages, and sends ``max_tokens``
(OpenAI itself gets ``max_completion_tokens``, which its reasoning models require).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar
from urllib.parse import urlsplit

import openai
from pydantic import BaseModel

from ..._errors import ProviderError
from ...llm._guard import check_request_allowed
from ...llm._ladder import (
    TOOL_STRATEGIES,
    CapabilityLadder,
    Shape,
    Strategy,
    refuses_tools,
    tried_text,
)
from ...llm._messages import ChatResponse, Message, RequestOptions, StructuredResponse
from ...llm._openai_wire import chat_body, structured_body
from ...llm._reply import MalformedReply, Reply, parse_completion
from ...llm._structured_answer import has_answer, schema_of
from ._exchange import AsyncExchange, FeatureRejected, learned_text
from ._provider import AsyncProviderLLM
from ._structured import structured_answer, structured_tool_name
from .base import ChatRequest, StructuredRequest

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger("stagehand_py.llm")

COMPAT_ENV_VAR = "STAGEHAND_PY_COMPAT"


class AsyncOpenAILLM(AsyncProviderLLM):
    """The model contract over OpenAI's chat completions API.

    ``timeout`` bounds each request (and the caller's ``RequestOptions.timeout_s`` bounds it
    further); ``max_retries`` retries dropped connections, 429 and 5xx. ``compat`` (default:
    ``$STAGEHAND_PY_COMPAT``, else on for every host but OpenAI's) turns on what
    OpenAI-compatible servers need (see the module docstring).
    """

    path = "/chat/completions"
    api_error = openai.APIError
    timeout_error = openai.APITimeoutError
    status_error = openai.APIStatusError
    truncation = 'finish_reason "length"'
    provider_name = "OpenAI"
    key_variable = "OPENAI_API_KEY"
    base_url_variable = "OPENAI_BASE_URL"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        max_tokens: int | None = None,
        temperature: float | None = None,
        compat: bool | None = None,
    ) -> None:
        self._temperature = temperature
        base = self._connect(
            openai.AsyncOpenAI,
            model,
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            max_tokens=max_tokens,
        )
        if compat is None:
            setting = os.environ.get(COMPAT_ENV_VAR, "").strip().lower()
            compat = setting in ("1", "true", "yes", "on") or (
                setting not in ("0", "false", "no", "off") and not _is_openai_host(base or "")
            )
        self.compat = compat
        self.ladder = CapabilityLadder(enabled=compat)

    @staticmethod
    def _own_host(base_url: str) -> bool:
        return _is_openai_host(base_url)

    # ------------------------------------------------------------------ the contract
    async def _chat(self, request: ChatRequest) -> ChatResponse:
        messages, tools, tool_choice = request.messages, request.tools, request.tool_choice
        options = request.options
        check_request_allowed(self.endpoint, self.model)
        exchange = self._exchange(options)

        def build(budget: int | None, strategy: Strategy) -> dict[str, Any]:
            sampling = self._sampling(options, budget)
            return chat_body(
                self.model,
                messages,
                tools,
                strategy,
                tool_choice=tool_choice,
                sampling=sampling,
                compat=self.compat,
            )

        def usable(reply: Reply) -> bool:
            reply.with_text_calls(tools)
            if tool_choice != "required" or not tools or reply.problem:
                return True  # text is a fine answer; an odd reply is re-asked, not judged
            return bool(reply.tool_calls)

        reply = await exchange.complete(
            lambda budget: self._on_ladder(exchange, "tools", partial(build, budget), usable),
            self._budget(options),
        )
        reply.with_text_calls(tools)  # also on the last rung, which is never judged
        return self._chat_response(exchange, reply)

    async def _structured(self, request: StructuredRequest[T]) -> StructuredResponse[T]:
        options = request.options
        check_request_allowed(self.endpoint, self.model)
        exchange = self._exchange(options)
        name = structured_tool_name(request)
        json_schema = schema_of(request.schema)

        async def ask(conversation: list[Message], budget: int | None) -> Reply:
            def build(strategy: Strategy) -> dict[str, Any]:
                sampling = self._sampling(options, budget)
                return structured_body(
                    self.model,
                    conversation,
                    name,
                    json_schema,
                    strategy,
                    sampling=sampling,
                    compat=self.compat,
                )

            return await self._on_ladder(
                exchange, "structured", build, lambda reply: has_answer(reply, name)
            )

        return await structured_answer(exchange, ask, request, max_tokens=self._budget(options))

    # ------------------------------------------------------------------ the ladder
    async def _on_ladder(
        self,
        exchange: AsyncExchange,
        shape: Shape,
        build: Callable[[Strategy], dict[str, Any]],
        usable: Callable[[Reply], bool],
    ) -> Reply:
        """One request on the first rung this server takes; rungs it refuses are skipped
        (and remembered). ``usable`` says whether a reply holds what was asked for."""
        tried: list[tuple[Strategy, str]] = []
        strategies = self.ladder.strategies(shape)
        no_tools = False
        for position, strategy in enumerate(strategies):
            last = position == len(strategies) - 1
            if no_tools and strategy in TOOL_STRATEGIES:
                continue  # the server said it does no tools at all
            send = partial(self._post, build(strategy))
            try:
                body, seconds = await exchange.post(send, strategy=None if last else strategy)
            except FeatureRejected as rejected:
                tried.append((strategy, rejected.reason))
                no_tools = strategy in TOOL_STRATEGIES and refuses_tools(rejected.message)
                continue
            except ProviderError as error:
                if not tried:
                    raise
                raise exchange.error(
                    f"{error.reason} (strategies tried: {tried_text(tried)})"
                ) from error
            try:
                reply = parse_completion(body, seconds)
            except MalformedReply as malformed:
                raise exchange.error(malformed.reason) from None
            exchange.add_tokens(reply.usage)
            # Only a tool rung can be ignored silently; on a JSON rung the server either takes
            # the format (a grammar) or refuses it, so a bad answer there is the model's own.
            judged = strategy in TOOL_STRATEGIES and not last and not reply.truncated
            if judged and not usable(reply):
                tried.append((strategy, "answered in plain text with no call in it"))
                continue
            # A cut-off answer on a tool rung proves nothing (was the call ignored?); a JSON
            # rung that answered at all took the format.
            proven = not (reply.truncated and strategy in TOOL_STRATEGIES)
            if proven and self.ladder.learn(shape, strategy):
                log.info(learned_text(self.model, self.endpoint, tried_text(tried), strategy))
            return reply
        raise AssertionError("unreachable: the last rung returns or raises")

    # ------------------------------------------------------------------ helpers
    def _sampling(self, options: RequestOptions | None, budget: int | None) -> dict[str, Any]:
        """The token budget (``max_tokens`` for compatible servers, ``max_completion_tokens``
        for OpenAI) and the temperature: the request's own, else the client's."""
        sampling: dict[str, Any] = {}
        if budget is not None:
            sampling["max_tokens" if self.compat else "max_completion_tokens"] = budget
        temperature = options.temperature if options and options.temperature is not None else None
        if temperature is None:
            temperature = self._temperature
        if temperature is not None:
            sampling["temperature"] = temperature
        return sampling


def _is_openai_host(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host == "openai.com" or host.endswith(".openai.com")
