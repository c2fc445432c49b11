"""Which model one call asks: the session's, or the call's own ``model=`` / ``llm=``; and the
user's ``instructions=`` added to every system prompt of that call.

The per-call model is resolved like the session's (a ``provider/model`` string with the
session's key and base URL, or a client object of the right flavour), up front, so a typo
fails before the page is touched. The model itself is still created on first need: a call
answered from the cache never builds a client.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from ..._error_line import first_line
from ..._errors import ConfigurationError, ProviderError, StagehandError
from ..._usage import Usage
from ...llm._flavour import ContractFit, check_llm_flavour, contract_fit
from ...llm._messages import ChatResponse, StructuredResponse
from ...prompts.user_instructions import with_user_instructions
from .._deadline import DeadlineExceeded
from .base import (
    AsyncLLM,
    AsyncModel,
    AsyncModelWrapper,
    ChatRequest,
    ModelRequest,
    StructuredRequest,
)
from .factory import model_spec

logger = logging.getLogger("stagehand_py")


# True here, False in the generated sync twin (where `async def` becomes `def`).
async def _probe() -> None: ...


_ASYNC_API = inspect.iscoroutinefunction(_probe)

R = TypeVar("R")
T = TypeVar("T", bound=BaseModel)

ModelSource = AsyncLLM | Callable[[], AsyncLLM]
"""A model, or a function that makes one when it is first needed (a call answered from the
cache, or one that fails before asking, never makes it)."""


def model_of(source: ModelSource) -> AsyncLLM:
    """The model ``source`` gives (made now when it is a function)."""
    return source if isinstance(source, AsyncLLM) else source()


class AsyncUserModel(AsyncModel):
    """A model object of the user's own (not one of the package's), as every loop calls it.

    Its methods get only the contract's keywords they take (see :func:`contract_fit`): one
    written to the contract as first published, without ``options=``, is called without the
    request's options (its token, temperature and time-left hints; the call's deadline still
    ends a request that runs too long). An answer of the wrong type is a
    :class:`ProviderError` naming the method, not an error deep inside a loop.
    """

    def __init__(self, inner: Any, fit: ContractFit) -> None:
        self.inner = inner
        self.fit = fit
        named = getattr(inner, "model", None)
        self.model = named if isinstance(named, str) else type(inner).__name__

    async def _chat(self, request: ChatRequest) -> ChatResponse:
        __tracebackhide__ = True
        given = {"tool_choice": request.tool_choice, "options": request.options}
        keywords = {k: v for k, v in given.items() if k in self.fit.chat}
        try:
            answer = await self.inner.chat(request.messages, request.tools, **keywords)
        except (StagehandError, DeadlineExceeded):
            raise
        except Exception as error:
            raise self._raised("chat", error) from error
        if not isinstance(answer, ChatResponse):
            raise self._wrong_answer("chat", answer, "a ChatResponse")
        return answer

    async def _structured(self, request: StructuredRequest[T]) -> StructuredResponse[T]:
        __tracebackhide__ = True
        given = {"max_retries": request.max_retries, "options": request.options}
        keywords = {k: v for k, v in given.items() if k in self.fit.structured}
        try:
            answer = await self.inner.structured(request.messages, request.schema, **keywords)
        except (StagehandError, DeadlineExceeded):
            raise
        except Exception as error:
            raise self._raised("structured", error) from error
        wanted = request.schema
        if not isinstance(answer, StructuredResponse) or not isinstance(answer.value, wanted):
            got = answer.value if isinstance(answer, StructuredResponse) else answer
            raise self._wrong_answer(
                "structured", got, f"a StructuredResponse whose value is a {wanted.__name__}"
            )
        return answer

    def _raised(self, method: str, error: Exception) -> ProviderError:
        """The object's own exception (its client's HTTP error, a bug of its own) as the
        failed request it is: counted, and ended like any provider's failure."""
        failed = ProviderError(
            self.model,
            f"{type(self.inner).__name__}.{method}()",
            f"it raised {type(error).__name__}: {first_line(error)}",
        )
        failed.usage = Usage(requests=1)
        return failed

    def _wrong_answer(self, method: str, answer: object, wanted: str) -> ProviderError:
        error = ProviderError(
            self.model,
            f"{type(self.inner).__name__}.{method}()",
            f"it returned a {type(answer).__name__}; the model contract needs {wanted} "
            "(stagehand_py.llm).",
        )
        error.usage = Usage(requests=1)  # the object was asked: count it as one request
        return error


def user_model(llm: object, *, owner: str, wants_async: bool = _ASYNC_API) -> AsyncLLM:
    """``llm`` checked against the model contract (flavour, methods, their parameters) and,
    unless it is one of the package's own models, wrapped in :class:`AsyncUserModel`."""
    check_llm_flavour(llm, owner=owner, wants_async=wants_async)
    if isinstance(llm, AsyncModel):
        return llm
    fit = contract_fit(llm, owner=owner)
    if fit.missing():
        logger.info(
            "stagehand_py: %s takes no %s: its requests are sent without them",
            type(llm).__name__,
            ", ".join(fit.missing()),
        )
    return AsyncUserModel(llm, fit)


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
        user_model(llm, owner=f"{owner}(llm=...)", wants_async=wants_async)
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

    own = user_model(llm, owner="llm=...") if llm is not None else None

    def source() -> AsyncLLM:
        chosen = own if own is not None else make(model) if model is not None else session()
        return AsyncInstructedLLM(chosen, instructions) if instructions else chosen

    return source
