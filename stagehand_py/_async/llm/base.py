"""The model contract: two requests, small enough that a fake is ten lines.

:class:`AsyncLLM` is what a model must offer (a user's own client only has to match it).
The package's own models (providers, fakes, wrappers) derive from :class:`AsyncModel`,
which writes the two methods once and hands each call over as one request object
(:class:`ChatRequest`, :class:`StructuredRequest`). A wrapper (:class:`AsyncModelWrapper`:
the user's instructions, the agent's time bounds) passes each request on to the model it
wraps, whatever its kind.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from ...llm._messages import ChatResponse, Message, RequestOptions, StructuredResponse, ToolSpec

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
ToolChoice = Literal["auto", "required"]


@runtime_checkable
class AsyncLLM(Protocol):
    """What act(), extract() and observe() need from a language model."""

    model: str

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: Literal["auto", "required"] = "required",
        options: RequestOptions | None = None,
    ) -> ChatResponse:
        """Send a chat with tools; return the tool calls made (possibly none) and any text.

        ``options`` carries the request's kind, token and temperature overrides and the time
        the caller has left (see :class:`~stagehand_py.llm.RequestOptions`)."""
        ...

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        max_retries: int = 2,
        options: RequestOptions | None = None,
    ) -> StructuredResponse[T]:
        """Return an instance of ``schema``, re-asking with validation errors up to
        ``max_retries`` times; raise ``StructuredOutputError`` when it never validates."""
        ...


@dataclass(frozen=True)
class ChatRequest:
    """The arguments of one ``chat()`` call."""

    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    tool_choice: ToolChoice = "required"
    options: RequestOptions | None = None

    def with_messages(self, messages: Sequence[Message]) -> ChatRequest:
        return replace(self, messages=messages)

    def with_options(self, options: RequestOptions) -> ChatRequest:
        return replace(self, options=options)

    async def send(self, llm: AsyncLLM) -> ChatResponse:
        """Make this call on ``llm``."""
        return await llm.chat(
            self.messages, self.tools, tool_choice=self.tool_choice, options=self.options
        )


@dataclass(frozen=True)
class StructuredRequest(Generic[T]):
    """The arguments of one ``structured()`` call."""

    messages: Sequence[Message]
    schema: type[T]
    max_retries: int = 2
    options: RequestOptions | None = None

    def with_messages(self, messages: Sequence[Message]) -> StructuredRequest[T]:
        return replace(self, messages=messages)

    def with_options(self, options: RequestOptions) -> StructuredRequest[T]:
        return replace(self, options=options)

    async def send(self, llm: AsyncLLM) -> StructuredResponse[T]:
        """Make this call on ``llm``."""
        return await llm.structured(
            self.messages, self.schema, max_retries=self.max_retries, options=self.options
        )


class ModelRequest(Protocol[R_co]):
    """A chat or a structured request, answered by an ``R_co``: what a wrapper passes on."""

    @property
    def messages(self) -> Sequence[Message]: ...

    @property
    def options(self) -> RequestOptions | None: ...

    def with_messages(self, messages: Sequence[Message]) -> ModelRequest[R_co]: ...

    def with_options(self, options: RequestOptions) -> ModelRequest[R_co]: ...

    async def send(self, llm: AsyncLLM) -> R_co: ...


class AsyncModel(ABC):
    """The contract's two methods, written once for the package's own models: each call
    becomes a request object handed to :meth:`_chat` or :meth:`_structured`."""

    model: str

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: ToolChoice = "required",
        options: RequestOptions | None = None,
    ) -> ChatResponse:
        __tracebackhide__ = True  # pytest shows the caller's line, not this hand-over
        return await self._chat(ChatRequest(messages, tools, tool_choice, options))

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        max_retries: int = 2,
        options: RequestOptions | None = None,
    ) -> StructuredResponse[T]:
        __tracebackhide__ = True
        return await self._structured(StructuredRequest(messages, schema, max_retries, options))

    @abstractmethod
    async def _chat(self, request: ChatRequest) -> ChatResponse:
        """Answer one chat request."""

    @abstractmethod
    async def _structured(self, request: StructuredRequest[T]) -> StructuredResponse[T]:
        """Answer one structured request."""


class AsyncModelWrapper(AsyncModel):
    """A model over another model: requests of either kind go through :meth:`_forward`."""

    async def _chat(self, request: ChatRequest) -> ChatResponse:
        return await self._forward(request)

    async def _structured(self, request: StructuredRequest[T]) -> StructuredResponse[T]:
        return await self._forward(request)

    @abstractmethod
    async def _forward(self, request: ModelRequest[R]) -> R:
        """Pass ``request`` on (changed as the wrapper wants) and return the answer."""
