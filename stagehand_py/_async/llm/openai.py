"""OpenAI chat completions, and any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM
Studio) through ``base_url``. The only module that touches the ``openai`` SDK.

Tool support varies between compatible servers: a call written as JSON text is parsed from
the message content, and a server that rejects ``tools`` is asked again (then always) with a
JSON-schema ``response_format`` describing the same tools. Retries on 429, 5xx and
connection errors are the SDK's own (``max_retries``, ``timeout``).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Sequence
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

import instructor
import openai
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
from ...llm._openai_wire import (
    error_message,
    last_answer,
    plain_wire_messages,
    rejects_tools,
    tool_choice_schema,
    usage_of,
    wire_message,
    wire_tool,
)
from ...llm._tool_arguments import tool_call_from_wire, tool_calls_from_text
from ...llm._usage import Usage

T = TypeVar("T", bound=BaseModel)
log = logging.getLogger("stagehand_py.llm")
ToolMode = Literal["auto", "tools", "json_schema"]

# Sent as the key to local servers that need none: the SDK insists on having one.
PLACEHOLDER_KEY = "not-needed"
_JSON_TOOL_INSTRUCTION = (
    "Answer with one JSON object calling exactly one of these tools, shaped "
    '{{"name": <tool name>, "arguments": {{...}}}}. Tools:\n{tools}'
)


class AsyncOpenAILLM:
    """The model contract over OpenAI's chat completions API."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        tool_mode: ToolMode = "auto",
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> None:
        self.model = model
        self.tool_mode: ToolMode = tool_mode
        self._max_tokens = max_tokens
        self._temperature = temperature
        base = base_url or os.environ.get("OPENAI_BASE_URL") or None
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if base is None or _is_openai_host(base):
                raise MissingAPIKeyError("OpenAI", "OPENAI_API_KEY")
            key = PLACEHOLDER_KEY  # a local or self-hosted server: no key needed
        self._client = openai.AsyncOpenAI(
            api_key=key, base_url=base, timeout=timeout, max_retries=max_retries
        )
        self._timeout = timeout
        self._max_retries = max_retries

    @property
    def endpoint(self) -> str:
        return f"{str(self._client.base_url).rstrip('/')}/chat/completions"

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: Literal["auto", "required"] = "required",
        options: RequestOptions | None = None,
    ) -> ChatResponse:
        check_request_allowed(self.endpoint, self.model)
        started = time.perf_counter()
        wire_messages = [wire_message(m) for m in messages]
        completion: Any = None
        if self.tool_mode != "json_schema":
            try:
                request: dict[str, Any] = {
                    "model": self.model,
                    "messages": wire_messages,
                    "tools": [wire_tool(t) for t in tools],
                    "tool_choice": tool_choice,
                    **self._sampling(options),
                }
                completion = await self._client.chat.completions.create(**request)
            except openai.APIStatusError as error:
                if not (self.tool_mode == "auto" and rejects_tools(error)):
                    raise self._provider_error(error) from error
                self._give_up_tools(error)
            except openai.APIError as error:
                raise self._provider_error(error) from error
        if completion is None:
            completion = await self._chat_as_json(messages, tools, options)
        return self._chat_response(completion, tools, time.perf_counter() - started)

    async def _chat_as_json(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        options: RequestOptions | None,
    ) -> Any:
        """The same request for a server without tool calls: tools described in the system
        prompt, earlier calls and results as plain text, the answer held to a JSON schema."""
        listing = "\n".join(
            json.dumps({"name": t.name, "description": t.description, "arguments": t.parameters})
            for t in tools
        )
        instruction = _JSON_TOOL_INSTRUCTION.format(tools=listing)
        try:
            request: dict[str, Any] = {
                "model": self.model,
                "messages": plain_wire_messages(messages, instruction),
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": "tool_call", "schema": tool_choice_schema(tools)},
                },
                **self._sampling(options),
            }
            return await self._client.chat.completions.create(**request)
        except openai.APIError as error:
            raise self._provider_error(error) from error

    def _chat_response(
        self, completion: Any, tools: Sequence[ToolSpec], wall_time_s: float
    ) -> ChatResponse:
        if not completion.choices:
            raise ProviderError(self.model, self.endpoint, "the response has no choices")
        message = completion.choices[0].message
        calls: list[ToolCall] = []
        for call in message.tool_calls or []:
            function = getattr(call, "function", None)
            if function is not None:
                calls.append(tool_call_from_wire(call.id, function.name, function.arguments))
        text = message.content or ""
        if not calls and text:
            calls = tool_calls_from_text(text, tools)
        return ChatResponse(
            tool_calls=calls,
            text=text,
            usage=usage_of(completion, wall_time_s),
            model=getattr(completion, "model", "") or self.model,
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
        try:
            return await self._structured(messages, schema, max_retries, options)
        except ProviderError as error:
            cause = error.__cause__
            if not (
                self.tool_mode == "auto"
                and isinstance(cause, openai.APIStatusError)
                and rejects_tools(cause)
            ):
                raise
        self._give_up_tools(cause)
        return await self._structured(messages, schema, max_retries, options)

    def _give_up_tools(self, error: openai.APIStatusError) -> None:
        """This server cannot do tool calls: use JSON-schema answers from now on."""
        log.info(
            "%s at %s rejected tool calls (%s); using a JSON-schema response format instead",
            self.model,
            self.endpoint,
            error_message(error),
        )
        self.tool_mode = "json_schema"

    async def _structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        max_retries: int,
        options: RequestOptions | None,
    ) -> StructuredResponse[T]:
        mode = (
            instructor.Mode.JSON_SCHEMA
            if self.tool_mode == "json_schema"
            else instructor.Mode.TOOLS
        )
        patched = instructor.from_openai(self._client, mode=mode)
        # Read each response's usage as it arrives: instructor later overwrites it with totals.
        usages: list[Usage] = []
        hooks = Hooks()
        hooks.on("completion:response", lambda response: usages.append(usage_of(response, 0.0)))
        started = time.perf_counter()
        try:
            request: dict[str, Any] = {
                "model": self.model,
                "messages": [wire_message(m) for m in messages],
                **self._sampling(options),
            }
            value, _ = await patched.create_with_completion(
                response_model=schema, max_retries=max_retries, hooks=hooks, **request
            )
        except InstructorRetryException as error:
            cause = error.__cause__
            if isinstance(cause, openai.APIError):
                raise self._provider_error(cause) from cause
            raise StructuredOutputError(
                f"{self.model} never produced a valid {schema.__name__} in "
                f"{error.n_attempts} attempt(s): {cause or error}",
                last_answer=last_answer(error.last_completion),
                errors=str(cause or error),
            ) from error
        except openai.APIError as error:
            raise self._provider_error(error) from error
        wall = time.perf_counter() - started
        usage = sum(usages, Usage())
        usage = usage.model_copy(update={"wall_time_s": wall})
        # instructor returns a subclass carrying the raw SDK response: hand back a plain one.
        clean = schema.model_validate(value.model_dump(by_alias=True))
        return StructuredResponse[T](value=clean, usage=usage, attempts=max(len(usages), 1))

    def _sampling(self, options: RequestOptions | None) -> dict[str, Any]:
        """max_tokens and temperature: the request's own, else the client's defaults."""
        sampling: dict[str, Any] = {}
        max_tokens = options.max_tokens if options and options.max_tokens else self._max_tokens
        if max_tokens is not None:
            sampling["max_tokens"] = max_tokens
        temperature = options.temperature if options and options.temperature is not None else None
        if temperature is None:
            temperature = self._temperature
        if temperature is not None:
            sampling["temperature"] = temperature
        return sampling

    def _provider_error(self, error: openai.APIError) -> ProviderError:
        retries = f"after {self._max_retries} retr{'y' if self._max_retries == 1 else 'ies'}"
        if isinstance(error, openai.APITimeoutError):
            reason = f"no answer within the {self._timeout:g}s timeout ({retries})"
        elif isinstance(error, openai.APIConnectionError):
            reason = f"could not connect ({retries}): {error.__cause__ or error}"
        elif isinstance(error, openai.APIStatusError):
            reason = f"HTTP {error.status_code}: {error_message(error)}"
            if error.status_code == 429 or error.status_code >= 500:
                reason += f" ({retries})"
        else:
            reason = str(error)
        return ProviderError(self.model, self.endpoint, reason)


def _is_openai_host(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host == "openai.com" or host.endswith(".openai.com")
