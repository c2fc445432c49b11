"""A structured answer out of a reply, and the re-ask when it does not validate. Pure.

The answer may come as a call of the schema's tool, or as JSON in the text (the plain-JSON
rungs of the ladder, and servers that ignore tools), bare or wrapped as a call written out.
A re-ask shows the model its answer and the validation error, in the wording instructor uses;
an answer that came as a call is answered with a tool result, one that came as text with a
user message (the OpenAI wire adds a user message for tool results too, for local servers).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from ._error_text import summarize
from ._messages import Message, ToolCall
from ._reply import Reply
from ._tool_arguments import json_values

REASK_HINT = "Recall the function correctly, fix the errors"  # instructor's wording


def answer_of(reply: Reply, name: str) -> tuple[ToolCall | None, Any, str | None]:
    """``(call, value, problem)``: the call the answer came in (None for text), the value to
    validate, or what is wrong with the reply when it holds no value."""
    calls = sorted(reply.tool_calls, key=lambda c: c.name != name)  # the schema's tool first
    if calls:
        call = calls[0]
        if call.arguments_error is not None:
            problem = (
                f"The arguments of {name} are not a valid JSON object ({call.arguments_error})."
            )
            return call, None, problem
        return call, call.arguments, None
    for value in json_values(reply.text):
        if isinstance(value, dict):
            arguments = value.get("arguments")
            if value.get("name") == name and isinstance(arguments, dict):
                return None, arguments, None  # a call written out as text
            return None, value, None
    if reply.text.strip():
        return None, None, f"Your reply holds no JSON object. Answer with the {name} object only."
    return None, None, f"Your reply was empty. Answer with the {name} object."


def has_answer(reply: Reply, name: str) -> bool:
    """Whether the reply holds something to validate: False for prose with no JSON in it, or
    an empty answer, the signs of a server that ignored the format. A reply with an odd shape
    (``message: null``) counts as an answer: the re-ask deals with it."""
    call, value, _ = answer_of(reply, name)
    return call is not None or value is not None or bool(reply.problem)


def validation_problem(error: ValidationError) -> str:
    """What the model is told when its answer does not validate."""
    return f"Validation Error found:\n{error}\n{REASK_HINT}"


def first_error(error: ValidationError) -> str:
    """The first validation error on one line, and how many there are."""
    problems = error.errors()
    first = problems[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top level)"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return summarize(f"{where}: {first['msg']}{more}")


def reask_messages(reply: Reply, call: ToolCall | None, problem: str) -> list[Message]:
    """The turns a re-ask adds: the model's answer, then what was wrong with it."""
    if call is not None and not reply.calls_from_text:
        return [
            Message(role="assistant", content=reply.text, tool_calls=[call]),
            Message(role="tool", tool_call_id=call.id, content=problem, is_error=True),
        ]
    return [
        Message(role="assistant", content=reply.text),
        Message(role="user", content=problem),
    ]


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of a pydantic model, as sent to the model."""
    return model.model_json_schema()
