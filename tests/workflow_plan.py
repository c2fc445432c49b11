"""A fake model for workflow tests: it writes the checklist, follows a plan per item reading
the state like a model would, and answers completion checks from the page it is shown.

``WorkflowPlan(checklist, steps={1: [...], 2: [...]}, done_when={1: "regex", ...})``: each
item's planned answers are used in order (a list of :class:`~tests.agent_plan.Do`, a raw dict,
or a function of the state text); when they run out the item answers ``done``. A completion
check passes when the page it is shown matches the item's ``done_when`` pattern. Hand it to
``AsyncFunctionLLM(structured=plan)``; the fake records every request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from stagehand_py.llm import Message
from tests.agent_plan import Do, answer, done, state_text

_CURRENT = re.compile(r'"id": "item-(\d+)"')
PlanStep = list[Do] | dict[str, Any] | Callable[[str], dict[str, Any]]


def current_item(messages: Sequence[Message]) -> int:
    """The item the request works on, from its task message (the step meta)."""
    for message in messages:
        found = _CURRENT.search(message.content)
        if found:
            return int(found.group(1))
    raise LookupError("no current step in the request")


def is_aria(state: str) -> bool:
    """The state lists the accessibility tree (no closing tags), not DOM lines."""
    lines = re.findall(r"^\d+:<.*$", state, re.MULTILINE)
    return bool(lines) and not any(re.search(r"</\w+>$", line) for line in lines)


class WorkflowPlan:
    def __init__(
        self,
        checklist: Sequence[str],
        steps: Mapping[int, Sequence[PlanStep]],
        done_when: Mapping[int, str],
        *,
        find_page: Sequence[int] = (),
        confidence: float | None = None,
        on_answer: Callable[[], None] | None = None,
    ) -> None:
        self.checklist = list(checklist)
        self.steps = {item: list(planned) for item, planned in steps.items()}
        self.done_when = dict(done_when)
        self.find_page = list(find_page)
        self.confidence = confidence
        self.on_answer = on_answer
        self.position: dict[int, int] = {}
        self.states: list[tuple[int, str]] = []  # (item, state text) of each step request
        self.tasks: list[str] = []  # the task message of each step request
        self.checks: list[tuple[int, bool]] = []

    def __call__(self, messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
        if schema.__name__ == "ChecklistAnswer":
            return {"checklist": self.checklist, "find_page": self.find_page}
        item = current_item(messages)
        if schema.__name__ == "CompletionCheck":
            page = messages[-1].content.split("The page now:", 1)[-1]
            ok = bool(re.search(self.done_when[item], page))
            self.checks.append((item, ok))
            return {"completed": ok, "reason": "the page shows it" if ok else "not on the page"}
        state = state_text(messages)
        self.states.append((item, state))
        self.tasks.append(next(m.content for m in messages if "Checklist (" in m.content))
        if self.on_answer is not None:
            self.on_answer()
        planned = self.steps.get(item, [])
        position = self.position.get(item, 0)
        self.position[item] = position + 1
        if position >= len(planned):
            return done(f"item {item} is done")
        step = planned[position]
        if isinstance(step, dict):
            return step
        if callable(step):
            return step(state)
        actions = [do.resolve(state) for do in step]
        if self.confidence is not None:
            for action in actions:
                action.update(confidence=self.confidence, confidence_reason="planned")
        return answer(*actions)
