"""An agent run that keeps the element actions it ran, in the action cache's form.

The agent's actions that worked on an element are kept as
:class:`~stagehand_py.cache.CachedAction` (every selector, frame path, arguments with
``<|NAME|>`` placeholders, and the element's fingerprint read before the action ran), so the
action cache can replay them with no model call: an agent() run's entry, and each checklist
item of a workflow(). A run that needed more than element actions (navigation, tabs, an
extract) is marked not replayable: its steps alone would not redo it.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Error as PlaywrightError
from pydantic import ValidationError

from ..._errors import PageError
from ...agent._actions import AgentOutput, ElementActionBase
from ...agent._history import StepRecord
from ...cache import CachedAction, ElementFingerprint
from ..browser.locate import locate_selectors
from ..cache.fingerprint import fingerprint_of_locator
from .actions import _element_call
from .observe import Observation
from .run import AsyncAgentRun

# Actions a replay can leave out (they change no state a later element action relies on);
# any other non-element action (navigate, tabs, extract) makes a flow not replayable.
_REPLAY_SKIPS = frozenset({"scroll", "wait"})


class AsyncFlowKeepingRun(AsyncAgentRun):
    """An agent run keeping its element actions in ``flow`` (see the module docstring);
    ``keeps_flow=False`` (no cache to write) skips reading the fingerprints."""

    keeps_flow: bool = True
    flow: list[CachedAction]
    flow_replayable: bool = True
    # Why the flow is not replayable ("" while it is), for the result's not_cached.
    not_replayable: str = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.forget_flow()

    def forget_flow(self) -> None:
        """Start a new flow (a workflow starts one per checklist item)."""
        self.flow, self.flow_replayable, self.not_replayable = [], True, ""

    async def _act(self, output: AgentOutput, observation: Observation, record: StepRecord) -> None:
        if not self.keeps_flow:
            await super()._act(output, observation, record)
            return
        prints = [await self._fingerprint(action, observation) for action in output.actions]
        try:
            await super()._act(output, observation, record)
        finally:
            self._keep_flow(output, observation, record, prints)

    async def _fingerprint(
        self, action: object, observation: Observation
    ) -> ElementFingerprint | None:
        """The live fingerprint of an element action's element, read before it runs."""
        if not isinstance(action, ElementActionBase):
            return None
        try:
            element = observation.snapshot.element(action.index)
            locator, _ = await locate_selectors(self.page, element.frame, element.selectors)
            return await fingerprint_of_locator(locator, timeout_ms=self.clock.cap_ms(1000))
        except (PageError, PlaywrightError):
            return None  # the action reports the real problem

    def _keep_flow(
        self,
        output: AgentOutput,
        observation: Observation,
        record: StepRecord,
        prints: list[ElementFingerprint | None],
    ) -> None:
        ran = zip(output.actions, record.results, prints, strict=False)
        for action, outcome, fingerprint in ran:
            if outcome.status != "ok":
                continue
            if not isinstance(action, ElementActionBase):
                if action.action not in _REPLAY_SKIPS:
                    self._unreplayable(f"step {record.number} ran {action.action}")
                continue
            element = observation.snapshot.element(action.index)
            method, args = _element_call(action)
            try:
                self.flow.append(
                    CachedAction(
                        method=method,
                        selectors=list(element.selectors),
                        frame=list(element.frame),
                        arguments=[self._redact(arg) for arg in args],
                        description=outcome.description,
                        fingerprint=fingerprint,
                    )
                )
            except ValidationError:  # a step the cache could not replay safely
                self._unreplayable(f"step {record.number}'s {method} cannot be replayed safely")

    def _unreplayable(self, why: str) -> None:
        if self.flow_replayable:
            self.flow_replayable, self.not_replayable = False, why
