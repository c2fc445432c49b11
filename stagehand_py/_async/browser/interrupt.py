"""Interrupt a page whose main thread is busy, through the Chrome DevTools Protocol.

A script that spins (or our own serializer on an enormous page) blocks every later
``evaluate`` on the page, and Playwright's calls without a timeout wait for it for ever.
``Runtime.terminateExecution`` stops the running script, but Chromium only honours it on a
DevTools session that was attached while the page was idle (measured here: a session opened
while the page spins never gets an answer). So every public call attaches one per page when
it starts (:func:`attach_interrupter`, once per page), and a call that reaches its deadline
probes the page and stops what is running (:func:`interrupt_if_busy`). Browsers without CDP
(Firefox, WebKit) cannot be interrupted: the call reports the busy page and leaves it.
"""

from __future__ import annotations

import inspect
import logging
import time
import weakref
from typing import Any

from playwright.async_api import CDPSession as AsyncCDPSession
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ..._playwright_identity import identity
from .._later import answer_within

logger = logging.getLogger("stagehand_py")

# A page that does not answer a trivial evaluation within this long is taken to be busy.
PROBE_MS = 150
TERMINATE_MS = 200
# The shortest time interrupt_if_busy() is given (callers also bound it from their side: a
# driver busy with a huge action answers nothing in time).
INTERRUPT_BUDGET_S = (2 * PROBE_MS + TERMINATE_MS) / 1000 + 0.1
# How long after its deadline a call may go on stopping a busy page: the interrupt is given
# whatever is left of this, so the call ends within a second of its deadline, however long
# the cancelled call took to unwind (but never less than INTERRUPT_BUDGET_S, which the steps
# need). On a loaded machine every step is slower (measured here beside the test suite: the
# 150 ms probe answered in up to 260 ms, the interrupt took up to 330 ms), and the spare time
# goes to waiting for the page to confirm it is free.
REPORT_BY_S = 0.85
# Kept back from the budget so the interrupt reports before its caller cuts it off.
_MARGIN_S = 0.05

_SESSIONS: weakref.WeakKeyDictionary[Any, AsyncCDPSession | None] = weakref.WeakKeyDictionary()

BUSY_STOPPED = "A script kept the page's main thread busy; it was stopped at the deadline."
BUSY_LEFT = (
    "The page's main thread was busy (a script on it kept running) and could not be "
    "interrupted; the page was left as it is and may stay unresponsive."
)
UNANSWERED = (
    "The browser did not answer in time (it may still be busy with the last action); the "
    "page was left as it is."
)


async def attach_interrupter(page: AsyncPage) -> None:
    """Open the page's interrupt session unless it has one (a no-op after the first call)."""
    key = identity(page)
    if key in _SESSIONS or page.is_closed():
        return
    try:
        session: AsyncCDPSession | None = await page.context.new_cdp_session(page)
    except PlaywrightError as exc:  # not Chromium, or the page is going away
        logger.debug("stagehand_py: no interrupt session: %s", (exc.message or "").split("\n")[0])
        session = None
    _SESSIONS[key] = session


def devtools_session(page: AsyncPage) -> AsyncCDPSession | None:
    """The session :func:`attach_interrupter` opened for ``page`` (None before the first call,
    or on a browser without DevTools). Short reads of the top document may use it too."""
    return _SESSIONS.get(identity(page))


def send_takes_timeout(session: AsyncCDPSession) -> bool:
    """Whether this Playwright's ``CDPSession.send`` takes ``timeout`` (older ones do not)."""
    return "timeout" in inspect.signature(session.send).parameters


async def session_value(
    session: AsyncCDPSession, expression: str, *, timeout_ms: float | None = None
) -> Any:
    """The JSON value of ``expression``, evaluated in the top document's main world through
    ``session`` (awaited when a promise). Silent: a debugger the user opened with "pause on
    exceptions" never stops on it. A script that throws raises :class:`PlaywrightError`, as
    Playwright's own evaluate would, and so does no answer within ``timeout_ms``."""
    params = {
        "expression": expression,
        "awaitPromise": True,
        "returnByValue": True,
        "silent": True,
    }
    if timeout_ms is None:
        reply = await session.send("Runtime.evaluate", params)
    else:
        reply = await _send_within(session, "Runtime.evaluate", params, timeout_ms)
    thrown = reply.get("exceptionDetails")
    if thrown is not None:
        raise PlaywrightError(f"The page script threw: {thrown.get('text', 'an exception')}")
    result = reply.get("result")
    return result.get("value") if isinstance(result, dict) else None


async def _send_within(
    session: AsyncCDPSession, method: str, params: dict[str, Any], timeout_ms: float
) -> Any:
    """The browser's answer to ``method``; :class:`PlaywrightError` when there is none within
    ``timeout_ms``. A Playwright whose ``send`` takes no timeout (before 1.65) has the wait
    bounded from here, and the unanswered request is left to end on its own (a busy page
    answers it once it is free)."""
    if send_takes_timeout(session):
        return await session.send(method, params, timeout=timeout_ms)
    answered, reply = await answer_within(session, "send", timeout_ms / 1000, method, params)
    if not answered:
        raise PlaywrightError(f"The page did not answer within {timeout_ms:.0f} ms.")
    return reply


async def _answered(
    session: AsyncCDPSession, method: str, params: dict[str, Any], timeout_ms: float
) -> bool:
    """Send ``method``; True when the browser answered within ``timeout_ms``."""
    try:
        await _send_within(session, method, params, timeout_ms)
    except PlaywrightError:
        return False
    return True


async def _answers(session: AsyncCDPSession, timeout_ms: float) -> bool:
    return await _answered(session, "Runtime.evaluate", {"expression": "0"}, timeout_ms)


def interrupt_budget(deadline_at: float) -> float:
    """Seconds an interrupt may take, from now, for a call whose deadline was ``deadline_at``
    (a :func:`time.monotonic` time)."""
    return max(INTERRUPT_BUDGET_S, deadline_at + REPORT_BY_S - time.monotonic())


async def interrupt_if_busy(page: AsyncPage, budget_s: float = INTERRUPT_BUDGET_S) -> str:
    """If the page's main thread does not answer, stop the script running on it.

    ``budget_s``: the time it may take; what the first probe and the interrupt leave of it
    goes to waiting for the page to confirm it is free. Returns a sentence for the caller's
    error message ("" when the page was not busy)."""
    ends = time.monotonic() + budget_s - _MARGIN_S
    if page.is_closed():
        return ""
    session = _SESSIONS.get(identity(page))
    if session is None:
        return ""
    if await _answers(session, PROBE_MS):
        return ""
    # Unanswered in time: the interrupt may still land.
    await _answered(session, "Runtime.terminateExecution", {}, TERMINATE_MS)
    # "Terminate current or next execution": if the busy script ended before the interrupt
    # arrived, the next script would be killed (perhaps the caller's own). A trivial
    # evaluation of ours is next in line and takes it; its answer says the page is free.
    # The renderer first runs what was queued behind the busy script (the cancelled call's
    # own requests): the probe waits for the rest of the budget, not just PROBE_MS.
    confirm_ms = max(PROBE_MS, 1000 * (ends - time.monotonic()))
    if await _answers(session, confirm_ms):
        logger.info("stagehand_py: stopped a script that kept the page busy past the deadline")
        return BUSY_STOPPED
    logger.info("stagehand_py: the page is busy and did not take an interrupt")
    return BUSY_LEFT
