"""One checklist item, driven by the agent's step (observe -> think -> act -> finish).

:class:`AsyncItemRun` is an :class:`~stagehand_py._async.agent.run.AsyncAgentRun` whose task
message is rewritten every turn: the request, the whole checklist with its progress (``[x]``
done, the current item marked) and the step re-derived from the item alone (id, original
instruction, attempt: the ADR's ``deriveNextStep``). ``done`` does not end anything by
itself: a completion check (one structured ``verify`` request on the state the model
answered from) decides whether the item is done. Emergency mode is the agent's, reset for
each item. The element actions that ran are kept, in the action cache's form
(:class:`~stagehand_py._async.agent.flow.AsyncFlowKeepingRun`), for replay.
"""

from __future__ import annotations

import logging

from ..._emergency import Escalation
from ..._error_line import first_line
from ..._errors import LLMError
from ...agent._actions import DoneAction
from ...agent._history import StepRecord
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
from ..agent.ending import Ending
from ..agent.flow import AsyncFlowKeepingRun
from ..llm.accounting import ask_recorded

logger = logging.getLogger("stagehand_py")


class AsyncItemRun(AsyncFlowKeepingRun):
    """The agent's step machinery, one checklist item at a time (see the module docstring)."""

    SYSTEM_TEMPLATE = ITEM_SYSTEM

    item: WorkflowItem
    request: str = ""
    texts: list[str]
    statuses: list[ItemStatus]
    position: int = 0
    hints: str = ""
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
        self.forget_flow()
        self.gave_up = ""
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
