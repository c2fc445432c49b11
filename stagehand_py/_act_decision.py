"""Turn the model's reply in an act turn into decisions, or errors to feed back.

Pure: no browser, no I/O. The model's reply is untrusted: only allow-listed methods with
the right number of string arguments on an element it was shown get through. A reply may
hold several tool calls (a batch); :func:`decide_all` reads each one, in order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .llm._messages import ChatResponse, ToolCall
from .prompts.act import (
    ALLOWED_METHODS,
    CONFIDENCE_RANGE,
    DO_ACTION,
    SCROLL_DIRECTIONS,
    SKIP_SECTION,
    TARGET_NOT_FOUND,
)

# ASCII digits only: str.isdigit() also accepts "²" and "①", which int() refuses.
_ELEMENT_NUMBER = re.compile(r"^\s*([0-9]{1,9})\s*$")
_PERCENT = re.compile(r"^\s*([0-9]{1,3}(?:\.[0-9]+)?)\s*%\s*$")
# A file for set_input_files: one variable placeholder and nothing else.
_ONLY_PLACEHOLDER = re.compile(r"^\s*(?:<\|[A-Za-z_][A-Za-z0-9_]*\|>|%[A-Za-z_][A-Za-z0-9_]*%)\s*$")
# Why a disabled element is refused, and the methods it still takes: a wheel scrolls a
# disabled textarea (a terms box whose end enables the form), and scrolling changes nothing
# but the scroll position.
DISABLED_REASON = "is disabled"
METHODS_ON_DISABLED = frozenset({"scroll"})


@dataclass(frozen=True)
class DoAction:
    method: str
    element: int
    args: list[str]
    step: str
    why: str
    completed: bool
    call: ToolCall
    confidence: float | None = None
    target: int | None = None  # drag_to: the element to drop on


@dataclass(frozen=True)
class SkipSection:
    reason: str
    call: ToolCall


@dataclass(frozen=True)
class TargetNotFound:
    """The model says the page does not have what the goal needs (it did not guess)."""

    reason: str
    call: ToolCall


@dataclass(frozen=True)
class InvalidReply:
    """Why the reply cannot be used; ``call`` is None when the model called no tool."""

    error: str
    call: ToolCall | None = None
    text: str = ""
    details: dict[str, str] = field(default_factory=dict)
    # The model's confidence in the action it tried, when it gave one.
    confidence: float | None = None


Decision = DoAction | SkipSection | TargetNotFound | InvalidReply


def _as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    return None


def element_number(value: object) -> int | None:
    """An element number the model wrote: an int, an integral float, or ASCII digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and value >= 0 else None
    if isinstance(value, str) and (match := _ELEMENT_NUMBER.match(value)):
        return int(match.group(1))
    return None


def scroll_percent(value: str) -> float | None:
    """The position of a scroll argument like ``"50%"`` (0-100), or None."""
    match = _PERCENT.match(value)
    if match is None:
        return None
    percent = float(match.group(1))
    return percent if percent <= 100 else None


def confidence_of(value: object) -> float | str | None:
    """The model's confidence as a float, None when absent, or an error message."""
    if value is None:
        return None
    number: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    low, high = CONFIDENCE_RANGE
    if number is None or not math.isfinite(number) or not low <= number <= high:
        return f"'confidence' must be a number from {low:.2f} to {high:.2f}, got {value!r}."
    return number


def decide(response: ChatResponse, shown_elements: Collection[int]) -> Decision:
    """Interpret the first tool call of ``response``."""
    return decide_all(response, shown_elements)[0]


def decide_all(
    response: ChatResponse,
    shown_elements: Collection[int],
    refused: Mapping[int, str] | None = None,
) -> list[Decision]:
    """One decision per tool call, in the order the model made them (never empty).

    ``refused``: elements shown but not offered, with the reason told to the model."""
    if not response.tool_calls:
        return [
            InvalidReply(
                "You called no tool. Call doAction for the next action, skipSection if "
                "nothing shown helps, or targetNotFound if the page cannot reach the goal.",
                text=response.text,
            )
        ]
    return [decide_call(call, shown_elements, refused) for call in response.tool_calls]


def decide_call(
    call: ToolCall, shown_elements: Collection[int], refused: Mapping[int, str] | None = None
) -> Decision:
    """Interpret one tool call."""
    if call.arguments_error is not None:
        return InvalidReply(
            f"The arguments of {call.name} are not a valid JSON object ({call.arguments_error}). "
            "Call the tool again with a JSON object.",
            call,
        )
    if call.name == SKIP_SECTION.name:
        return SkipSection(str(call.arguments.get("reason", "")), call)
    if call.name == TARGET_NOT_FOUND.name:
        return TargetNotFound(str(call.arguments.get("reason", "")), call)
    if call.name != DO_ACTION.name:
        return InvalidReply(
            f"Unknown tool {call.name!r}. The only tools are doAction, skipSection and "
            "targetNotFound.",
            call,
        )
    return _decide_action(call, shown_elements, refused or {})


def _decide_action(
    call: ToolCall, shown_elements: Collection[int], refused: Mapping[int, str]
) -> Decision:
    a = call.arguments
    confidence = confidence_of(a.get("confidence"))
    if isinstance(confidence, str):
        return InvalidReply(confidence, call)

    def invalid(error: str) -> InvalidReply:
        return InvalidReply(error, call, confidence=confidence)

    method = a.get("method")
    if not isinstance(method, str) or method not in ALLOWED_METHODS:
        return invalid(
            f"Method {method!r} is not allowed. Use one of: {', '.join(ALLOWED_METHODS)}."
        )
    raw_element = a.get("element")
    element = element_number(raw_element)
    if element is None:
        return invalid(
            f"'element' must be an element number written with the digits 0-9 (as before the "
            f"colon, e.g. 12), got {raw_element!r}."
        )
    scroll_disabled = method in METHODS_ON_DISABLED and refused.get(element) == DISABLED_REASON
    if element in refused and not scroll_disabled:
        only = " except by scroll" if refused[element] == DISABLED_REASON else ""
        return invalid(
            f"Element {element} {refused[element]}, so it cannot be acted on{only}. Choose "
            "another element, call skipSection, or targetNotFound if only that element would do."
        )
    if element not in shown_elements and not scroll_disabled:
        return invalid(
            f"Element {element} is not in the part of the page shown. Choose one of the numbers "
            "shown, or call skipSection."
        )
    raw_args = a.get("args", [])
    if raw_args is None:
        raw_args = []
    if isinstance(raw_args, (str, int)) and not isinstance(raw_args, bool):
        raw_args = [raw_args]
    if not isinstance(raw_args, list) or not all(
        isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in raw_args
    ):
        return invalid("'args' must be a list of strings.")
    args = [str(x) for x in raw_args]
    low, high = ALLOWED_METHODS[method]
    if not low <= len(args) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        return invalid(f"{method} takes {want} argument(s), got {len(args)}.")
    target: int | None = None
    problem = argument_problem(method, args, element, shown_elements)
    if problem:
        return invalid(problem)
    if method == "drag_to":
        target = element_number(args[0])
    completed = _as_bool(a.get("completed", False))
    if completed is None:
        return invalid("'completed' must be true or false.")
    return DoAction(
        method=method,
        element=element,
        args=args,
        step=str(a.get("step", "")),
        why=str(a.get("why", "")),
        completed=completed,
        call=call,
        confidence=confidence,
        target=target,
    )


def argument_problem(
    method: str, args: list[str], element: int, shown_elements: Collection[int]
) -> str:
    """What is wrong with the arguments of a method that takes special ones ("" if fine):
    a scroll position, a drop target shown, files only as placeholders. observe() applies
    the same rule to what its model suggests."""
    if method == "scroll" and args[0] not in SCROLL_DIRECTIONS and scroll_percent(args[0]) is None:
        return (
            f"scroll takes one of {', '.join(SCROLL_DIRECTIONS)} or a position from 0% to "
            f"100%, got {args[0]!r}."
        )
    if method == "drag_to":
        target = element_number(args[0])
        if target is None or target not in shown_elements:
            return (
                "drag_to takes the number of the element to drop on, one of the numbers shown, "
                f"got {args[0]!r}."
            )
        if target == element:
            return "drag_to needs a different element to drop on than the one dragged."
    if method == "set_input_files":
        literal = [arg for arg in args if not _ONLY_PLACEHOLDER.match(arg)]
        if literal:
            return (
                "set_input_files takes files only as variable placeholders (e.g. <|RESUME|>), "
                "one per argument; a path written out is refused. Use a variable listed as "
                "available, or skipSection if none is a file."
            )
    return ""
