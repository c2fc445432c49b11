"""Emergency mode in act(): the same triggers and switch as the agent and checklist workflows.

``AsyncStagehand.act`` passes its model as a :class:`WithFallback` (a model source that also
carries ``fallback_model``), so every act() run, cached or not, gets the fallback without a
new argument. The run keeps an :class:`ActEmergency`: each action attempt is counted (an
action that ran, with the confidence the model gave; one that could not run, or an unusable
reply, as a failure), an action that ran is progress, and before each model request
:meth:`ActEmergency.escalate` asks the pure :class:`~stagehand_py.workflow.EmergencyMonitor`
whether a trigger holds. When one does, the run switches to the fallback model (when one is
configured) and reads the page as DOM from then on, and starts its loop over from a fresh
look at the page (:class:`Escalated`); the escalation is recorded on ``ActResult.escalations``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..._emergency import (
    EmergencyMonitor,
    EmergencySettings,
    Escalation,
    View,
    changes_anything,
    plan_escalation,
)
from ..llm.base import AsyncLLM

logger = logging.getLogger("stagehand_py")

ModelSource = AsyncLLM | Callable[[], AsyncLLM] | None


@dataclass
class WithFallback:
    """act()'s model source with emergency mode's fallback. Calling it gives the primary
    model (so it is an ordinary model source to code that does not know about fallbacks)."""

    primary: ModelSource
    fallback: ModelSource
    fallback_name: str = ""
    now: Callable[[], float] | None = None  # the stall clock (tests give their own)

    def __call__(self) -> AsyncLLM:
        source = self.primary
        if source is None:
            from ..._errors import ConfigurationError

            raise ConfigurationError("This act needs a model, and none is configured.")
        return source if isinstance(source, AsyncLLM) else source()


class Escalated(Exception):
    """Emergency mode switched the model or the view: the act loop starts over (never
    escapes the run)."""

    def __init__(self, escalation: Escalation) -> None:
        super().__init__(escalation.line())
        self.escalation = escalation


class ActEmergency:
    """The view an act() reads the page in, the attempts emergency mode watches, and the
    escalations made (at most one per run)."""

    def __init__(self, settings: EmergencySettings, source: object, view: View) -> None:
        self.fallback: ModelSource = None
        self.fallback_name = ""
        now: Callable[[], float] = time.monotonic
        if isinstance(source, WithFallback):
            self.fallback, self.fallback_name = source.fallback, source.fallback_name
            now = source.now or now
        self.monitor = EmergencyMonitor(settings, now=now)
        self.view: View = view
        self.escalations: list[Escalation] = []

    def attempt(self, *, ok: bool, confidence: float | None = None) -> None:
        self.monitor.attempt(ok=ok, confidence=confidence)
        if ok:
            self.monitor.progress()

    def escalate(self, attempt: int, model: str) -> Escalation | None:
        """When a trigger holds (once per run): the escalation to apply, else None. One that
        can switch nothing (the DOM view already, no fallback) is recorded and None returned."""
        if self.escalations:
            return None
        fired = self.monitor.trigger()
        if fired is None:
            return None
        fallback_name = None
        if self.fallback is not None:
            named = self.fallback.model if isinstance(self.fallback, AsyncLLM) else ""
            fallback_name = named or self.fallback_name or "fallback"
        escalation = plan_escalation(
            fired[0],
            fired[1],
            attempt=attempt,
            model=model,
            fallback_model=fallback_name,
            view=self.view,
        )
        self.escalations.append(escalation)
        logger.info("stagehand_py: act %s", escalation.line())
        if not changes_anything(escalation):
            return None  # recorded (the note says nothing could be switched); the run goes on
        self.view = escalation.view_after
        return escalation

    def snapshot_args(self) -> dict[str, Any]:
        """``take_snapshot``'s arguments for the current view (none for the default DOM)."""
        return {} if self.view == "dom" else {"mode": self.view}

    async def run_loop(self, loop: Callable[[], Awaitable[str]]) -> str:
        """Run act()'s ``loop``; after an escalation it starts over on a fresh look at the
        page (in the new view), the steps taken so far kept."""
        while True:
            try:
                return await loop()
            except Escalated:
                continue
