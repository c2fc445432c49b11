"""The model contract: two requests, small enough that a fake is ten lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from ...llm._messages import (
    ChatResponse,
    Message,
    RequestOptions,
    StructuredResponse,
    ToolSpec,
)

T = TypeVar("T", bound=BaseModel)


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
