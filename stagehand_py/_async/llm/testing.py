"""Fake models for tests: one answers from a script, one from your functions. No network.

Both record every request (``.requests``), re-ask a structured request with the validation
error when an answer does not fit the schema (as the real clients do through instructor),
and attach an estimated :class:`~stagehand_py.llm.Usage` to every response.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from ..._errors import LLMError, ScriptExhaustedError
from ..._fake_support import (
    ChatAnswer,
    RecordedRequest,
    ScriptItem,
    StructuredAnswer,
    answer_json,
    answer_with_function,
    as_chat_response,
    chat_answer_text,
    estimated_usage,
    exhausted_error,
    reask_messages,
    trimmed,
    validate_answer,
)
from ..._usage import Usage
from ...llm._caps import check_next_request
from ...llm._messages import (
    ChatResponse,
    Message,
    RequestOptions,
    StructuredResponse,
    ToolSpec,
)
from ...llm._request_context import RequestContext, current_request_context
from .base import AsyncModel, ChatRequest, StructuredRequest

T = TypeVar("T", bound=BaseModel)

# Either form works: (messages, tools) or (messages, tools, context), the context being the
# RequestContext of the request (the snapshot shown, the section, the step, the attempt).
ChatFunction = (
    Callable[[list[Message], list[ToolSpec]], ChatAnswer]
    | Callable[[list[Message], list[ToolSpec], RequestContext], ChatAnswer]
)
StructuredFunction = (
    Callable[[list[Message], type[BaseModel]], StructuredAnswer]
    | Callable[[list[Message], type[BaseModel], RequestContext], StructuredAnswer]
)

__all__ = [
    "AsyncFunctionLLM",
    "AsyncScriptedLLM",
    "RecordedRequest",
    "RequestContext",
    "ScriptItem",
]


class AsyncFakeLLMBase(AsyncModel):
    """What both fakes share: the request log and the chat/structured plumbing."""

    model: str

    def __init__(self, model: str) -> None:
        self.model = model
        self.requests: list[RecordedRequest] = []

    @property
    def calls(self) -> int:
        """How many requests were received (each re-ask counts)."""
        return len(self.requests)

    def _answer(self, request: RecordedRequest) -> object:
        raise NotImplementedError

    def _receive(self, request: RecordedRequest) -> tuple[object, float]:
        """Record ``request`` and answer it: the answer and the seconds it took. An
        ``Exception`` given as the answer is raised."""
        __tracebackhide__ = True
        self.requests.append(request)
        started = time.perf_counter()
        answer = self._answer(request)
        if isinstance(answer, Exception):
            raise answer
        return answer, time.perf_counter() - started

    async def _chat(self, asked: ChatRequest) -> ChatResponse:
        __tracebackhide__ = True
        request = RecordedRequest(
            kind="chat",
            messages=list(asked.messages),
            tools=list(asked.tools),
            tool_choice=asked.tool_choice,
            options=asked.options or RequestOptions(),
        )
        answer, seconds = self._receive(request)
        response = as_chat_response(answer, type(self).__name__)
        if response.usage.requests == 0:
            response.usage = estimated_usage(request.messages, chat_answer_text(response), seconds)
        response.model = response.model or self.model
        return response

    async def _structured(self, asked: StructuredRequest[T]) -> StructuredResponse[T]:
        __tracebackhide__ = True
        schema, max_retries = asked.schema, asked.max_retries
        conversation = list(asked.messages)
        usage = Usage()
        for attempt in range(1, max_retries + 2):
            request = RecordedRequest(
                kind="structured",
                messages=list(conversation),
                schema_name=schema.__name__,
                options=asked.options or RequestOptions(),
            )
            check_next_request(usage)  # a re-ask is a request: the spending caps apply
            try:
                answer, seconds = self._receive(request)
            except LLMError as error:
                # The failed request and the re-asks before it were all sent: they all count.
                error.usage = usage + (error.usage if error.usage.requests else Usage(requests=1))
                raise
            usage = usage + estimated_usage(conversation, answer_json(answer), seconds)
            try:
                value = validate_answer(answer, schema, type(self).__name__)
            except ValidationError as error:
                if attempt > max_retries:
                    failure = exhausted_error(schema, attempt, answer, str(error))
                    failure.usage = usage
                    raise failure from error
                conversation.extend(reask_messages(answer, error))
                continue
            return StructuredResponse[T](value=value, usage=usage, attempts=attempt)
        raise AssertionError("unreachable: the loop returns or raises")


class AsyncScriptedLLM(AsyncFakeLLMBase):
    """Answers each request with the next queued item.

    Chat requests take a ``ToolCall``, a list of them, a ``ChatResponse`` or a ``str`` (plain
    text, no tool call). Structured requests take a model instance or a dict (validated
    against the requested schema; an invalid one is re-asked, consuming the next item). An
    ``Exception`` instance is raised instead. An empty queue raises ``ScriptExhaustedError``.
    """

    def __init__(self, *script: ScriptItem, model: str = "scripted") -> None:
        super().__init__(model)
        self._script: deque[ScriptItem] = deque(script)

    def queue(self, *items: ScriptItem) -> None:
        """Append answers to the script."""
        self._script.extend(items)

    @property
    def remaining(self) -> int:
        """How many queued answers are left."""
        return len(self._script)

    def _answer(self, request: RecordedRequest) -> object:
        if not self._script:
            what = request.schema_name if request.kind == "structured" else "tool call"
            raise ScriptExhaustedError(
                f"{type(self).__name__} ran out of answers at request {self.calls} "
                f"({request.kind}, expecting {what}); last user message: "
                f"{trimmed(request.last_user_message())!r}. Queue more answers with "
                f".queue(...) or in the constructor."
            )
        return self._script.popleft()


class AsyncFunctionLLM(AsyncFakeLLMBase):
    """Answers with your functions: ``chat(messages, tools)`` and ``structured(messages,
    schema)`` (plain functions). Their answers take the same forms as a scripted LLM's.

    A function that takes a third argument also gets the request's
    :class:`~stagehand_py.testing.RequestContext`: its ``kind``, the ``snapshot`` shown (numbers
    to elements and selectors), the ``section``, the ``step`` count and the ``attempt``, with
    ``context.find("Save")`` giving the number of the shown element whose text is Save.
    """

    def __init__(
        self,
        chat: ChatFunction | None = None,
        structured: StructuredFunction | None = None,
        *,
        model: str = "function",
    ) -> None:
        super().__init__(model)
        self._chat_function = chat
        self._structured_function = structured
        self._schemas: dict[str, type[BaseModel]] = {}

    async def _structured(self, asked: StructuredRequest[T]) -> StructuredResponse[T]:
        __tracebackhide__ = True
        self._schemas[asked.schema.__name__] = asked.schema
        return await super()._structured(asked)

    def _answer(self, request: RecordedRequest) -> object:
        name = type(self).__name__
        if request.kind == "chat":
            if self._chat_function is None:
                raise ScriptExhaustedError(f"{name} got a chat request but has no chat function.")
            return answer_with_function(
                self._chat_function, list(request.messages), list(request.tools), self._context()
            )
        if self._structured_function is None:
            raise ScriptExhaustedError(
                f"{name} got a structured request ({request.schema_name}) but has no "
                f"structured function."
            )
        schema = self._schemas[request.schema_name or ""]
        return answer_with_function(
            self._structured_function, list(request.messages), schema, self._context()
        )

    def _context(self) -> RequestContext:
        """The loop's context for this request, or a bare one for a direct call."""
        current = current_request_context()
        if current is not None:
            return current
        kind = self.requests[-1].options.kind if self.requests else "other"
        return RequestContext(kind=kind)
