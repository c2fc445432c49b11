"""The one batch runner, for act() and the agent: the actions of one model reply, in order.

The model chose every action of a batch from one look at the page. They run one at a time,
each in its own trace group, as far as they hold: the batch stops at an action that may not
start, at one that failed, after the last, and when the page changed under the rest (what
counts as a change is the owner's to say). The owner of the batch (act's run, the agent's
step: :class:`AsyncHands`) runs and records each action, and is told what was not run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from playwright.async_api import Page as AsyncPage

from ..browser.tracing import AsyncTraceGroup

ActionT = TypeVar("ActionT")
ActionT_contra = TypeVar("ActionT_contra", contravariant=True)


class AsyncHands(Protocol[ActionT_contra]):
    """What the owner of a batch does with its actions."""

    @property
    def page(self) -> AsyncPage:
        """The page the next action starts on (its trace group is opened there)."""
        ...

    @property
    def redact(self) -> Callable[[str], str]:
        """Takes the variables' values out of a text (a group name, a note)."""
        ...

    def name(self, action: ActionT_contra) -> str:
        """The action's trace group name."""
        ...

    async def ready(self, position: int, action: ActionT_contra) -> bool:
        """Whether the action may start (False: the batch ends before it)."""
        ...

    async def run(self, position: int, action: ActionT_contra) -> bool:
        """Run and record the action; False when it failed (the batch ends)."""
        ...

    async def go_on(self, position: int, action: ActionT_contra) -> bool:
        """After an action that ran, with more to come: whether the rest still holds on
        the page the model saw (False: the batch ends)."""
        ...

    def stopped(self, actions: Sequence[ActionT_contra], error: BaseException | None) -> None:
        """The batch ended (``error``: what ended it, when something was raised)."""
        ...


async def run_batch(hands: AsyncHands[ActionT], actions: Sequence[ActionT]) -> None:
    """Run ``actions`` in order as far as they hold (see the module docstring)."""
    try:
        for position, action in enumerate(actions):
            if not await hands.ready(position, action):
                break
            async with AsyncTraceGroup(hands.page, hands.name(action), hands.redact):
                ran = await hands.run(position, action)
            if not ran or position + 1 == len(actions):
                break
            if not await hands.go_on(position, action):
                break
    except BaseException as error:
        hands.stopped(actions, error)
        raise
    hands.stopped(actions, None)
