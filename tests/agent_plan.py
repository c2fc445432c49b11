"""A fake model for agent tests that follows a plan, reading the state like a model would.

Each planned answer is a list of :class:`Do` actions; an element action names the element by a
regular expression searched in the lines of the state it is shown (``N:<tag ...>text</tag>``),
so element numbers come from the serializer, never from the test. A planned answer may also be
a raw dict (to send something invalid) or a function of the state text. Hand the plan to the
shipped fakes: ``AsyncFunctionLLM(structured=plan)`` / ``FunctionLLM(structured=plan)``; they
record every request (``.requests``, with its ``options``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from stagehand_py.llm import Message

_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)
STATE_MARK = "Elements in view:"


def find_element(state: str, pattern: str) -> int | None:
    """The number of the first element line of ``state`` matching ``pattern``."""
    for match in _LINE.finditer(state.split(STATE_MARK, 1)[-1]):
        if re.search(pattern, match.group(2)):
            return int(match.group(1))
    return None


def state_text(messages: list[Message]) -> str:
    """The newest state message of a request."""
    return next((m.content for m in reversed(messages) if STATE_MARK in m.content), "")


class Do:
    """One planned action; ``element`` is a pattern for its element line."""

    def __init__(self, action: str, element: str | None = None, **params: Any) -> None:
        self.action = action
        self.element = element
        self.params = params

    def resolve(self, state: str) -> dict[str, Any]:
        answer: dict[str, Any] = {"action": self.action, **self.params}
        if self.element is not None:
            index = find_element(state, self.element)
            if index is None:
                raise LookupError(f"no element matches {self.element!r} in:\n{state}")
            answer["index"] = index
        return answer


def answer(
    *actions: dict[str, Any], goal: str = "follow the plan", memory: str = ""
) -> dict[str, Any]:
    return {
        "thinking": "following the plan",
        "evaluation_previous_goal": "as planned",
        "memory": memory,
        "next_goal": goal,
        "actions": list(actions),
    }


def done(text: str = "finished", *, success: bool = True, data: Any = None) -> dict[str, Any]:
    action: dict[str, Any] = {"action": "done", "success": success, "text": text}
    if data is not None:
        action["data"] = data
    return answer(action, goal="finish")


PlanItem = list[Do] | dict[str, Any] | Callable[[str], dict[str, Any]]


class AgentPlan:
    """Answers agent requests in order from ``items``; the forced summary gets ``summary``.
    ``memory`` is what each planned answer writes in its memory field; ``extract`` answers the
    requests of extract actions, from the page text they were sent."""

    def __init__(
        self,
        *items: PlanItem,
        summary: str = "Summary: the plan ran out.",
        memory: str = "",
        extract: Callable[[str], Any] | None = None,
    ) -> None:
        self.items = list(items)
        self.memory = memory
        self.extract = extract
        self.position = 0
        self.summary = summary
        self.states: list[str] = []
        self.summaries = 0

    def __call__(self, messages: list[Message], schema: type[BaseModel]) -> dict[str, Any]:
        state = state_text(messages)
        if schema.__name__ == "FinalSummary":
            self.summaries += 1
            return {"thinking": "asked to stop", "text": self.summary, "data": {"steps": True}}
        if schema.__name__ != "AgentOutput":  # an extract action's request
            if self.extract is None:
                raise LookupError(f"the plan has no extract answers ({schema.__name__})")
            page_text = "\n".join(m.content for m in messages)
            return {"data": self.extract(page_text), "complete": True}
        self.states.append(state)
        if self.position >= len(self.items):
            return done("the plan has no more steps", success=False)
        item = self.items[self.position]
        self.position += 1
        if isinstance(item, dict):
            return item
        if callable(item):
            return item(state)
        try:
            return answer(*(do.resolve(state) for do in item), memory=self.memory)
        except LookupError as missing:
            return done(f"plan step {self.position} failed: {missing}", success=False)
