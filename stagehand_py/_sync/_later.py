"""Calls that must not hold their caller up: after a short wait, they are left to finish on
Playwright's loop (hand-written twin of ``_async/_later.py``).

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
# What a bounded call hands back to the API method while its call is still pending.
_PENDING = object()


def _left_done(task: asyncio.Future[Any]) -> None:
    _LEFT_RUNNING.discard(task)
    if not task.cancelled() and task.exception() is not None:
        logger.debug("stagehand_py: a call left to finish failed: %s", task.exception())


def within_or_later(target: Any, method: str, seconds: float, *args: Any) -> bool:
    """``target.method(*args)``, waited for up to ``seconds``; True when it ended in time (its
    error, if any, raised here). Else it is left to finish on Playwright's loop (it was sent:
    a trace group still closes) and False is returned."""
    return answer_within(target, method, seconds, *args)[0]


def answer_within(target: Any, method: str, seconds: float, *args: Any) -> tuple[bool, Any]:
    """:func:`within_or_later` with the call's answer: ``(True, answer)`` when it ended in
    time, else ``(False, None)``.

    ``target`` is a sync Playwright object. Its method hands the call's coroutine to
    ``target._sync``, which waits on Playwright's loop until it is done; for this call that
    is replaced (on the instance, for the duration of the call) by one that waits
    ``seconds`` at most and leaves the task on the loop."""
    outcome: dict[str, asyncio.Task[Any]] = {}
    original = getattr(target, "_sync", None)
    loop = getattr(target, "_loop", None)
    if original is None or not isinstance(loop, asyncio.AbstractEventLoop):
        return True, getattr(target, method)(*args)  # not a Playwright object: a plain call

    def bounded(awaitable: Any) -> Any:
        task = loop.create_task(_awaited(awaitable))
        outcome["task"] = task
        original(asyncio.wait({task}, timeout=seconds))
        # The method maps what it gets back to its API object (a pending call: a stand-in).
        return task.result() if task.done() else _PENDING

    target._sync = bounded
    try:
        answer = getattr(target, method)(*args)  # its error, when it ended in time, is raised
    finally:
        del target._sync
    task = outcome["task"]
    if task.done():
        return True, answer
    _LEFT_RUNNING.add(task)
    task.add_done_callback(_left_done)
    return False, None


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
