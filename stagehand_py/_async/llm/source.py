"""Which model one call asks: the session's, or the call's own ``model=`` / ``llm=``; and the
user's ``instructions=`` added to every system prompt of that call.

The per-call model is resolved like the session's (a ``provider/model`` string with the
session's key and base URL, or a client object of the right flavour), up front, so a typo
fails before the page is touched. The model itself is still created on first need: a call
answered from the cache never builds a client.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

from pydantic import BaseModel

from ..._errors import ConfigurationError
from ...llm._flavour import check_llm_flavour
from ...llm._messages import ChatResponse, Message, RequestOptions, StructuredResponse, ToolSpec
from ...prompts.user_instructions import with_user_instructions
from .base import AsyncLLM
from .factory import model_spec

T = TypeVar("T", bound=BaseModel)


class AsyncInstructedLLM:
    """A model whose requests carry the user's instructions in their system message."""

    def __init__(self, inner: AsyncLLM, instructions: str) -> None:
        self.inner = inner
        self.model = inner.model
        self.instructions = instructions

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: Literal["auto", "required"] = "required",
        options: RequestOptions | None = None,
    ) -> ChatResponse:
        return await self.inner.chat(
            with_user_instructions(messages, self.instructions),
            tools,
            tool_choice=tool_choice,
            options=options,
        )

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        max_retries: int = 2,
        options: RequestOptions | None = None,
    ) -> StructuredResponse[T]:
        return await self.inner.structured(
            with_user_instructions(messages, self.instructions),
            schema,
            max_retries=max_retries,
            options=options,
        )


def check_call_model(
    owner: str, *, model: str | None, llm: object | None, base_url: str | None, wants_async: bool
) -> None:
    """Refuse, before anything runs, a call given both ``model=`` and ``llm=``, a malformed
    model string, or a client of the wrong flavour (a sync fake in async code)."""
    if model is not None and llm is not None:
        raise ConfigurationError(
            f"{owner}() got both model={model!r} and llm=...: pass one (a model string, or a "
            "client object)."
        )
    if llm is not None:
        check_llm_flavour(llm, owner=owner, wants_async=wants_async)
    elif model is not None:
        if not isinstance(model, str):
            raise ConfigurationError(
                f"{owner}(model=...) takes a 'provider/model' string; got a "
                f"{type(model).__name__}. Pass a client object as llm= instead."
            )
        model_spec(model, base_url)


def call_llm_source(
    session: Callable[[], AsyncLLM],
    make: Callable[[str], AsyncLLM],
    *,
    model: str | None,
    llm: AsyncLLM | None,
    instructions: str,
) -> Callable[[], AsyncLLM]:
    """A function giving the call's model on first need: ``llm``, else ``make(model)``, else
    the session's; wrapped to carry ``instructions`` (already redacted) when there are any."""

    def source() -> AsyncLLM:
        chosen = llm if llm is not None else make(model) if model is not None else session()
        return AsyncInstructedLLM(chosen, instructions) if instructions else chosen

    return source
