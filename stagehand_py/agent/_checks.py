"""Checks of a valid-looking answer against the state it answers: the parts a JSON schema
cannot know (which element numbers are shown, which tabs exist, which variables are defined,
where navigation may go). Each problem goes back to the model as a re-ask."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .._snapshot import Element, Snapshot
from .._variables import Variables
from ._actions import (
    AgentOutput,
    CloseTabAction,
    NavigateAction,
    SwitchTabAction,
)
from ._navigation import navigation_problem
from ._state import AgentState

_TEXT_FIELDS = ("text", "url", "key", "option", "instruction")


def answer_problems(
    output: AgentOutput,
    state: AgentState,
    *,
    variables: Variables,
    allowed_domains: Sequence[str] | None,
) -> list[str]:
    """What is wrong with ``output`` for ``state``; empty when every action can run."""
    problems: list[str] = []
    tabs = {tab.id for tab in state.tabs}
    for number, action in enumerate(output.actions, 1):
        where = f"action {number} ({action.action})"
        index = getattr(action, "index", None)
        if isinstance(index, int) and index not in state.elements:
            shown = _ranges(sorted(state.elements))
            problems.append(
                f"{where}: element {index} is not in the current state "
                f"(elements shown: {shown or 'none'}); scroll first if it is out of view"
            )
        if isinstance(action, (SwitchTabAction, CloseTabAction)) and action.tab not in tabs:
            problems.append(
                f"{where}: there is no tab {action.tab} (open tabs: "
                f"{', '.join(str(t) for t in sorted(tabs))})"
            )
        if isinstance(action, NavigateAction):
            problem = navigation_problem(action.url, allowed_domains)
            if problem is not None:
                problems.append(f"{where}: cannot open {action.url}: {problem}")
        for name in _TEXT_FIELDS:
            value = getattr(action, name, None)
            if isinstance(value, str):
                unknown = variables.unknown_placeholders(value)
                if unknown:
                    known = ", ".join(variables.placeholders) or "none"
                    problems.append(
                        f"{where}: unknown variable(s) {', '.join(unknown)} (available: {known})"
                    )
    return problems


def _ranges(numbers: list[int]) -> str:
    """``0-4, 7, 9-12`` for a sorted list of numbers."""
    parts: list[str] = []
    start = previous = None
    for n in numbers:
        if start is None:
            start = previous = n
        elif previous is not None and n == previous + 1:
            previous = n
        else:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
            start = previous = n
    if start is not None:
        parts.append(str(start) if start == previous else f"{start}-{previous}")
    return ", ".join(parts)


# Attributes that change when a field is used (filled, ticked, opened): an element whose
# only difference is one of these is the same element, not a new one.
_VOLATILE = frozenset(
    {
        "value",
        "checked",
        "selected",
        "class",
        "style",
        "aria-expanded",
        "aria-selected",
        "aria-checked",
        "aria-pressed",
    }
)


def _signature(element: Element) -> tuple[object, ...]:
    attributes = tuple(sorted((k, v) for k, v in element.attributes.items() if k not in _VOLATILE))
    label = element.name or (element.text if element.tag not in ("input", "textarea") else "")
    return (element.tag, element.role, label[:60], attributes, tuple(element.frame))


def new_elements(before: Snapshot, after: Snapshot) -> int:
    """How many interactive elements ``after`` has that ``before`` had not (a dropdown that
    opened, suggestions that appeared): the model has not seen them, so the batch stops."""
    seen = Counter(_signature(e) for e in before.elements if e.interactive)
    appeared = 0
    for element in after.elements:
        if not element.interactive:
            continue
        signature = _signature(element)
        if seen[signature] > 0:
            seen[signature] -= 1
        else:
            appeared += 1
    return appeared
