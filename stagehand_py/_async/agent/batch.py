"""One step's actions, in order, stopping early when the page changed under them.

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
from ..browser.inspect import take_snapshot
from ..browser.tracing import AsyncTraceGroup
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


async def run_batch(
    context: AsyncActionContext, actions: Sequence[AgentAction], record: StepRecord
) -> None:
    """Run ``actions`` in order into ``record.results``; every action gets an outcome."""
    redact = context.variables.redact
    state = context.observation.state
    why_not_run = "the run was stopped"
    try:
        for position, action in enumerate(actions):
            await context.checkpoint()
            page_before, url_before = context.page, context.page.url
            navigations: list[str] = []

            def on_navigated(frame: Any, navigations: list[str] = navigations) -> None:
                if frame.parent_frame is None:
                    navigations.append(frame.url)

            page_before.on("framenavigated", on_navigated)
            index = getattr(action, "index", None)
            line = state.element_line(index) if isinstance(index, int) else None
            try:
                async with AsyncTraceGroup(page_before, describe_action(action, line), redact):
                    outcome = await run_action(context, action)
            finally:
                page_before.remove_listener("framenavigated", on_navigated)
            record.results.append(outcome)
            logger.info(
                "stagehand_py: agent step %d action %d/%d: %s",
                record.number,
                position + 1,
                len(actions),
                outcome.line(),
            )
            if not outcome.ok:
                why_not_run = "an earlier action failed"
                break
            if position + 1 == len(actions):
                break
            changed = await _changed(context, action.action, page_before, url_before, navigations)
            if changed:
                why_not_run = redact(changed)
                break
    except StepFailed as failed:  # the step's time ran out mid-batch
        why_not_run = redact(failed.message)
        raise
    except RunTimedOut:
        why_not_run = "the run's timeout_s ran out"
        raise
    finally:
        record.results.extend(
            not_run(action, why_not_run, state, redact) for action in actions[len(record.results) :]
        )


async def _changed(
    context: AsyncActionContext,
    action: str,
    page_before: AsyncPage,
    url_before: str,
    navigations: list[str],
) -> str | None:
    """Why the rest of the batch must not run on what the model saw, or None."""
    if not same_page(context.page, page_before):
        return "the action moved to another tab: look at it first"
    if action in _CHANGES_PAGE or navigations or context.page.url != url_before:
        return f"the page changed to {context.page.url}: look at it first"
    fresh = await take_snapshot(context.page, mode=context.observation.mode)
    appeared = new_elements(context.observation.snapshot, fresh)
    if appeared:
        return f"{appeared} new element(s) appeared: look at them first"
    return None
