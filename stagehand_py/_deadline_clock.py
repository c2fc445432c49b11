"""A call's deadline, and the one the current call runs under (pure; no I/O).

Every public call (act, extract, observe) fixes one :class:`Deadline` when it starts. Code
deep inside the call that has no deadline parameter (parsing a snapshot, cleaning page text)
reads the ambient one with :func:`current_deadline`; the page-deadline region in
``_deadline.py`` sets it for the duration of the call.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

_CURRENT: ContextVar[Deadline | None] = ContextVar("stagehand_py_deadline", default=None)


@dataclass(frozen=True)
class Deadline:
    """A point in time (``time.monotonic()``) a call must end by."""

    at: float
    seconds: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(at=time.monotonic() + seconds, seconds=seconds)

    def remaining(self) -> float:
        """Seconds left (negative once passed)."""
        return self.at - time.monotonic()

    @property
    def expired(self) -> bool:
        return self.remaining() <= 0

    def request_timeout(self) -> float:
        """``RequestOptions.timeout_s`` for a request made now (positive even once passed:
        the request is refused by the deadline, not by a validation error)."""
        return max(self.remaining(), 0.001)

    def cap_ms(self, ms: float) -> float:
        """A Playwright timeout that cannot carry the call past the deadline."""
        return max(1.0, min(ms, self.remaining() * 1000))


def current_deadline() -> Deadline | None:
    """The deadline of the public call running in this context, if any."""
    return _CURRENT.get()


@contextmanager
def ambient_deadline(deadline: Deadline) -> Iterator[Deadline]:
    """Make ``deadline`` the current one inside the block (the earlier of it and any outer)."""
    outer = _CURRENT.get()
    effective = deadline if outer is None or deadline.at <= outer.at else outer
    token = _CURRENT.set(effective)
    try:
        yield effective
    finally:
        _CURRENT.reset(token)


class DeadlineRegion:
    """One call running under a deadline region. A region may run inside another (the act
    loop inside the public act's region): the inner one, which knows what the call did,
    reports the timeout; the outer one gives it time to do so (:data:`inner_active`)."""

    def __init__(self) -> None:
        self.inner_active = 0
        # Model requests in flight: a call that expires while waiting for the model has not
        # left the page busy, and the page is not probed.
        self.model_requests = 0


_REGION: ContextVar[DeadlineRegion | None] = ContextVar("stagehand_py_region", default=None)


@contextmanager
def deadline_region() -> Iterator[DeadlineRegion]:
    """A new region, current inside the block (its parent, if any, knows it is active)."""
    parent = _REGION.get()
    region = DeadlineRegion()
    token = _REGION.set(region)
    if parent is not None:
        parent.inner_active += 1
    try:
        yield region
    finally:
        if parent is not None:
            parent.inner_active -= 1
        _REGION.reset(token)


def current_region() -> DeadlineRegion | None:
    """The innermost deadline region of the call running in this context, if any."""
    return _REGION.get()


@contextmanager
def model_request() -> Iterator[None]:
    """Mark a model request in flight in the current region (see ``model_requests``)."""
    region = _REGION.get()
    if region is not None:
        region.model_requests += 1
    try:
        yield
    finally:
        if region is not None:
            region.model_requests -= 1
