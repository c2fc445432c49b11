"""Bound a model request by the time an act() has left (hand-written twin of the async one).

Sync code cannot cancel a blocking HTTP call, so the call runs in a worker thread and the act
stops waiting when the deadline passes; the abandoned request ends on its client's own timeout.
Only the model request runs in the thread, never Playwright (the sync API is single-threaded).
"""

from __future__ import annotations

import concurrent.futures
import contextvars
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="stagehand-llm")


class DeadlineExceeded(Exception):
    """The call did not finish before the deadline."""


def call_with_deadline(call: Callable[[], T], seconds: float) -> T:
    """Return ``call()``; raise :class:`DeadlineExceeded` after ``seconds``."""
    if seconds <= 0:
        raise DeadlineExceeded
    # The caller's context goes along (a test fake reads the request context from it).
    future = _POOL.submit(contextvars.copy_context().run, call)
    try:
        return future.result(timeout=seconds)
    except concurrent.futures.TimeoutError:
        future.cancel()
        raise DeadlineExceeded from None
