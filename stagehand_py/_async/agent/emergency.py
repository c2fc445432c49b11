"""Emergency mode inside a step loop: which model answers and which view the state is read in.

The triggers are the pure :class:`~stagehand_py.workflow.EmergencyMonitor`; this holds what
they switch. Before escalation the primary model answers and the page is read in the run's
view; after it, the fallback model (when one is configured) answers and the page is read as
DOM, for the rest of the run (the agent) or of the item (a checklist workflow, which calls
:meth:`reset` for each item). An escalation that can switch nothing (the DOM view already,
no fallback model) is recorded all the same, once, with a note saying so, and changes nothing.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any

from ..._emergency import (
    EmergencyMonitor,
    EmergencySettings,
    Escalation,
    View,
    changes_anything,
    plan_escalation,
)
from ..._errors import ConfigurationError
from ...agent._history import StepRecord
from ...agent._state import AgentState
from ..llm.base import AsyncLLM
from ..llm.factory import create_llm, model_spec
from .think import AsyncBoundedLLM

logger = logging.getLogger("stagehand_py")


def step_confidence(record: StepRecord) -> float | None:
    """The mean confidence the model gave the step's actions that ran, if it gave any."""
    given = [r.confidence for r in record.results if r.status != "not_run"]
    counted = [c for c in given if c is not None]
    return sum(counted) / len(counted) if counted else None


class AsyncEmergency:
    """The current model and view of a run, and the escalations made so far."""

    def __init__(
        self,
        settings: EmergencySettings | None,
        primary: AsyncBoundedLLM,
        fallback: AsyncBoundedLLM | None,
        view: View,
        now: Callable[[], float] | None = None,
    ) -> None:
        monitor_settings = settings or EmergencySettings(enabled=False)
        self.monitor = (
            EmergencyMonitor(monitor_settings, now=now)
            if now is not None
            else EmergencyMonitor(monitor_settings)
        )
        self.primary = primary
        self.fallback = fallback
        self.start_view: View = view
        self.llm = primary
        self.view: View = view
        self.escalated = False
        self.escalations: list[Escalation] = []
        self._seen: str | None = None

    def reset(self) -> None:
        """Back to the primary model and view, with a fresh monitor (a new checklist item)."""
        self.llm, self.view, self.escalated, self._seen = self.primary, self.start_view, False, None
        self.monitor.reset()

    def observed(self, state: AgentState) -> None:
        """A new look at the page: a different page (or the same page changed) is progress."""
        seen = hashlib.sha256(f"{state.url}\n{state.elements_text()}".encode()).hexdigest()
        if self._seen is not None and seen != self._seen:
            self.monitor.progress()
        self._seen = seen

    def step_ended(self, record: StepRecord) -> None:
        """Count the step as an attempt (a step an approver skipped is not one)."""
        if not record.skipped:
            self.monitor.attempt(ok=not record.failed, confidence=step_confidence(record))

    def _plan(self, attempt: int) -> Escalation | None:
        if self.escalated:
            return None
        fired = self.monitor.trigger()
        if fired is None:
            return None
        fallback_name = None
        if self.fallback is not None:
            fallback_name = self.fallback.model or "fallback"
        escalation = plan_escalation(
            fired[0],
            fired[1],
            attempt=attempt,
            model=self.primary.model,
            fallback_model=fallback_name,
            view=self.view,
        )
        return escalation

    def pending(self) -> bool:
        """True when the next look at the page will escalate (switch the model or view)."""
        escalation = self._plan(0)
        return escalation is not None and changes_anything(escalation)

    def escalate(self, attempt: int) -> Escalation | None:
        """Switch to the fallback model and the DOM view when a trigger holds; the record.
        One that can switch nothing is recorded and returned, and switches nothing."""
        escalation = self._plan(attempt)
        if escalation is None:
            return None
        self.escalated = True
        self.escalations.append(escalation)
        logger.info("stagehand_py: %s", escalation.line())
        if not changes_anything(escalation):
            return escalation
        if escalation.model_switched and self.fallback is not None:
            self.llm = self.fallback
        self.view = escalation.view_after
        self._seen = None  # the DOM view reads differently: not progress by itself
        return escalation


def checked_fallback(fallback: object) -> str | AsyncLLM | None:
    """``fallback_model=``: a model string (checked now) or a client, or None."""
    if fallback is None or isinstance(fallback, AsyncLLM):
        return fallback
    if isinstance(fallback, str):
        model_spec(fallback)
        return fallback
    raise ConfigurationError(
        "fallback_model takes a model string such as 'openai/gpt-4.1' or a model client, "
        f"not {type(fallback).__name__}."
    )


def fallback_source(fallback: str | AsyncLLM | None) -> Any:
    """What a run asks in emergency mode: the client, or one made on first need."""
    if fallback is None or isinstance(fallback, AsyncLLM):
        return fallback
    return lambda: create_llm(fallback)


def fallback_name(fallback: str | AsyncLLM | None) -> str:
    if fallback is None:
        return ""
    return fallback if isinstance(fallback, str) else fallback.model
