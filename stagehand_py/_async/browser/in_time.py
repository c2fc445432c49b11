"""Calls that only read the page, under the same hard deadline act/extract/observe run under.

``page.snapshot()``, ``page.annotated_screenshot()`` and the module-level ``take_snapshot()``
/ ``annotated_screenshot()`` all go through :func:`within`: a page that holds its main thread
is interrupted at ``timeout_s`` and :class:`~stagehand_py.StagehandTimeoutError` is raised.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar

from playwright.async_api import Page as AsyncPage

from ..._call_outcomes import out_of_time
from ..._config import Settings, SnapshotMode
from ..._deadline_clock import Deadline
from ..._inputs import check_open, check_timeout
from ..._snapshot import Snapshot
from .._deadline import DeadlineExceeded, run_with_deadline
from .inspect import annotated_screenshot, take_snapshot

T = TypeVar("T")
DEFAULT_TIMEOUT_S = Settings.model_fields["timeout_s"].default


async def within(
    call: str,
    page: AsyncPage,
    timeout_s: float | None,
    body: Callable[[], Awaitable[T]],
    *,
    default_s: float = DEFAULT_TIMEOUT_S,
) -> T:
    """``body()`` under a deadline of ``timeout_s`` (``default_s`` when None), from now."""
    __tracebackhide__ = True
    seconds = check_timeout(call, timeout_s) or default_s
    deadline = Deadline.after(seconds)
    check_open(page, call)
    try:
        return await run_with_deadline(body, deadline.remaining(), lambda: page)
    except DeadlineExceeded as late:
        raise out_of_time(call, seconds, late.note) from None


async def snapshot_within(
    page: AsyncPage, *, mode: SnapshotMode = "dom", timeout_s: float | None = None
) -> Snapshot:
    """:func:`.inspect.take_snapshot` bounded by ``timeout_s``."""
    __tracebackhide__ = True
    body = functools.partial(take_snapshot, page, mode=mode)
    return await within("take_snapshot", page, timeout_s, body)


async def screenshot_within(
    page: AsyncPage, path: str | os.PathLike[str], *, timeout_s: float | None = None
) -> Snapshot:
    """:func:`.inspect.annotated_screenshot` bounded by ``timeout_s``."""
    __tracebackhide__ = True
    body = functools.partial(annotated_screenshot, page, path)
    return await within("annotated_screenshot", page, timeout_s, body)
