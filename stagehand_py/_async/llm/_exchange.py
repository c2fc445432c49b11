"""One model call on the wire: its deadline, every request it sends, and what they cost.

A call (one ``chat()`` or ``structured()``) may send several requests: retries, rungs of the
capability ladder a server refuses, the one re-ask of an answer cut off by ``max_tokens``, and
the validation re-asks of a structured answer. Each of them is counted here, failed ones too,
and an error raised from the call carries the total (``LLMError.usage``).

With a deadline (``RequestOptions.timeout_s``), no request gets a timeout longer than the
time left, so at the deadline the HTTP client gives up and closes the connection (the server
sees it close and can drop the work); no retry starts that could not finish in time, and no
request is sent once the time is up. A call ended that way raises :class:`CallDeadlineReached`
(a ProviderError to whoever asks the model directly), which a public call reports as its own
timeout, whichever of the two clocks fired first.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import InitVar, dataclass, field
from time import monotonic

from ..._errors import IncompleteOutputError, ProviderError
from ..._usage import Usage
from ...llm._caps import check_next_request
from ...llm._error_text import status_reason
from ...llm._ladder import DESCRIPTIONS, Strategy, rejects_feature
from ...llm._messages import RequestOptions
from ...llm._options import larger_budget
from ...llm._reply import Reply
from ...llm._retry import Failure, fits_before, retries_text, retry_wait

log = logging.getLogger("stagehand_py.llm")

Send = Callable[[float], Awaitable[bytes]]
"""Sends the request with a timeout (seconds) and returns the response body; raises the
SDK's own exceptions, which the provider reads into a :class:`Failure`."""


class CallDeadlineReached(ProviderError):
    """The call's deadline ended the model call: a request given up because the time the call
    had left ran out, or never sent because it was already out."""


class FeatureRejected(Exception):
    """The server refused a rung of the capability ladder (the caller tries the next one)."""

    def __init__(self, strategy: Strategy, reason: str, message: str) -> None:
        super().__init__(reason)
        self.strategy = strategy
        self.reason = reason
        self.message = message  # the server's own words


@dataclass(kw_only=True)
class AsyncExchange:
    """The requests of one model call. ``api_errors`` are the SDK exceptions ``classify``
    reads; anything else is a bug and propagates as is."""

    model: str
    endpoint: str
    timeout: float  # the client's, for each request
    max_retries: int
    options: InitVar[RequestOptions | None]
    api_errors: tuple[type[Exception], ...]
    classify: Callable[[Exception], Failure]
    truncation: str  # how the API says "cut off", for messages
    started: float = field(init=False, default_factory=monotonic)
    deadline: float | None = field(init=False)
    usage: Usage = field(init=False, default_factory=Usage)
    deadline_reached: bool = field(init=False, default=False)

    def __post_init__(self, options: RequestOptions | None) -> None:
        limit = options.timeout_s if options is not None else None
        self.deadline = None if limit is None else self.started + limit

    # ---------------------------------------------------------------- accounting
    def total(self) -> Usage:
        """Every request so far, with the call's wall time (waits between retries included)."""
        return self.usage.model_copy(update={"wall_time_s": monotonic() - self.started})

    def add_tokens(self, usage: Usage) -> None:
        """Tokens of a reply whose request :meth:`post` already counted."""
        self.usage = self.usage + usage.model_copy(update={"requests": 0, "wall_time_s": 0.0})

    def error(self, reason: str) -> ProviderError:
        """A ProviderError for this call, carrying what the call cost (a
        :class:`CallDeadlineReached` once the call's deadline ended it)."""
        kind = CallDeadlineReached if self.deadline_reached else ProviderError
        error = kind(self.model, self.endpoint, reason)
        error.usage = self.total()
        return error

    def time_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - monotonic()

    # ---------------------------------------------------------------- sending
    async def post(self, send: Send, *, strategy: Strategy | None = None) -> tuple[bytes, float]:
        """Send one request, retrying what is worth retrying; the body and its seconds.

        With ``strategy`` (a ladder rung that is not the last), an HTTP error that says the
        server cannot do it raises :class:`FeatureRejected` instead of being retried.
        """
        retries = 0
        while True:
            check_next_request(self.usage)  # a spending cap may refuse a further request
            timeout, capped = self._attempt_timeout()
            began = monotonic()
            try:
                body = await send(timeout)
            except self.api_errors as error:
                self.usage = self.usage + Usage(requests=1, wall_time_s=monotonic() - began)
                failure = self.classify(error)
                reason = self._reason(failure, timeout, capped, retries)
                if (
                    strategy is not None
                    and failure.kind == "status"
                    and rejects_feature(failure.status, failure.message, strategy)
                ):
                    raise FeatureRejected(strategy, reason, failure.message) from error
                wait = retry_wait(failure, retries, self.max_retries)
                if wait is None:
                    raise self.error(reason) from error
                if not fits_before(self.time_left(), wait):
                    left = self.time_left() or 0.0
                    raise self.error(
                        f"{reason}; not retried: {max(left, 0.0):.1f}s of the call's time were "
                        "left, too little for another request"
                    ) from error
                retries += 1
                log.info("%s: %s; retrying in %.2fs", self.model, reason, wait)
                await asyncio.sleep(wait)
                continue
            took = monotonic() - began
            self.usage = self.usage + Usage(requests=1, wall_time_s=took)
            return body, took

    def _attempt_timeout(self) -> tuple[float, bool]:
        """This request's timeout, and whether the deadline (not the client's timeout) set it."""
        left = self.time_left()
        if left is None or left >= self.timeout:
            return self.timeout, False
        if left <= 0:
            self.deadline_reached = True
            raise self.error(
                "the call's time ran out before the request could be sent (nothing was sent). "
                "Raise timeout_s, or lower max_tokens so earlier answers end sooner"
            )
        return left, True

    def _reason(self, failure: Failure, timeout: float, capped: bool, retries: int) -> str:
        suffix = f" ({retries_text(retries)})" if retries else ""
        if failure.kind == "timeout":
            if capped:
                self.deadline_reached = True
                return (
                    f"no answer before the call's deadline ({timeout:.2g}s were left): the "
                    "request was abandoned and its connection closed. The model was the slow "
                    "part: raise timeout_s, or lower max_tokens so answers end sooner"
                )
            return (
                f"no answer within the {self.timeout:g}s timeout{suffix}: the request was "
                "abandoned and its connection closed (not retried: the server may still be "
                "working on it). Raise the client's timeout (STAGEHAND_PY_LLM_TIMEOUT or "
                "create_llm(timeout=...)), or "
                "lower max_tokens (Stagehand(max_tokens=...), STAGEHAND_PY_MAX_TOKENS, "
                "--max-tokens) so answers end sooner"
            )
        if failure.kind == "connection":
            reason = f"could not connect{suffix}: {failure.message}"
            if "disconnected" in failure.message.lower():
                reason += (
                    " (the server closed the connection without answering: it may have "
                    "crashed; its log says why)"
                )
            return reason
        reason = status_reason(failure.status, failure.message)
        return reason + suffix

    # ---------------------------------------------------------------- cut-off answers
    async def complete(
        self, ask: Callable[[int | None], Awaitable[Reply]], max_tokens: int | None
    ) -> Reply:
        """``ask(max_tokens)``; an answer cut off by the budget is asked once more with a
        larger one, then :class:`IncompleteOutputError`."""
        reply = await ask(max_tokens)
        if not reply.truncated:
            return reply
        bigger = larger_budget(max_tokens)
        log.info(
            "%s: the answer was cut off at max_tokens=%s (%s); asking again with %d",
            self.model,
            max_tokens if max_tokens is not None else "(server default)",
            self.truncation,
            bigger,
        )
        reply = await ask(bigger)
        if not reply.truncated:
            return reply
        error = IncompleteOutputError(
            f"{self.model}'s answer was cut off by the token limit twice ({self.truncation}; "
            f"max_tokens={max_tokens if max_tokens is not None else 'server default'}, then "
            f"{bigger}). Raise max_tokens (Stagehand(max_tokens=...), STAGEHAND_PY_MAX_TOKENS "
            "or --max-tokens), or ask for less (a smaller schema, a narrower instruction).",
            max_tokens=bigger,
        )
        error.usage = self.total()
        raise error


def learned_text(model: str, endpoint: str, tried: str, strategy: Strategy) -> str:
    """The one INFO line logged when a client steps down the ladder."""
    return f"{model} at {endpoint}: {tried}; using {DESCRIPTIONS[strategy]} from now on"
