"""Hard deadlines for a public call (hand-written twin of ``_async/_deadline.py``).

Sync code cannot cancel a blocking call, so:

- a model request (:func:`call_with_deadline`) or blocking work (:func:`run_blocking`) runs in
  a thread of its own (a daemon: never shared with another call or another ``Stagehand``,
  never joined at exit), and the call stops waiting at the deadline. The abandoned request
  ends on the provider's own timeout (``RequestOptions.timeout_s``);
- a Playwright call blocks this thread, but while it does, Playwright's own event loop runs
  (in a greenlet of this thread). :func:`run_with_deadline` schedules a timer on that loop:
  at the deadline it cancels the Playwright calls made inside the region (they raise
  ``CancelledError`` here, which becomes :class:`DeadlineExceeded`), and the page is probed
  and, if its main thread is busy, interrupted (:mod:`.page_interrupt`);
- asyncio code written once for both APIs (:func:`run_coroutine`) runs on an event loop of
  its own in such a thread;
- :func:`within_or_later` makes a bookkeeping call (a trace group) that must not hold the
  call up: it is scheduled on Playwright's loop and, after a short wait, left to finish
  there (the loop runs it on with the next Playwright call).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from types import FrameType
from typing import Any, TypeVar

from playwright.sync_api import Page

from .._deadline_clock import (
    Deadline,
    DeadlineRegion,
    ambient_deadline,
    current_deadline,
    deadline_region,
    model_request,
)
from .browser.interrupt import (
    REPORT_BY_S,
    UNANSWERED,
    attach_interrupter,
    interrupt_budget,
    interrupt_if_busy,
)

T = TypeVar("T")

logger = logging.getLogger("stagehand_py")

# How long a cancelled call may take to unwind, and an outer region waits for an inner one
# that reached the same deadline to report (see the async twin).
_UNWIND_S = 0.1
INNER_REPORT_S = REPORT_BY_S + 0.05
# While the region's deadline has passed, Playwright calls still made in it are cancelled
# this often (a ``finally`` block that calls the page again must not hang either).
_RECHECK_S = 0.05


class DeadlineExceeded(Exception):
    """The call did not finish before the deadline. ``note`` says what was found on the page
    (a busy main thread, stopped or not), or is empty; ``waiting_for_model``: a model request
    was in flight when the time ran out."""

    def __init__(self, note: str = "", *, waiting_for_model: bool = False) -> None:
        super().__init__(note)
        self.note = note
        self.waiting_for_model = waiting_for_model


def run_blocking(work: Callable[[], T], seconds: float) -> T:
    """``work()`` in a daemon thread; :class:`DeadlineExceeded` after ``seconds``.

    An abandoned thread finishes on its own and never delays the process's exit."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    if seconds <= 0:
        raise DeadlineExceeded
    done = threading.Event()
    outcome: dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome["value"] = context.run(work)
        except BaseException as exc:
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name="stagehand-blocking", daemon=True).start()
    if not done.wait(timeout=seconds):
        raise DeadlineExceeded
    if "error" in outcome:
        raise outcome["error"]
    result: T = outcome["value"]
    return result


def compute_in_time(work: Callable[[], T]) -> T:
    """``work()`` bounded by the ambient deadline (inline when there is none)."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    deadline = current_deadline()
    if deadline is None:
        return work()
    return run_blocking(work, deadline.remaining())


def run_coroutine(make: Callable[[], Coroutine[Any, Any, T]], seconds: float) -> T:
    """Run ``make()`` on an event loop of its own, in a daemon thread (this thread's loop,
    if any, is Playwright's); :class:`DeadlineExceeded` after ``seconds``. For asyncio code
    that both APIs share: it ends by its own deadline, so an abandoned thread ends soon."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    return run_blocking(lambda: asyncio.run(make()), seconds)


def call_with_deadline(call: Callable[[], T], seconds: float) -> T:
    """Return ``call()``; raise :class:`DeadlineExceeded` after ``seconds``."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    with model_request():
        return run_blocking(call, seconds)


def _caller_frame(task: asyncio.Task[Any]) -> FrameType | None:
    """The frame of the sync API call that ``task`` runs, as Playwright records it on the task:
    the caller's frame itself (1.65 on), or before that the stack of the call, innermost
    first (its first frame is Playwright's own, whose callers ``_inside`` walks)."""
    frame = getattr(task, "__pw_caller_frame__", None)
    if isinstance(frame, FrameType):
        return frame
    stack = getattr(task, "__pw_stack__", None)
    if isinstance(stack, list) and stack:
        first = getattr(stack[0], "frame", None)
        return first if isinstance(first, FrameType) else None
    return None


class _Watchdog:
    """A timer on Playwright's event loop that cancels the region's pending calls."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        frame: FrameType,
        at: float,
        region: DeadlineRegion,
    ) -> None:
        self.loop = loop
        self.frame = frame
        self.region = region
        self.fired = False
        self.extended = False
        self.waited_for_inner = False
        # The event loop's clock is time.monotonic(), like Deadline's.
        self.handle = loop.call_at(loop.time() + (at - time.monotonic()), self.fire)

    def _inside(self, frame: FrameType | None) -> bool:
        while frame is not None:
            if frame is self.frame:
                return True
            frame = frame.f_back
        return False

    def fire(self) -> None:
        if self.region.inner_active and not self.extended:
            # A region inside this one ends at the same deadline and reports what the call
            # did: give it the time it takes to stop the page.
            self.extended = self.waited_for_inner = True
            self.handle = self.loop.call_later(INNER_REPORT_S, self.fire)
            return
        self.fired = True
        for task in asyncio.all_tasks(self.loop):
            caller = _caller_frame(task)
            if not task.done() and caller is not None and self._inside(caller):
                task.cancel()
        self.handle = self.loop.call_later(_RECHECK_S, self.fire)

    def rearm(self, seconds: float) -> None:
        """Cancel the region's calls again ``seconds`` from now (for the interrupt itself)."""
        self.handle.cancel()
        self.fired = False
        self.extended = True
        self.handle = self.loop.call_later(seconds, self.fire)

    def stop(self) -> None:
        self.handle.cancel()


def run_with_deadline(body: Callable[[], T], seconds: float, page: Callable[[], Page]) -> T:
    """Run ``body()`` and end it at ``seconds`` whatever it waits for (model, page, thread).

    ``page()`` is the page the call is on at the moment (an act may move to a new tab). At
    the deadline the page is probed and, if its main thread is busy, interrupted; then
    :class:`DeadlineExceeded` says what was found."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this frame
    deadline = Deadline.after(seconds)
    if seconds <= 0:
        raise DeadlineExceeded
    attach_interrupter(page())
    loop = getattr(page(), "_loop", None)
    with ambient_deadline(deadline) as effective, deadline_region() as region:
        if effective.expired:
            raise DeadlineExceeded
        watchdog = (
            _Watchdog(loop, sys._getframe(0), effective.at, region)
            if isinstance(loop, asyncio.AbstractEventLoop)
            else None
        )
        try:
            return body()
        except asyncio.CancelledError:
            if watchdog is None or not watchdog.fired:
                raise
            # The interrupt gets its own short budget: a driver still busy with a huge action
            # answers nothing in time, and the call must not wait for it.
            note = ""
            if watchdog.waited_for_inner:
                # The inner region had its time to stop the page and did not report: the
                # browser does not answer. Probing again would only add to the overrun.
                note = UNANSWERED
            elif not region.model_requests:
                budget = interrupt_budget(effective.at)
                watchdog.rearm(budget)
                try:
                    note = interrupt_if_busy(page(), budget)
                except asyncio.CancelledError:
                    note = UNANSWERED
            raise DeadlineExceeded(note, waiting_for_model=bool(region.model_requests)) from None
        finally:
            if watchdog is not None:
                watchdog.stop()
