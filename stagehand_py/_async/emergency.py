"""Emergency mode, for act(), the agent and checklist workflows alike: which model answers
and which view the page is read in.

The triggers are the pure :class:`~stagehand_py.workflow.EmergencyMonitor`; the controller
here (:class:`AsyncEmergency`) holds what they switch. Before escalation the primary model
answers and the page is read in the run's view; after it, the fallback model (when one is
configured) answers and the page is read as DOM, for the rest of the run (act, the agent) or
of the item (a checklist workflow calls :meth:`AsyncEmergency.reset` for each item). An
escalation that can switch nothing (the DOM view already, no fallback model) is recorded all
the same, once, with a note saying so, and changes nothing.

act() gets its fallback through its model source: ``AsyncStagehand.act`` passes a
:class:`WithFallback`, so every act() run, cached or not, has it without a new argument. Its
run counts each action attempt (:meth:`AsyncEmergency.attempt`), asks before each model
request whether a trigger holds, and after an escalation that switched something starts its
loop over from a fresh look at the page (:class:`ActEmergency`, :class:`Escalated`).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .._emergency import (
    EmergencyMonitor,
    EmergencySettings,
    Escalation,
    View,
    changes_anything,
    plan_escalation,
)
from .._errors import ConfigurationError
from ..agent._history import StepRecord
from ..agent._state import AgentState
from ..llm._model_string import no_model_configured
from .llm.base import AsyncLLM
from .llm.factory import create_llm, model_spec
from .llm.source import ModelSource, model_of, user_model

logger = logging.getLogger("stagehand_py")

M = TypeVar("M")


class AsyncEmergency(Generic[M]):
    """The current model (an ``M``: the agent's bounded model, act()'s model source) and view
    of a run, and the escalations made so far (at most one per run, or per item)."""

    def __init__(
        self,
        settings: EmergencySettings | None,
        primary: M,
        fallback: M | None,
        view: View,
        now: Callable[[], float] | None = None,
        *,
        fallback_name: str = "",
        log_as: str = "",
    ) -> None:
        monitor_settings = settings or EmergencySettings(enabled=False)
        self.monitor = EmergencyMonitor(monitor_settings, now=now or time.monotonic)
        self.primary = primary
        self.fallback = fallback
        self.fallback_name = fallback_name  # the fallback's name while it is not made yet
        self.start_view: View = view
        self.llm: M = primary
        self.view: View = view
        self.escalated = False
        self.escalations: list[Escalation] = []
        self._seen: str | None = None
        self._log_as = log_as  # what the log line says first ("act ")

    def reset(self) -> None:
        """Back to the primary model and view, with a fresh monitor (a new checklist item)."""
        self.llm, self.view, self.escalated, self._seen = self.primary, self.start_view, False, None
        self.monitor.reset()

    # ----------------------------------------------------------------- what it watches
    def attempt(self, *, ok: bool, confidence: float | None = None) -> None:
        """An action attempt (act()): one that ran is progress, one that could not a failure."""
        self.monitor.attempt(ok=ok, confidence=confidence)
        if ok:
            self.monitor.progress()

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

    # ----------------------------------------------------------------- escalating
    def pending(self) -> bool:
        """True when the next look at the page will escalate (switch the model or view)."""
        escalation = self._plan(0, None)
        return escalation is not None and changes_anything(escalation)

    def escalate(self, attempt: int, model: str | None = None) -> Escalation | None:
        """Switch to the fallback model and the DOM view when a trigger holds; the record.
        One that can switch nothing is recorded and returned, and switches nothing.
        ``model``: the name of the model answering now (default: the primary's)."""
        escalation = self._plan(attempt, model)
        if escalation is None:
            return None
        self.escalated = True
        self.escalations.append(escalation)
        logger.info("stagehand_py: %s%s", self._log_as, escalation.line())
        if not changes_anything(escalation):
            return escalation
        if escalation.model_switched and self.fallback is not None:
            self.llm = self.fallback
        self.view = escalation.view_after
        self._seen = None  # the DOM view reads differently: not progress by itself
        return escalation

    def _plan(self, attempt: int, model: str | None) -> Escalation | None:
        if self.escalated:
            return None
        fired = self.monitor.trigger()
        if fired is None:
            return None
        return plan_escalation(
            fired[0],
            fired[1],
            attempt=attempt,
            model=_name_of(self.primary) if model is None else model,
            fallback_model=self._fallback_model(),
            view=self.view,
        )

    def _fallback_model(self) -> str | None:
        """The fallback's name for the record, or None when there is no fallback."""
        if self.fallback is None:
            return None
        return _name_of(self.fallback) or self.fallback_name or "fallback"


def _name_of(model: object) -> str:
    return model.model if isinstance(model, AsyncLLM) else ""


def step_confidence(record: StepRecord) -> float | None:
    """The mean confidence the model gave the step's actions that ran, if it gave any."""
    given = [r.confidence for r in record.results if r.status != "not_run"]
    counted = [c for c in given if c is not None]
    return sum(counted) / len(counted) if counted else None


# ---------------------------------------------------------------------- act()
@dataclass
class WithFallback:
    """act()'s model source with emergency mode's fallback. Calling it gives the primary
    model (so it is an ordinary model source to code that does not know about fallbacks)."""

    primary: ModelSource | None
    fallback: ModelSource | None
    fallback_name: str = ""
    now: Callable[[], float] | None = None  # the stall clock (tests give their own)

    def __call__(self) -> AsyncLLM:
        if self.primary is None:
            raise no_model_configured("act()")
        return model_of(self.primary)


class Escalated(Exception):
    """Emergency mode switched the model or the view: the act loop starts over (never
    escapes the run)."""

    def __init__(self, escalation: Escalation) -> None:
        super().__init__(escalation.line())
        self.escalation = escalation


class ActEmergency(AsyncEmergency[ModelSource]):
    """act()'s controller, read from its model source (a :class:`WithFallback` carries the
    fallback and the stall clock). Its :meth:`escalate` returns only an escalation that
    switched something: one that could not is recorded, and the run goes on."""

    def __init__(self, settings: EmergencySettings, source: ModelSource | None, view: View) -> None:
        carried = source if isinstance(source, WithFallback) else WithFallback(source, None)
        super().__init__(
            settings,
            carried,
            carried.fallback,
            view,
            carried.now,
            fallback_name=carried.fallback_name,
            log_as="act ",
        )

    def escalate(self, attempt: int, model: str | None = None) -> Escalation | None:
        escalation = super().escalate(attempt, model)
        return escalation if escalation is not None and changes_anything(escalation) else None

    async def run_loop(self, loop: Callable[[], Awaitable[str]]) -> str:
        """Run act()'s ``loop``; after an escalation it starts over on a fresh look at the
        page (in the new view), the steps taken so far kept."""
        while True:
            try:
                return await loop()
            except Escalated:
                continue


# ---------------------------------------------------------------------- fallback_model=
def checked_fallback(fallback: object) -> str | AsyncLLM | None:
    """``fallback_model=``: a model string (checked now) or a client, or None."""
    if fallback is None:
        return fallback
    if isinstance(fallback, str):
        model_spec(fallback)
        return fallback
    if hasattr(fallback, "chat") or hasattr(fallback, "structured"):
        return user_model(fallback, owner="fallback_model=...")
    raise ConfigurationError(
        "fallback_model takes a model string such as 'openai/gpt-4.1' or a model client, "
        f"not {type(fallback).__name__}."
    )


def fallback_source(fallback: str | AsyncLLM | None) -> ModelSource | None:
    """What a run asks in emergency mode: the client, or one made on first need."""
    if fallback is None or isinstance(fallback, AsyncLLM):
        return fallback
    return lambda: create_llm(fallback)


def fallback_name(fallback: str | AsyncLLM | None) -> str:
    if fallback is None:
        return ""
    return fallback if isinstance(fallback, str) else fallback.model
