"""The run's deadlines (whole run, current step) and the signals that end a step or a run.

The signals are control flow inside the loop; none of them ever leaves ``page.agent()``.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .._signal import Signal


class StepFailed(Signal):
    """The current step cannot go on (the model failed, the page could not be read...)."""


class StepTimedOut(StepFailed):
    """The current step used up ``step_timeout_s``."""


class RunTimedOut(Exception):
    """The run used up ``timeout_s``."""


class RunCancelled(Signal):
    """An approver cancelled the run, or ``AgentControls.stop()`` was called."""


class RunEnded(Signal):
    """The run cannot go on at all (every tab closed)."""


class RunClock:
    """Wall-clock budgets: ``timeout_s`` for the run, ``step_timeout_s`` per step."""

    def __init__(
        self, timeout_s: float, step_timeout_s: float, now: Callable[[], float] = time.monotonic
    ) -> None:
        self._now = now
        self.started = now()
        self.deadline = self.started + timeout_s
        self.timeout_s = timeout_s
        self.step_timeout_s = step_timeout_s
        self.step_deadline = self.deadline

    def start_step(self) -> None:
        self.step_deadline = min(self.deadline, self._now() + self.step_timeout_s)

    def extend_step(self, seconds: float) -> None:
        """Time spent paused does not count against the step (it does against the run)."""
        self.step_deadline = min(self.deadline, self.step_deadline + seconds)

    def elapsed(self) -> float:
        return self._now() - self.started

    def run_left(self) -> float:
        return self.deadline - self._now()

    def left(self) -> float:
        """Time left for what runs now: the nearer of the run's and the step's deadlines."""
        return min(self.deadline, self.step_deadline) - self._now()

    def check_run(self) -> None:
        if self.run_left() <= 0:
            raise RunTimedOut

    def check(self) -> None:
        """Raise when the run's or the step's time is up."""
        self.check_run()
        if self.step_deadline - self._now() <= 0:
            raise StepTimedOut(
                f"the step took longer than step_timeout_s={self.step_timeout_s:g} s"
            )

    def cap_ms(self, ms: float) -> float:
        """A Playwright timeout that cannot carry the step past its deadline."""
        return max(1.0, min(ms, self.left() * 1000))
