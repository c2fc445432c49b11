"""Reading tool calls out of what a model sent: argument text, and tool calls written as text.

Pure parsing, shared by the provider clients. Small local models behind OpenAI-compatible
servers often answer with the call as JSON in the message text (sometimes in a code fence or
a ``<tool_call>`` tag) instead of a real tool call; :func:`tool_calls_from_text` recovers it.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

from ._messages import ToolCall, ToolSpec

_text_call_ids = itertools.count(1)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


def parse_arguments(raw: object) -> tuple[dict[str, Any], str | None]:
    """Arguments as a dict, plus an error when they are not a JSON object (dict stays empty)."""
    if isinstance(raw, dict):
        return dict(raw), None
    if not isinstance(raw, str):
        return {}, f"expected a JSON object, got {type(raw).__name__}"
    if not raw.strip():
        return {}, None  # no arguments at all: an empty object
    try:
        # strict=False: grammar-held local models write raw newlines inside strings.
        value = json.loads(raw, strict=False)
    except json.JSONDecodeError as error:
        return {}, f"invalid JSON: {error.msg} at position {error.pos}"
    except ValueError:  # an integer of more digits than Python converts (4,300 by default)
        return {}, "invalid JSON: a number too long to read"
    if not isinstance(value, dict):
        return {}, f"expected a JSON object, got {type(value).__name__}"
    return value, None


def tool_call_from_wire(call_id: str, name: str, raw: object) -> ToolCall:
    """A ToolCall from the id, name and argument payload (text or object) a provider sent."""
    arguments, error = parse_arguments(raw)
    raw_text = raw if isinstance(raw, str) else json.dumps(raw, default=str)
    return ToolCall(
        id=call_id, name=name, arguments=arguments, raw_arguments=raw_text, arguments_error=error
    )


def tool_calls_from_text(text: str, tools: Sequence[ToolSpec]) -> list[ToolCall]:
    """Tool calls written as JSON text, for tools in ``tools`` only; [] when there are none.

    Accepted: ``{"name": ..., "arguments": {...}}`` (also ``parameters``/``args``/``input``,
    and OpenAI's ``{"function": {"name", "arguments"}}`` nesting), a list of those, or
    ``{"tool_calls": [...]}``; bare, in a code fence, or in ``<tool_call>`` tags.
    """
    names = {tool.name for tool in tools}
    calls: list[ToolCall] = []
    for candidate in json_values(text):
        for item in _call_objects(candidate):
            call = _as_call(item, names)
            if call is not None:
                calls.append(call)
        if calls:
            return calls
    return calls


def json_values(text: str) -> list[Any]:
    """The JSON values found in ``text``, best candidates first: in ``<tool_call>`` tags, in
    code fences, the whole text, then the span from the first ``{`` to the last ``}``."""
    pieces = [m.group(1) for m in _TAGGED.finditer(text)]
    pieces += [m.group(1) for m in _FENCE.finditer(text)]
    pieces.append(text)
    start = text.find("{")
    if start > 0:
        pieces.append(text[start : text.rfind("}") + 1])  # JSON after some prose
    values: list[Any] = []
    for piece in pieces:
        try:
            values.append(json.loads(piece.strip(), strict=False))
        except (json.JSONDecodeError, ValueError):
            continue
    return values


def _call_objects(value: Any) -> list[Any]:
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        return list(value["tool_calls"])
    if isinstance(value, list):
        return value
    return [value]


def _as_call(item: Any, names: set[str]) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("function"), dict):  # OpenAI's own nesting, written as text
        item = item["function"]
    name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
    if name not in names:
        return None
    raw: object = next((item[k] for k in _ARGUMENT_KEYS if k in item), {})
    return tool_call_from_wire(f"call_text_{next(_text_call_ids)}", str(name), raw)
