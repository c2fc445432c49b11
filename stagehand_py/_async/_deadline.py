"""Bound a model request by the time an act() has left (hand-written; see the sync twin)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class DeadlineExceeded(Exception):
    """The call did not finish before the deadline."""


async def call_with_deadline(call: Callable[[], Awaitable[T]], seconds: float) -> T:
    """Await ``call()``; raise :class:`DeadlineExceeded` after ``seconds``."""
    if seconds <= 0:
        raise DeadlineExceeded
    try:
        return await asyncio.wait_for(call(), timeout=seconds)
    except asyncio.TimeoutError:
        raise DeadlineExceeded from None
