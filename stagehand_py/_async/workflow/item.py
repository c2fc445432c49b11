"""One checklist item, driven by the agent's step (observe -> think -> act -> finish).

:class:`AsyncItemRun` is an :class:`~stagehand_py._async.agent.run.AsyncAgentRun` whose task
message is rewritten every turn: the request, the whole checklist with its progress (``[x]``
done, the current item marked) and the step re-derived from the item alone (id, original
instruction, attempt: the ADR's ``deriveNextStep``). ``done`` does not end anything by
itself: a completion check (one structured ``verify`` request on the state the model
answered from) decides whether the item is done. Emergency mode is the agent's, reset for
each item. The element actions that ran are kept, in the action cache's form, for the
per-site history.
"""

from __future__ import annotations

import logging

from playwright.async_api import Error as PlaywrightError
from pydantic import ValidationError

from ..._emergency import Escalation
from ..._error_line import first_line
from ..._errors import LLMError, PageError
from ...agent._actions import ELEMENT_ACTIONS, AgentOutput, DoneAction
from ...agent._history import StepRecord
from ...cache import CachedAction, ElementFingerprint
from ...llm._messages import RequestOptions
from ...workflow._checklist import ItemStatus, derive_next_step
from ...workflow._prompts import (
    ITEM_SYSTEM,
    CompletionCheck,
    check_feedback,
    check_messages,
    item_task,
)
from ...workflow._result import WorkflowItem
from ..agent.actions import _element_call
from ..agent.ending import Ending
from ..agent.observe import Observation
from ..agent.run import AsyncAgentRun
from ..browser.locate import locate_selectors
from ..cache.fingerprint import fingerprint_of_locator
from ..llm.accounting import ask_recorded

logger = logging.getLogger("stagehand_py")

# Actions a replay can leave out (they change no state a later element action relies on);
# any other non-element action (navigate, tabs, extract) makes a flow not replayable.
_REPLAY_SKIPS = frozenset({"scroll", "wait"})


class AsyncItemRun(AsyncAgentRun):
    """The agent's step machinery, one checklist item at a time (see the module docstring)."""

    SYSTEM_TEMPLATE = ITEM_SYSTEM

    item: WorkflowItem
    request: str = ""
    texts: list[str]
    statuses: list[ItemStatus]
    position: int = 0
    hints: str = ""
    flow: list[CachedAction]
    flow_replayable: bool = True
    gave_up: str = ""
    verify_options: RequestOptions = RequestOptions(kind="verify")  # the workflow sets its own
    _item_done: bool = False

    def begin(
        self,
        request: str,
        texts: list[str],
        statuses: list[ItemStatus],
        position: int,
        item: WorkflowItem,
    ) -> None:
        """Start ``item`` (the ``position``-th, 0-based): primary model and view, no history."""
        self.request, self.texts, self.statuses = request, texts, statuses
        self.position, self.item = position, item
        self.emergency.reset()
        self.settings = self.settings.updated(snapshot=self.emergency.view)
        self._failures = 0
        self.messages.clear_history()
        self.flow, self.flow_replayable, self.gave_up = [], True, ""
        self._item_done = False

    @property
    def consecutive_failures(self) -> int:
        return self._failures

    async def attempt(self, hints: str = "") -> bool:
        """One step on the item; True when its completion check said it is done."""
        await self._checkpoint()
        self.item.attempts += 1
        step = derive_next_step(self.item.id, self.item.text, self.item.attempts)
        self.messages.set_task(
            item_task(self.request, self.texts, self.statuses, self.position, step, hints)
        )
        self._item_done, self.gave_up = False, ""
        before = len(self.steps)
        try:
            await self._step()
        finally:
            for record in self.steps[before:]:
                self._collect(record)
        if self._item_done:
            self.emergency.monitor.progress()
        return self._item_done

    def _collect(self, record: StepRecord) -> None:
        item = self.item
        item.actions.extend(r for r in record.results if r.status != "not_run")
        item.usage = item.usage + record.usage
        item.model_requests += record.usage.requests
        item.url = record.url

    def _escalated(self, escalation: Escalation) -> None:
        self.item.escalations.append(escalation)

    # ----------------------------------------------------------------- done: the check
    async def _finished(self, done: DoneAction, record: StepRecord) -> Ending | None:
        self._done(done, record)  # records the done action on the step
        if not done.success:
            self.gave_up = self._redact(done.text) or "no reason given"
            record.error = f"the model says the item cannot be done: {self.gave_up}"
            return None
        try:
            messages = check_messages(
                derive_next_step(self.item.id, self.item.text, self.item.attempts),
                self._redact(done.text),
                self.messages.state_text,
            )
            response = await ask_recorded(
                record,
                lambda: self._llm.structured(
                    messages,
                    CompletionCheck,
                    max_retries=self.settings.max_reasks,
                    options=self.verify_options,
                ),
            )
        except LLMError as exc:
            record.error = self._redact(f"the completion check failed: {first_line(exc)}")
            return None
        reason = self._redact(response.value.reason)
        if response.value.completed:
            self.item.check = reason
            self._item_done = True
        else:
            record.error = check_feedback(reason or "no reason given")
        logger.info(
            "stagehand_py: workflow item %d check: %s (%s)",
            self.item.id,
            "done" if self._item_done else "not done",
            reason,
        )
        return None

    # ----------------------------------------------------------------- the flow kept
    async def _act(self, output: AgentOutput, observation: Observation, record: StepRecord) -> None:
        prints = [await self._fingerprint(action, observation) for action in output.actions]
        try:
            await super()._act(output, observation, record)
        finally:
            self._keep_flow(output, observation, record, prints)

    async def _fingerprint(
        self, action: object, observation: Observation
    ) -> ElementFingerprint | None:
        """The live fingerprint of an element action's element, read before it runs."""
        if not isinstance(action, ELEMENT_ACTIONS):
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
            if not isinstance(action, ELEMENT_ACTIONS):
                if action.action not in _REPLAY_SKIPS:
                    self.flow_replayable = False
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
                self.flow_replayable = False
