"""When a failed model request is worth sending again, and after how long. Pure.

The provider SDKs' own retries are switched off: they cannot see the caller's deadline, and
they count nothing. A request is retried on a dropped connection, on HTTP 408/409/429/5xx
(or when the server says ``x-should-retry: true``), after the server's ``retry-after`` or an
exponential backoff, and only when the wait leaves time for the retry before the deadline.
A timed-out request is not retried: the server may still be generating the abandoned
answer (a one-slot local server would queue the retry behind it).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

INITIAL_DELAY_S = 0.5
MAX_DELAY_S = 8.0
MAX_RETRY_AFTER_S = 60.0
MIN_ATTEMPT_S = 1.0  # a retry needs at least this much time left after its wait


@dataclass(frozen=True)
class Failure:
    """A failed request, as the provider read its SDK's exception."""

    kind: Literal["status", "timeout", "connection"]
    status: int = 0
    message: str = ""  # the server's message, or the connection error's cause
    retry_after: float | None = None
    should_retry: bool | None = None  # the x-should-retry header


def failure_from_status(status: int, message: str, headers: Mapping[str, str]) -> Failure:
    hint = headers.get("x-should-retry")
    return Failure(
        "status",
        status=status,
        message=message,
        retry_after=retry_after_of(headers),
        should_retry=None if hint not in ("true", "false") else hint == "true",
    )


def retry_wait(failure: Failure, retries_done: int, max_retries: int) -> float | None:
    """Seconds to wait before retrying, or None when the request is not retried."""
    if failure.kind == "timeout" or retries_done >= max_retries:
        return None
    if failure.kind == "status":
        retryable = failure.status in (408, 409, 429) or failure.status >= 500
        if failure.should_retry is not None:
            retryable = failure.should_retry
        if not retryable:
            return None
        if failure.retry_after is not None:
            if failure.retry_after > MAX_RETRY_AFTER_S:
                return None
            return max(failure.retry_after, 0.0)
    delay = min(INITIAL_DELAY_S * 2.0**retries_done, MAX_DELAY_S)
    return delay * (1 - 0.25 * random.random())


def fits_before(deadline_left: float | None, wait: float) -> bool:
    """Whether a retry after ``wait`` seconds still has time to run."""
    return deadline_left is None or deadline_left - wait >= MIN_ATTEMPT_S


def retry_after_of(headers: Mapping[str, str]) -> float | None:
    """The server's ``retry-after-ms`` / ``retry-after`` (seconds) header, if it sent one."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            continue
    return None


def retries_text(count: int) -> str:
    return f"after {count} retr{'y' if count == 1 else 'ies'}"
