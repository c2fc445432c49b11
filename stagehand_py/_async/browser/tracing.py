"""Name the SDK's work in Playwright traces: one ``tracing.group`` per call and per action.

A trace recorded with ``context.tracing.start(...)`` (or pytest-playwright's ``--tracing``)
then reads "act: fill the login form" > "fill 5:<input name=email> with <|EMAIL|>" instead
of a flat list of evaluate calls. Group names are redacted by the caller's variables before
they leave (a trace is a file people share), and cut to a readable length.

Groups cost nothing when no trace is being recorded: none is opened then (that saves two
round trips per group). A browser that does not support them (an old remote server) only
loses the names: a failure to open or close a group is logged and never fails the call. Nor
can a group hold a call past its deadline: a driver busy with a huge action (a 10 MB
``fill``) answers late, so opening or closing a group waits :data:`GROUP_WAIT_S` at most and
then leaves the request to finish on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ..._act_decision import DoAction
from ..._error_line import first_line
from ..._snapshot import Snapshot
from ..._spans import AttributeValue, Span, page_origin
from ..._trace_names import action_group_name
from .._later import within_or_later

if TYPE_CHECKING:
    from playwright.async_api._generated import Tracing as AsyncTracing

logger = logging.getLogger("stagehand_py")

# Characters of a group name kept: the trace viewer shows one line per group.
MAX_GROUP_CHARS = 160
# The longest a call waits for the driver to open or close a group (measured: a group end
# queued behind a 10 MB fill answered 0.3-0.9 s after the call's deadline).
GROUP_WAIT_S = 0.1


def group_name(name: str, redact: Callable[[str], str]) -> str:
    """``name`` redacted, on one line, cut to :data:`MAX_GROUP_CHARS` characters."""
    line = " ".join(redact(name).split())
    if len(line) > MAX_GROUP_CHARS:
        line = line[: MAX_GROUP_CHARS - 1] + "…"
    return line


def action_name(snapshot: Snapshot, decision: DoAction, redact: Callable[[str], str]) -> str:
    """``fill 5:<input name=email> with <|EMAIL|>`` for a doAction of the act loop. Page
    strings are redacted before the rendering shapes them (a cut value would not be found)."""
    line = snapshot.render_element(decision.element, redact=redact)
    if decision.target is not None:
        target = snapshot.render_element(decision.target, redact=redact)
        return action_group_name(decision.method, f"{line} onto {target}")
    return action_group_name(decision.method, line, [redact(a) for a in decision.args])


def recording(tracing: AsyncTracing) -> bool:
    """Whether ``tracing`` is recording a trace started from this Playwright client. The state
    is Playwright's own, read from its implementation object; where that cannot be read (a
    Playwright that keeps it elsewhere) the answer is "recording", so groups are never lost."""
    implementation = getattr(tracing, "_impl_obj", None)
    return getattr(implementation, "_is_tracing", None) is not False


class AsyncTraceGroup:
    """``async with AsyncTraceGroup(page, "act: ...", redact):`` names a step in the trace,
    and opens an OpenTelemetry span for it (``span_name``, see :mod:`stagehand_py._spans`).

    The group is closed on the tracing object it was opened on, even when the work inside
    moved to another tab of the same context.
    """

    def __init__(
        self,
        page: AsyncPage,
        name: str,
        redact: Callable[[str], str],
        *,
        span_name: str = "stagehand.action",
        attributes: Mapping[str, AttributeValue | None] | None = None,
    ) -> None:
        __tracebackhide__ = True
        self._page = page
        self.name = group_name(name, redact)
        self._opened = False
        origin = {"stagehand.step": self.name, "url.origin": page_origin(page.url)}
        self.span = Span(span_name, redact, {**origin, **(attributes or {})})

    async def __aenter__(self) -> AsyncTraceGroup:
        __tracebackhide__ = True
        self.span.start()
        try:
            self._tracing = self._page.context.tracing
            if not recording(self._tracing):
                return self
            # Opened unless it failed in time (one still pending gets its end all the same).
            await within_or_later(self._tracing, "group", GROUP_WAIT_S, self.name)
            self._opened = True
        except PlaywrightError as exc:
            logger.debug("stagehand_py: no trace group (%s)", first_line(exc))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        __tracebackhide__ = True
        self.span.end(exc)
        if not self._opened:
            return
        self._opened = False
        try:
            await within_or_later(self._tracing, "group_end", GROUP_WAIT_S)
        except PlaywrightError as error:
            # The page or its browser went away inside the group: nothing left to close.
            logger.debug("stagehand_py: trace group not closed (%s)", first_line(error))
