"""The structured-answer loop both providers share: ask, validate here, re-ask with the error.

The provider supplies ``ask(conversation, max_tokens)``, one request on its wire (and, for
OpenAI-compatible servers, on the right rung of the capability ladder). Every request is
counted by the call's exchange, re-asks included; an answer cut off by ``max_tokens`` is
asked again once with a larger budget (then ``IncompleteOutputError``); an answer that never
validates raises ``StructuredOutputError`` with the last answer and the usage spent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..._errors import StructuredOutputError
from ...llm._messages import Message, StructuredResponse
from ...llm._openai_wire import tool_name
from ...llm._reply import Reply
from ...llm._structured_answer import (
    answer_of,
    first_error,
    reask_messages,
    validation_problem,
)
from ._exchange import AsyncExchange
from .base import StructuredRequest

T = TypeVar("T", bound=BaseModel)

Ask = Callable[[list[Message], "int | None"], Awaitable[Reply]]


def structured_tool_name(request: StructuredRequest[Any]) -> str:
    """The name of the one tool a structured answer is a call of (from the schema's name)."""
    return tool_name(request.schema.__name__)


async def structured_answer(
    exchange: AsyncExchange,
    ask: Ask,
    request: StructuredRequest[T],
    *,
    max_tokens: int | None,
) -> StructuredResponse[T]:
    """An instance of ``request.schema``, re-asked up to ``request.max_retries`` times."""
    schema, name = request.schema, structured_tool_name(request)
    conversation = list(request.messages)
    last_answer: Any = None
    last_error = ""
    attempts = max(request.max_retries, 0) + 1
    for attempt in range(1, attempts + 1):
        reply = await exchange.complete(partial(ask, list(conversation)), max_tokens)
        call, value, problem = answer_of(reply, name)
        last_answer = value if value is not None else (reply.text or None)
        if problem is None:
            try:
                instance = schema.model_validate(value)
            except ValidationError as error:
                problem = validation_problem(error)
                last_error = first_error(error)
                errors = str(error)
            else:
                usage = exchange.total()
                return StructuredResponse[T](value=instance, usage=usage, attempts=attempt)
        else:
            last_error = errors = problem
        conversation.extend(reask_messages(reply, call, problem))
    failure = StructuredOutputError(
        f"{exchange.model} never produced a valid {schema.__name__} in {attempts} attempt(s); "
        f"last problem: {last_error}",
        last_answer=last_answer,
        errors=errors,
    )
    failure.usage = exchange.total()
    raise failure
