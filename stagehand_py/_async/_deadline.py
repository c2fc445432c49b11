"""Hard deadlines for a public call: its model requests, its blocking work and every page-side
call it makes (hand-written; see the sync twin, which cannot be a token rewrite of this one).

- :func:`call_with_deadline` bounds one model request. Building the request can block (the
  first one imports the provider's SDK, 1-3 s), so that part runs in a thread too.
- :func:`run_blocking` runs CPU or import work in a daemon thread and stops waiting at the
  deadline (:func:`compute_in_time` does so under the ambient deadline).
- :func:`run_coroutine` bounds asyncio code written once for both APIs.
- :func:`run_with_deadline` runs a whole call under a deadline that also covers page-side
  calls that have no timeout of their own (``evaluate``): at the deadline the call is
  cancelled wherever it waits, and a page whose main thread is busy is interrupted
  (:mod:`.page_interrupt`) so that nothing of ours is left running in it.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from playwright.async_api import Page as AsyncPage

from .._deadline_clock import (
    Deadline,
    ambient_deadline,
    current_deadline,
    deadline_region,
    model_request,
)
from ._later import leave_running
from .browser.interrupt import (
    REPORT_BY_S,
    UNANSWERED,
    attach_interrupter,
    interrupt_budget,
    interrupt_if_busy,
)

T = TypeVar("T")

logger = logging.getLogger("stagehand_py")

# How long a cancelled call may take to unwind (its finally blocks) before the page is probed.
_UNWIND_S = 0.1
# How long after the deadline an outer region waits for an inner one that reached the same
# deadline to report (the inner one's interrupt ends REPORT_BY_S after it).
INNER_REPORT_S = REPORT_BY_S + 0.05


class DeadlineExceeded(Exception):
    """The call did not finish before the deadline. ``note`` says what was found on the page
    (a busy main thread, stopped or not), or is empty; ``waiting_for_model``: a model request
    was in flight when the time ran out."""

    def __init__(self, note: str = "", *, waiting_for_model: bool = False) -> None:
        super().__init__(note)
        self.note = note
        self.waiting_for_model = waiting_for_model


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        if asyncio.iscoroutine(result):
            result.close()  # an abandoned request is never sent
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


async def run_blocking(work: Callable[[], T], seconds: float) -> T:
    """``work()`` in a daemon thread; :class:`DeadlineExceeded` after ``seconds``.

    An abandoned thread finishes on its own and never delays the process's exit."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    if seconds <= 0:
        raise DeadlineExceeded
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    context = contextvars.copy_context()

    def target() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = context.run(work)
        except BaseException as exc:
            error = exc
        try:
            loop.call_soon_threadsafe(_settle, future, result, error)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            if asyncio.iscoroutine(result):
                result.close()

    threading.Thread(target=target, name="stagehand-blocking", daemon=True).start()
    try:
        return await asyncio.wait_for(asyncio.shield(future), timeout=seconds)
    except asyncio.TimeoutError:
        future.cancel()
        raise DeadlineExceeded from None


async def compute_in_time(work: Callable[[], T]) -> T:
    """``work()`` bounded by the ambient deadline (inline when there is none)."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    deadline = current_deadline()
    if deadline is None:
        return work()
    return await run_blocking(work, deadline.remaining())


async def run_coroutine(make: Callable[[], Coroutine[Any, Any, T]], seconds: float) -> T:
    """Await ``make()``; :class:`DeadlineExceeded` after ``seconds``. For asyncio code that
    both APIs share (the sync twin runs it on an event loop of its own)."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    if seconds <= 0:
        raise DeadlineExceeded
    try:
        return await asyncio.wait_for(make(), timeout=seconds)
    except asyncio.TimeoutError:
        raise DeadlineExceeded from None


async def call_with_deadline(call: Callable[[], Awaitable[T]], seconds: float) -> T:
    """Await ``call()``; raise :class:`DeadlineExceeded` after ``seconds``."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    if seconds <= 0:
        raise DeadlineExceeded
    started = time.monotonic()
    with model_request():
        request = await run_blocking(call, seconds)
        try:
            return await asyncio.wait_for(request, timeout=seconds - (time.monotonic() - started))
        except asyncio.TimeoutError:
            raise DeadlineExceeded from None


async def run_with_deadline(
    body: Callable[[], Awaitable[T]], seconds: float, page: Callable[[], AsyncPage]
) -> T:
    """Run ``body()`` and end it at ``seconds`` whatever it waits for (model, page, thread).

    ``page()`` is the page the call is on at the moment (an act may move to a new tab). At
    the deadline the page is probed and, if its main thread is busy, interrupted; then
    :class:`DeadlineExceeded` says what was found."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    deadline = Deadline.after(seconds)
    if seconds <= 0:
        raise DeadlineExceeded
    try:
        await asyncio.wait_for(attach_interrupter(page()), timeout=seconds)
    except asyncio.TimeoutError:
        raise DeadlineExceeded from None
    with ambient_deadline(deadline) as effective, deadline_region() as region:
        task = asyncio.ensure_future(body())
        waited_for_inner = False
        try:
            done, _ = await asyncio.wait({task}, timeout=max(0.0, effective.remaining()))
            if not done and region.inner_active:
                waited_for_inner = True
                # A region inside this one ends at the same deadline and reports what the
                # call did: give it the time it takes to stop the page.
                done, _ = await asyncio.wait({task}, timeout=INNER_REPORT_S)
        except BaseException:
            task.cancel()
            raise
        if done:
            return task.result()
        page_may_be_busy = not region.model_requests
        task.cancel()
        if not page_may_be_busy:
            await asyncio.wait({task}, timeout=_UNWIND_S)
            raise DeadlineExceeded(waiting_for_model=True)
        if waited_for_inner:
            # The inner region had its time to stop the page and did not report: the browser
            # does not answer (a driver busy with a huge action). Probing again would only
            # add its budget to the overrun.
            await asyncio.wait({task}, timeout=_UNWIND_S)
            raise DeadlineExceeded(UNANSWERED)
        # The page is probed once the cancelled call has unwound (measured: a probe sent
        # while our serializer's evaluate was being aborted often found the page still busy
        # after the interrupt, on a 200,000-element page).
        await asyncio.wait({task}, timeout=_UNWIND_S)
        budget = interrupt_budget(effective.at)
        probe = asyncio.ensure_future(interrupt_if_busy(page(), budget))
        try:
            note = await asyncio.wait_for(probe, budget)
        except asyncio.TimeoutError:
            note = UNANSWERED
        except BaseException:  # an outer region ended this one: the interrupt goes on
            leave_running(probe)
            raise
        raise DeadlineExceeded(note)
