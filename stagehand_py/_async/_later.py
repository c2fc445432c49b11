"""Calls that must not hold their caller up: after a short wait, they are left to finish on
their own (hand-written; the sync twin waits on Playwright's loop in another way).

A trace group's bookkeeping, or a probe of a page that may be busy, is sent and waited for a
moment; a driver busy with a huge action answers nothing in time, and the caller goes on.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

logger = logging.getLogger("stagehand_py")

# Calls left to finish on their own (a reference keeps each until it is done).
_LEFT_RUNNING: set[asyncio.Future[Any]] = set()


def _left_done(task: asyncio.Future[Any]) -> None:
    _LEFT_RUNNING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.debug("stagehand_py: a call left to finish failed: %s", task.exception())


async def within_or_later(target: Any, method: str, seconds: float, *args: Any) -> bool:
    """``target.method(*args)``, waited for up to ``seconds``; True when it ended in time (its
    error, if any, raised here). Else it is left to finish on its own (it was sent: a trace
    group still closes) and False is returned."""
    return (await answer_within(target, method, seconds, *args))[0]


async def answer_within(target: Any, method: str, seconds: float, *args: Any) -> tuple[bool, Any]:
    """:func:`within_or_later` with the call's answer: ``(True, answer)`` when it ended in
    time, else ``(False, None)``."""
    task = asyncio.ensure_future(getattr(target, method)(*args))
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if done:
        return True, task.result()
    leave_running(task)
    return False, None


def leave_running(task: asyncio.Future[Any]) -> None:
    """Let ``task`` finish on its own; its outcome is read when it ends (an error is logged,
    not left unretrieved)."""
    if task.done():
        _left_done(task)
    else:
        _LEFT_RUNNING.add(task)
        task.add_done_callback(_left_done)
