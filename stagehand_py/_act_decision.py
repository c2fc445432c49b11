"""Turn the model's reply in an act turn into a decision, or an error to feed back.

Pure: no browser, no I/O. The model's reply is untrusted: only allow-listed methods with
the right number of string arguments on an element it was shown get through.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from .llm._messages import ChatResponse, ToolCall
from .prompts.act import ALLOWED_METHODS, DO_ACTION, SCROLL_DIRECTIONS, SKIP_SECTION


@dataclass(frozen=True)
class DoAction:
    method: str
    element: int
    args: list[str]
    step: str
    why: str
    completed: bool
    call: ToolCall


@dataclass(frozen=True)
class SkipSection:
    reason: str
    call: ToolCall


@dataclass(frozen=True)
class InvalidReply:
    """Why the reply cannot be used; ``call`` is None when the model called no tool."""

    error: str
    call: ToolCall | None = None
    text: str = ""
    details: dict[str, str] = field(default_factory=dict)


Decision = DoAction | SkipSection | InvalidReply


def _as_bool(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "false"}:
        return value.strip().lower() == "true"
    return None


def decide(response: ChatResponse, shown_elements: Collection[int]) -> Decision:
    """Interpret the first tool call of ``response``."""
    if not response.tool_calls:
        return InvalidReply(
            "You called no tool. Call doAction for the next action, or skipSection if "
            "nothing in this section helps.",
            text=response.text,
        )
    call = response.tool_calls[0]
    if call.arguments_error is not None:
        return InvalidReply(
            f"The arguments of {call.name} are not a valid JSON object ({call.arguments_error}). "
            "Call the tool again with a JSON object.",
            call,
        )
    if call.name == SKIP_SECTION.name:
        return SkipSection(str(call.arguments.get("reason", "")), call)
    if call.name != DO_ACTION.name:
        return InvalidReply(
            f"Unknown tool {call.name!r}. The only tools are doAction and skipSection.", call
        )
    return _decide_action(call, shown_elements)


def _decide_action(call: ToolCall, shown_elements: Collection[int]) -> Decision:
    a = call.arguments
    method = a.get("method")
    if not isinstance(method, str) or method not in ALLOWED_METHODS:
        return InvalidReply(
            f"Method {method!r} is not allowed. Use one of: {', '.join(ALLOWED_METHODS)}.", call
        )
    element = a.get("element")
    if isinstance(element, str) and element.strip().isdigit():
        element = int(element.strip())
    if isinstance(element, bool) or not isinstance(element, int):
        return InvalidReply(f"'element' must be an element number, got {element!r}.", call)
    if element not in shown_elements:
        return InvalidReply(
            f"Element {element} is not in this section. Choose one of the numbers shown, "
            "or call skipSection.",
            call,
        )
    raw_args = a.get("args", [])
    if raw_args is None:
        raw_args = []
    if isinstance(raw_args, str):
        raw_args = [raw_args]
    if not isinstance(raw_args, list) or not all(
        isinstance(x, (str, int, float)) and not isinstance(x, bool) for x in raw_args
    ):
        return InvalidReply("'args' must be a list of strings.", call)
    args = [str(x) for x in raw_args]
    low, high = ALLOWED_METHODS[method]
    if not low <= len(args) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        return InvalidReply(f"{method} takes {want} argument(s), got {len(args)}.", call)
    if method == "scroll" and args[0] not in SCROLL_DIRECTIONS:
        return InvalidReply(
            f"scroll takes one of {', '.join(SCROLL_DIRECTIONS)}, got {args[0]!r}.", call
        )
    completed = _as_bool(a.get("completed", False))
    if completed is None:
        return InvalidReply("'completed' must be true or false.", call)
    return DoAction(
        method=method,
        element=element,
        args=args,
        step=str(a.get("step", "")),
        why=str(a.get("why", "")),
        completed=completed,
        call=call,
    )
