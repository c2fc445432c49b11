"""Emergency mode: when to leave the primary model and the accessibility tree (pure).

The ADR's numbers are the defaults of :class:`EmergencySettings`: 3 failed attempts in a row,
30 seconds without progress, or an average confidence below 0.3 over the last 5 attempts. An
:class:`EmergencyMonitor` is told about each attempt (and about progress) and says which
trigger fired, if any; :func:`plan_escalation` says what escalating changes (the model, the
view, or both) and the loop records the :class:`Escalation` it applied.

The monitor has no I/O and takes its clock as an argument, so any loop can call it: the
checklist workflow, the agent, and act() (``attempt(ok=..., confidence=...)`` after each
action attempt, ``progress()`` when the page moved on, ``trigger()`` before the next one).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EscalationTrigger = Literal["failures", "stall", "low_confidence"]
"""Why emergency mode started:

``failures``        ``max_failures`` attempts in a row failed
``stall``           ``stall_s`` seconds passed without progress
``low_confidence``  the average confidence of the last ``confidence_window`` attempts was
                    below ``min_confidence`` (an attempt that failed counts 0)
"""

View = Literal["dom", "aria"]


class EmergencySettings(BaseModel):
    """When emergency mode starts (``Settings(emergency=EmergencySettings(...))``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enabled: bool = Field(default=True, description="escalate at all")
    max_failures: int = Field(default=3, ge=1, description="failed attempts in a row")
    stall_s: float = Field(default=30.0, gt=0, description="seconds without progress")
    min_confidence: float = Field(
        default=0.3, ge=0, le=1, description="lowest average confidence tolerated"
    )
    confidence_window: int = Field(default=5, ge=1, description="attempts averaged")


class Escalation(BaseModel):
    """One switch to emergency mode, as recorded on a result."""

    trigger: EscalationTrigger
    detail: str = Field(description="the numbers that fired the trigger")
    attempt: int = Field(description="the attempt of the item (or step of the run) it preceded")
    model_switched: bool = Field(description="the fallback model answers from here on")
    model_before: str = ""
    model_after: str = ""
    view_before: View = "aria"
    view_after: View = "dom"
    note: str = Field(default="", description="what could not be switched, and why")

    def line(self) -> str:
        changes = []
        if self.model_switched:
            changes.append(f"model {self.model_before or '?'} -> {self.model_after or '?'}")
        if self.view_after != self.view_before:
            changes.append(f"view {self.view_before} -> {self.view_after}")
        what = ", ".join(changes) or "nothing switched"
        note = f" ({self.note})" if self.note else ""
        return f"emergency at attempt {self.attempt} [{self.trigger}: {self.detail}]: {what}{note}"


@dataclass
class EmergencyMonitor:
    """Watches attempts; :meth:`trigger` names the first trigger that holds, or ``None``.

    ``now`` is the clock the stall is measured with (``time.monotonic`` unless a test gives
    its own). Progress is reported by the caller: the page changed, an item was completed.
    """

    settings: EmergencySettings = field(default_factory=EmergencySettings)
    now: Callable[[], float] = time.monotonic
    _failures: int = 0
    _confidences: list[float | None] = field(default_factory=list)
    _given: list[bool] = field(default_factory=list)
    _attempts: int = 0
    _last_progress: float = 0.0

    def __post_init__(self) -> None:
        self._last_progress = self.now()

    def reset(self) -> None:
        """Start afresh (a new checklist item): no failures, no window, progress now."""
        self._failures = 0
        self._confidences = []
        self._given = []
        self._attempts = 0
        self._last_progress = self.now()

    def attempt(self, *, ok: bool, confidence: float | None = None) -> None:
        """One attempt ended: ``ok`` or failed; ``confidence`` the model's, if it gave one."""
        self._attempts += 1
        if ok:
            self._failures = 0
            self._confidences.append(confidence)
        else:
            self._failures += 1
            self._confidences.append(0.0)
        self._given.append(confidence is not None)
        del self._confidences[: -self.settings.confidence_window]
        del self._given[: -self.settings.confidence_window]

    def progress(self) -> None:
        """The page moved on (or an item was done): the stall clock starts again."""
        self._last_progress = self.now()

    @property
    def attempts(self) -> int:
        return self._attempts

    @property
    def consecutive_failures(self) -> int:
        return self._failures

    def average_confidence(self) -> float | None:
        """Mean confidence of the window's attempts that have one (failed attempts count 0)."""
        counted = [c for c in self._confidences if c is not None]
        return sum(counted) / len(counted) if counted else None

    def stalled_for(self) -> float:
        return self.now() - self._last_progress

    def trigger(self) -> tuple[EscalationTrigger, str] | None:
        """The trigger that holds now and its numbers; failures first, then stall, then
        confidence (which needs a full window of attempts, at least one of them with a
        confidence the model gave: a model that never gives one is judged on failures)."""
        s = self.settings
        if not s.enabled:
            return None
        if self._failures >= s.max_failures:
            return "failures", f"{self._failures} failed attempts in a row"
        stalled = self.stalled_for()
        if stalled >= s.stall_s:
            return "stall", f"no progress for {stalled:.0f} s (limit {s.stall_s:g} s)"
        average = self.average_confidence()
        window_full = len(self._confidences) >= s.confidence_window and any(self._given)
        if window_full and average is not None and average < s.min_confidence:
            return "low_confidence", (
                f"average confidence {average:.2f} over the last {s.confidence_window} "
                f"attempts (limit {s.min_confidence:g})"
            )
        return None


def plan_escalation(
    trigger: EscalationTrigger,
    detail: str,
    *,
    attempt: int,
    model: str,
    fallback_model: str | None,
    view: View,
) -> Escalation:
    """What escalating changes: the fallback model when there is one (``fallback_model``
    names it; ``None`` when none is configured) and the DOM view instead of the tree."""
    notes = []
    if fallback_model is None and view == "dom":
        notes.append(
            "nothing could be switched: no fallback_model is configured and the page is "
            "already read as DOM"
        )
    elif fallback_model is None:
        notes.append("no fallback_model is configured: the model stays")
    elif view == "dom":
        notes.append("the page is already read as DOM")
    return Escalation(
        trigger=trigger,
        detail=detail,
        attempt=attempt,
        model_switched=fallback_model is not None,
        model_before=model,
        model_after=fallback_model if fallback_model is not None else model,
        view_before=view,
        view_after="dom",
        note="; ".join(notes),
    )


def changes_anything(escalation: Escalation) -> bool:
    """Whether applying ``escalation`` switches the model or the view. One that switches
    nothing is still recorded (its note says so), but the run goes on as it was."""
    return escalation.model_switched or escalation.view_after != escalation.view_before
