"""Which model one call asks: the session's, or the call's own ``model=`` / ``llm=``; and the
user's ``instructions=`` added to every system prompt of that call.

The per-call model is resolved like the session's (a ``provider/model`` string with the
session's key and base URL, or a client object of the right flavour), up front, so a typo
fails before the page is touched. The model itself is still created on first need: a call
answered from the cache never builds a client.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..._errors import ConfigurationError
from ...llm._flavour import check_llm_flavour
from ...prompts.user_instructions import with_user_instructions
from .base import AsyncLLM, AsyncModelWrapper, ModelRequest
from .factory import model_spec

R = TypeVar("R")

ModelSource = AsyncLLM | Callable[[], AsyncLLM]
"""A model, or a function that makes one when it is first needed (a call answered from the
cache, or one that fails before asking, never makes it)."""


def model_of(source: ModelSource) -> AsyncLLM:
    """The model ``source`` gives (made now when it is a function)."""
    return source if isinstance(source, AsyncLLM) else source()


class AsyncInstructedLLM(AsyncModelWrapper):
    """A model whose requests carry the user's instructions in their system message."""

    def __init__(self, inner: AsyncLLM, instructions: str) -> None:
        self.inner = inner
        self.model = inner.model
        self.instructions = instructions

    async def _forward(self, request: ModelRequest[R]) -> R:
        messages = with_user_instructions(request.messages, self.instructions)
        return await request.with_messages(messages).send(self.inner)


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
