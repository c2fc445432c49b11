"""Pause, resume and stop a running agent from another thread or task.

Plain thread-safe flags: the async loop and its generated sync twin both poll them between
phases and between actions, so the same object works from a thread, an asyncio task or a
signal handler. A run holds while paused (its ``timeout_s`` keeps counting: the deadline is
wall-clock) and ends with ``reason="cancelled"`` once stopped.
"""

from __future__ import annotations

import threading

POLL_S = 0.05  # how often a paused run looks at its flags again


class AgentControls:
    """Pass one to ``page.agent(..., controls=controls)``, then call its methods from anywhere."""

    def __init__(self) -> None:
        self._paused = threading.Event()
        self._stopped = threading.Event()
        self._holding = threading.Event()
        self.holds = 0  # how many times a run waited at a checkpoint while paused

    def pause(self) -> None:
        """Hold the run at its next checkpoint (between actions or phases)."""
        self._paused.set()

    def resume(self) -> None:
        self._paused.clear()

    def stop(self) -> None:
        """End the run at its next checkpoint; no further action runs."""
        self._stopped.set()

    @property
    def paused(self) -> bool:
        return self._paused.is_set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    @property
    def holding(self) -> bool:
        """True while a run is waiting at a checkpoint because it is paused."""
        return self._holding.is_set()

    def wait_until_holding(self, timeout: float | None = None) -> bool:
        """Block until a run is holding (for controllers that act once it has stopped moving)."""
        return self._holding.wait(timeout)

    def _enter_hold(self) -> None:
        self.holds += 1
        self._holding.set()

    def _leave_hold(self) -> None:
        self._holding.clear()
