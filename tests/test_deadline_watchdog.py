"""The sync deadline's watchdog finds the calls of its own region, however this Playwright
records the caller on a call's task: the caller's frame (1.65 on) or the call's whole stack
(1.60 to 1.64, which the floors run in scripts/test-lowest.sh)."""

from __future__ import annotations

import asyncio
import inspect
import sys
import time
from collections.abc import Callable, Iterator

import pytest

from stagehand_py._deadline_clock import deadline_region
from stagehand_py._sync._deadline import _Watchdog


class _Call:
    """A pending sync API call's task, as much of it as the watchdog reads."""

    def __init__(self) -> None:
        self.cancelled = False

    def done(self) -> bool:
        return self.cancelled

    def cancel(self) -> bool:
        self.cancelled = True
        return True


def _as_new_playwright(call: _Call) -> None:
    call.__pw_caller_frame__ = sys._getframe(1)  # type: ignore[attr-defined]


def _as_old_playwright(call: _Call) -> None:
    call.__pw_stack__ = inspect.stack(0)  # type: ignore[attr-defined]


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[_Call]]:
    """The pending calls on Playwright's loop (what ``asyncio.all_tasks`` gives the
    watchdog): a real loop of this thread may be Playwright's own, left set as running by
    the sync API of the older releases, so none is run here."""
    pending: list[_Call] = []
    monkeypatch.setattr(asyncio, "all_tasks", lambda loop=None: list(pending))
    yield pending


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def _pending_call(calls: list[_Call], tag: Callable[[_Call], None]) -> _Call:
    """A call made from the caller's frame, tagged as ``tag``'s Playwright tags it."""
    call = _Call()
    tag(call)
    calls.append(call)
    return call


@pytest.mark.parametrize("tag", [_as_new_playwright, _as_old_playwright], ids=["1.65", "1.60"])
def test_the_watchdog_cancels_the_calls_made_inside_its_region(
    loop: asyncio.AbstractEventLoop, calls: list[_Call], tag: Callable[[_Call], None]
) -> None:
    with deadline_region() as region:
        watchdog = _Watchdog(loop, sys._getframe(0), time.monotonic() + 60, region)
        mine = _pending_call(calls, tag)
        watchdog.fire()
        watchdog.stop()
    assert mine.cancelled


@pytest.mark.parametrize("tag", [_as_new_playwright, _as_old_playwright], ids=["1.65", "1.60"])
def test_the_watchdog_leaves_calls_made_outside_its_region(
    loop: asyncio.AbstractEventLoop, calls: list[_Call], tag: Callable[[_Call], None]
) -> None:
    other = _pending_call(calls, tag)  # made before the region's frame existed

    def region_body() -> None:
        with deadline_region() as region:
            watchdog = _Watchdog(loop, sys._getframe(0), time.monotonic() + 60, region)
            watchdog.fire()
            watchdog.stop()

    region_body()
    assert not other.cancelled
