"""See what the model sees, on any Playwright page, sync or async.

``take_snapshot(page)`` returns the snapshot for a sync page and an awaitable for an async
one, so the same name works in both worlds::

    snap = take_snapshot(page)            # sync
    snap = await take_snapshot(apage)     # async
    print(snap.render_chunk(snap.chunk_order()[0]))
"""

from __future__ import annotations

import os
from collections.abc import Awaitable
from typing import overload

from playwright.async_api import Page as AsyncPage
from playwright.sync_api import Page as SyncPage

from ._async.browser import in_time as async_in_time
from ._config import SnapshotMode
from ._errors import ConfigurationError
from ._snapshot import Snapshot
from ._sync.browser import in_time as sync_in_time


def _check(page: object) -> None:
    if not isinstance(page, (AsyncPage, SyncPage)):
        raise ConfigurationError(
            f"Expected a Playwright Page (sync or async), got {type(page).__name__}."
        )


@overload
def take_snapshot(
    page: AsyncPage, *, mode: SnapshotMode = "dom", timeout_s: float | None = None
) -> Awaitable[Snapshot]: ...
@overload
def take_snapshot(
    page: SyncPage, *, mode: SnapshotMode = "dom", timeout_s: float | None = None
) -> Snapshot: ...
def take_snapshot(
    page: AsyncPage | SyncPage, *, mode: SnapshotMode = "dom", timeout_s: float | None = None
) -> Snapshot | Awaitable[Snapshot]:
    """The page's numbered elements and chunks, exactly as act() would send them; ``mode``
    ``"aria"`` reads Playwright's accessibility tree instead of the DOM. ``timeout_s``
    (default: the ``timeout_s`` setting's default) bounds the call: a page that holds its
    main thread is interrupted and :class:`~stagehand_py.StagehandTimeoutError` raised."""
    _check(page)
    if isinstance(page, AsyncPage):
        return async_in_time.snapshot_within(page, mode=mode, timeout_s=timeout_s)
    return sync_in_time.snapshot_within(page, mode=mode, timeout_s=timeout_s)


@overload
def annotated_screenshot(
    page: AsyncPage, path: str | os.PathLike[str], *, timeout_s: float | None = None
) -> Awaitable[Snapshot]: ...
@overload
def annotated_screenshot(
    page: SyncPage, path: str | os.PathLike[str], *, timeout_s: float | None = None
) -> Snapshot: ...
def annotated_screenshot(
    page: AsyncPage | SyncPage, path: str | os.PathLike[str], *, timeout_s: float | None = None
) -> Snapshot | Awaitable[Snapshot]:
    """Write a screenshot to ``path`` with each element's number drawn over it, within
    ``timeout_s`` like :func:`take_snapshot`."""
    _check(page)
    if isinstance(page, AsyncPage):
        return async_in_time.screenshot_within(page, path, timeout_s=timeout_s)
    return sync_in_time.screenshot_within(page, path, timeout_s=timeout_s)
