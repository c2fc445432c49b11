"""Counting what model calls cost: the one way every loop (act, extract, observe, the agent,
a workflow) asks its model.

:func:`ask_counted` makes one call and adds its cost to a :class:`Tally` however the call
ends: an answer's usage; a failed call's ``LLMError.usage`` (every request it sent, retries
and re-asks included, and at least one); a call abandoned at its deadline as one request
with the time it took (it was sent, and the provider may bill it). The requests counted in
the usage are never fewer than the calls counted (a model object of the user's may answer
with no usage at all), so a call's history and the session's total agree.

A provider that gave up at the deadline ``ask_counted`` was given (its request timeout was the
time the call had left) and that deadline race; either way the call ran out of time, and it
ends as :class:`DeadlineExceeded` (the public call's timeout error), never as a ProviderError.

:class:`AsyncMeteredLLM` is the model every public call asks (the call path wraps each model
it hands out): it holds each request against the spending caps in force before sending it,
refuses one that would cross a cap (``BudgetExceededError``, nothing sent), and charges what
the request cost, by the same rules, to the call's, the Stagehand's and the pytest session's
ledgers (see :mod:`stagehand_py.llm._caps`). A verb gets both for free.
"""

from __future__ import annotations

import functools
import json
import time
from asyncio import CancelledError
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from ..._config import Settings
from ..._deadline_clock import Deadline
from ..._errors import BudgetExceededError, LLMError
from ..._spans import Span
from ..._usage import Usage
from ...llm._caps import Budget, estimate_request, in_flight
from ...llm._messages import ChatResponse, Message, RequestKind, StructuredResponse
from ...llm._options import request_options
from ...llm._request_context import RequestContext, request_context
from .._deadline import DeadlineExceeded, call_with_deadline
from ._exchange import CallDeadlineReached
from .base import AsyncLLM, AsyncModelWrapper, ChatRequest, ModelRequest, StructuredRequest


class Tally(Protocol):
    """Where a loop keeps what its model calls cost (an act run, an extract's outcome...)."""

    usage: Usage
    llm_calls: int


class UsageRecord(Protocol):
    """A record that keeps only the usage (an agent's step, a workflow)."""

    usage: Usage


@dataclass
class _Spent:
    usage: Usage = field(default_factory=Usage)
    llm_calls: int = 0


class Answer(Protocol):
    """A model's answer: it says what it cost."""

    @property
    def usage(self) -> Usage: ...


AnswerT = TypeVar("AnswerT", bound=Answer)
T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


async def ask_counted(
    tally: Tally, request: Callable[[], Awaitable[AnswerT]], seconds: float | None = None
) -> AnswerT:
    """``request()``'s answer (given up after ``seconds``, when given: DeadlineExceeded), its
    cost added to ``tally`` whatever happened; a failure is raised again once counted."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    asked = time.monotonic()
    try:
        answer = await (request() if seconds is None else call_with_deadline(request, seconds))
    except (DeadlineExceeded, CancelledError):
        # The abandoned request was sent: it counts, with the time it took (also when the
        # call's own deadline cancelled it first, at the same moment).
        _add(tally, Usage(requests=1, wall_time_s=time.monotonic() - asked), calls=1)
        raise
    except CallDeadlineReached as reached:
        # Exactly what the provider sent (none when the time was up before the first).
        _add(tally, reached.usage, calls=reached.usage.requests)
        if seconds is None:
            raise  # no deadline given here: the caller words the model's failure itself
        raise DeadlineExceeded(waiting_for_model=True) from None
    except LLMError as error:
        # Every request the failed call sent counts (re-asks and retries included).
        _add(tally, error.usage, calls=max(error.usage.requests, 1))
        raise
    except BudgetExceededError as error:
        # Refused before sending: only the call's earlier requests (a re-ask's) count.
        _add(tally, error.usage, calls=error.usage.requests)
        raise
    attempts = answer.attempts if isinstance(answer, StructuredResponse) else 1
    _add(tally, answer.usage, calls=max(answer.usage.requests, attempts))
    return answer


async def ask_recorded(record: UsageRecord, request: Callable[[], Awaitable[AnswerT]]) -> AnswerT:
    """:func:`ask_counted` (no deadline of its own) for a record that keeps only the usage."""
    __tracebackhide__ = True
    spent = _Spent()
    try:
        return await ask_counted(spent, request)
    finally:
        record.usage = record.usage + spent.usage


async def ask_structured(
    tally: Tally,
    llm: AsyncLLM,
    messages: Sequence[Message],
    schema: type[T],
    *,
    kind: RequestKind,
    context: RequestContext,
    settings: Settings,
    max_retries: int,
    deadline: Deadline,
) -> StructuredResponse[T]:
    """One structured request of a call within the call's ``deadline`` (the model is told the
    time left), counted in ``tally``; ``context`` says what it shows (for test fakes)."""
    __tracebackhide__ = True
    options = request_options(settings, kind, timeout_s=deadline.request_timeout())
    request = functools.partial(
        llm.structured, messages, schema, max_retries=max_retries, options=options
    )
    with request_context(context):
        return await ask_counted(tally, request, deadline.remaining())


def _add(tally: Tally, usage: Usage, *, calls: int) -> None:
    if usage.requests < calls:  # an answer that says nothing of its requests: one each
        usage = usage.model_copy(update={"requests": calls})
    tally.llm_calls += calls
    tally.usage = tally.usage + usage


class AsyncMeteredLLM(AsyncModelWrapper):
    """A call's model under the spending caps in force (``budget``): every request is held
    against them before it is sent and charged with what it cost when it ends."""

    def __init__(self, inner: AsyncLLM, budget: Budget) -> None:
        self.inner = inner
        self.model = inner.model
        self.budget = budget

    async def _forward(self, request: ModelRequest[R]) -> R:
        __tracebackhide__ = True
        options = request.options
        estimate = estimate_request(
            request.messages,
            options,
            tools_text=_tools_text(request),
            image_tokens=self.budget.image_tokens,
        )
        kind = options.kind if options is not None else "other"
        said = {"gen_ai.request.model": self.model, "stagehand.request_kind": kind}
        with Span("stagehand.model_request", str, said) as span:
            reservation = self.budget.admit(self.model, estimate, kind)
            try:
                with in_flight(reservation):
                    answer = await request.send(self.inner)
            except BaseException as error:
                reservation.settle(_spent_on(span, _spent_by_failure(error)))
                raise
            reservation.settle(_spent_on(span, _spent_by_answer(answer)))
            span.set({"gen_ai.response.model": getattr(answer, "model", None) or None})
        return answer


def _spent_on(span: Span, usage: Usage) -> Usage:
    """``usage``, also told to the request's span."""
    span.set(
        {
            "stagehand.llm_calls": usage.requests,
            "gen_ai.usage.input_tokens": usage.prompt_tokens,
            "gen_ai.usage.output_tokens": usage.completion_tokens,
        }
    )
    return usage


def _tools_text(request: ModelRequest[Any]) -> str:
    """What a request sends besides its messages: its tools, or its answer's schema."""
    if isinstance(request, ChatRequest):
        return json.dumps([tool.model_dump() for tool in request.tools])
    if isinstance(request, StructuredRequest):
        return json.dumps(request.schema.model_json_schema())
    return ""


def _spent_by_answer(answer: object) -> Usage:
    """An answer's usage, counting at least one request per attempt (as ``ask_counted``)."""
    if not isinstance(answer, (ChatResponse, StructuredResponse)):
        return Usage(requests=1)
    attempts = answer.attempts if isinstance(answer, StructuredResponse) else 1
    usage = answer.usage
    return usage.model_copy(update={"requests": max(usage.requests, attempts)})


def _spent_by_failure(error: BaseException) -> Usage:
    """What a model call that raised cost, by ``ask_counted``'s rules: a model error's usage
    (at least one request); a call abandoned at its deadline, one request (it was sent)."""
    if isinstance(error, LLMError):
        return error.usage.model_copy(update={"requests": max(error.usage.requests, 1)})
    if isinstance(error, BudgetExceededError):
        return error.usage
    if isinstance(error, (CancelledError, DeadlineExceeded)):
        return Usage(requests=1)
    return Usage()
