"""Counting what model calls cost: the one way every loop (act, extract, observe, the agent,
a workflow) asks its model.

:func:`ask_counted` makes one call and adds its cost to a :class:`Tally` however the call
ends: an answer's usage; a failed call's ``LLMError.usage`` (every request it sent, retries
and re-asks included, and at least one); a call abandoned at its deadline as one request
with the time it took (it was sent, and the provider may bill it).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from pydantic import BaseModel

from ..._config import Settings
from ..._deadline_clock import Deadline
from ..._errors import LLMError
from ..._usage import Usage
from ...llm._messages import Message, RequestKind, StructuredResponse
from ...llm._options import request_options
from ...llm._request_context import RequestContext, request_context
from .._deadline import DeadlineExceeded, call_with_deadline
from .base import AsyncLLM


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


async def ask_counted(
    tally: Tally, request: Callable[[], Awaitable[AnswerT]], seconds: float | None = None
) -> AnswerT:
    """``request()``'s answer (given up after ``seconds``, when given: DeadlineExceeded), its
    cost added to ``tally`` whatever happened; a failure is raised again once counted."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    asked = time.monotonic()
    try:
        answer = await (request() if seconds is None else call_with_deadline(request, seconds))
    except DeadlineExceeded:
        # The abandoned request was sent: it counts, with the time it took.
        _add(tally, Usage(requests=1, wall_time_s=time.monotonic() - asked), calls=1)
        raise
    except LLMError as error:
        # Every request the failed call sent counts (re-asks and retries included).
        _add(tally, error.usage, calls=max(error.usage.requests, 1))
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
    tally.llm_calls += calls
    tally.usage = tally.usage + usage
