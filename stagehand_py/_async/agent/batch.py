"""One step's actions, in order, through act()'s batch runner, stopping early when the page
changed under them.

The model chose every action of a batch from one state. After each action but the last, the
batch goes on only if that state still holds: same tab, no navigation, no new interactive
element (a fresh snapshot from the same serializer says so). Otherwise the rest is recorded as
not run, with why, and the next step looks again. A failed action also ends the batch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from playwright.async_api import Page as AsyncPage

from ...agent._actions import AgentAction, action_confidence, action_params, describe_action
from ...agent._checks import new_elements
from ...agent._clock import RunTimedOut, StepFailed
from ...agent._history import ActionOutcome, StepRecord, redacted
from ...agent._state import AgentState
from ..act.batch import run_batch
from ..browser.inspect import take_snapshot
from .actions import AsyncActionContext, run_action
from .observe import same_page

logger = logging.getLogger("stagehand_py")

# Actions after which the state the model saw is gone whatever the page looks like.
_CHANGES_PAGE = frozenset({"navigate", "go_back", "switch_tab", "close_tab"})


def not_run(
    action: AgentAction, note: str, state: AgentState, redact: Callable[[str], str]
) -> ActionOutcome:
    """The record of an action that was proposed but not run, and why."""
    index = getattr(action, "index", None)
    line = state.element_line(index) if isinstance(index, int) else None
    return ActionOutcome(
        action=action.action,
        params=redacted(action_params(action), redact),
        description=redact(describe_action(action, line)),
        confidence=action_confidence(action),
        status="not_run",
        note=note,
    )


async def run_actions(
    context: AsyncActionContext, actions: Sequence[AgentAction], record: StepRecord
) -> None:
    """Run ``actions`` in order into ``record.results``; every action gets an outcome."""
    await run_batch(_AgentHands(context, record, len(actions)), actions)


class _AgentHands:
    """The agent's side of the batch runner (see :class:`~..act.batch.AsyncHands`)."""

    def __init__(self, context: AsyncActionContext, record: StepRecord, total: int) -> None:
        self.context = context
        self.redact = context.variables.redact
        self.record = record
        self.total = total
        self.why_not_run = "the run was stopped"
        # Where the action running now started, and the navigations it caused.
        self._page_before = context.page
        self._url_before = context.page.url
        self._navigations: list[str] = []

    @property
    def page(self) -> AsyncPage:
        return self.context.page

    def name(self, action: AgentAction) -> str:
        index = getattr(action, "index", None)
        state = self.context.observation.state
        line = state.element_line(index) if isinstance(index, int) else None
        return describe_action(action, line)

    async def ready(self, position: int, action: AgentAction) -> bool:
        await self.context.checkpoint()
        return True

    async def run(self, position: int, action: AgentAction) -> bool:
        page_before = self._page_before = self.context.page
        self._url_before = page_before.url
        navigations: list[str] = []
        self._navigations = navigations

        def on_navigated(frame: Any) -> None:
            if frame.parent_frame is None:
                navigations.append(frame.url)

        page_before.on("framenavigated", on_navigated)
        try:
            outcome = await run_action(self.context, action)
        finally:
            page_before.remove_listener("framenavigated", on_navigated)
        self.record.results.append(outcome)
        logger.info(
            "stagehand_py: agent step %d action %d/%d: %s",
            self.record.number,
            position + 1,
            self.total,
            outcome.line(),
        )
        if not outcome.ok:
            self.why_not_run = "an earlier action failed"
        return outcome.ok

    async def go_on(self, position: int, action: AgentAction) -> bool:
        changed = await self._changed(action.action)
        if changed:
            self.why_not_run = self.redact(changed)
        return not changed

    def stopped(self, actions: Sequence[AgentAction], error: BaseException | None) -> None:
        if isinstance(error, StepFailed):  # the step's time ran out mid-batch
            self.why_not_run = self.redact(error.message)
        elif isinstance(error, RunTimedOut):
            self.why_not_run = "the run's timeout_s ran out"
        state = self.context.observation.state
        self.record.results.extend(
            not_run(action, self.why_not_run, state, self.redact)
            for action in actions[len(self.record.results) :]
        )

    async def _changed(self, action: str) -> str | None:
        """Why the rest of the batch must not run on what the model saw, or None."""
        context = self.context
        if not same_page(context.page, self._page_before):
            return "the action moved to another tab: look at it first"
        if action in _CHANGES_PAGE or self._navigations or context.page.url != self._url_before:
            return f"the page changed to {context.page.url}: look at it first"
        fresh = await take_snapshot(context.page, mode=context.observation.mode)
        appeared = new_elements(context.observation.snapshot, fresh)
        if appeared:
            return f"{appeared} new element(s) appeared: look at them first"
        return None
