"""The parts of the shipped fake LLMs that are neither async nor sync.

Kept out of ``_async/llm/testing.py`` so the async and the generated sync fakes share one
``RecordedRequest`` class and one set of tool-call builders; :mod:`stagehand_py.testing` is
their public face. The fakes answer act, observe and agent prompts, so this module sits above
``prompts/`` (the provider-neutral ``llm/`` stays below it).
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeAlias, TypeVar

from pydantic import BaseModel, Field, ValidationError

from ._errors import LLMError, StructuredOutputError
from ._usage import Usage, estimate_tokens
from .llm._messages import ChatResponse, Message, RequestOptions, ToolCall, ToolSpec
from .prompts.act import DO_ACTION, SKIP_SECTION, VerifyAnswer
from .prompts.check import CheckAnswer, ProposedAssertion
from .prompts.observe import ObserveAnswer, ObservedElement

T = TypeVar("T", bound=BaseModel)

# What a scripted fake may be given: chat answers (tool calls, a full response, plain text),
# structured answers (a model instance or a dict to validate), or an exception to raise.
ChatAnswer: TypeAlias = "ChatResponse | ToolCall | list[ToolCall] | str"
StructuredAnswer: TypeAlias = "BaseModel | dict[str, Any]"
ScriptItem: TypeAlias = "ChatAnswer | StructuredAnswer | Exception"

_call_ids = itertools.count(1)
_REASK_HINT = "Recall the function correctly, fix the errors"  # instructor's wording


class RecordedRequest(BaseModel):
    """One request a fake received, as sent (re-asks are separate requests)."""

    kind: Literal["chat", "structured"]
    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    schema_name: str | None = None
    tool_choice: str | None = None
    options: RequestOptions = Field(default_factory=RequestOptions)

    def text(self) -> str:
        """All message contents joined by newlines: handy for asserting on prompts."""
        return "\n".join(m.content for m in self.messages)

    def last_user_message(self) -> str:
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")


def tool_call(name: str, /, **arguments: Any) -> ToolCall:
    """A tool call named ``name`` with these arguments (the id is generated)."""
    return ToolCall(
        id=f"call_fake_{next(_call_ids)}",
        name=name,
        arguments=arguments,
        raw_arguments=json.dumps(arguments),
    )


def do_action(
    method: str,
    element: int,
    args: Sequence[str] = (),
    *,
    step: str = "",
    why: str = "",
    completed: bool = False,
) -> ToolCall:
    """The ``doAction`` call act() expects: ``method`` on element number ``element``."""
    return tool_call(
        DO_ACTION.name,
        method=method,
        element=element,
        args=list(args),
        step=step,
        why=why,
        completed=completed,
    )


def skip_section(reason: str = "not here") -> ToolCall:
    """The ``skipSection`` call: the element is not in the section shown."""
    return tool_call(SKIP_SECTION.name, reason=reason)


def verify_answer(completed: bool = True, reason: str = "") -> VerifyAnswer:
    """The answer to act()'s ``verify_act_completion`` request: is the goal reached?"""
    return VerifyAnswer(completed=completed, reason=reason)


def observed(
    element: int, description: str = "", method: str = "click", arguments: Sequence[str] = ()
) -> ObservedElement:
    """One element of an :func:`observe_answer`: its number, description, method, arguments."""
    return ObservedElement(
        element=element, description=description, method=method, arguments=list(arguments)
    )


def observe_answer(*elements: ObservedElement | int) -> ObserveAnswer:
    """The answer to an observe() request: the elements found, best first (numbers, or
    :func:`observed` for a description, method and arguments). No elements: nothing found."""
    found = [observed(item) if isinstance(item, int) else item for item in elements]
    return ObserveAnswer(elements=found)


def expectation(
    kind: str, element: int | None = None, value: str | int | None = None
) -> ProposedAssertion:
    """One assertion of a :func:`check_answer`: a Playwright ``expect`` method (``kind``,
    e.g. ``"to_have_text"``), the element number it is about (None: the page), and the
    expected text or count (None for a state such as ``"to_be_checked"``)."""
    return ProposedAssertion(element=element, kind=kind, expected=value)


def check_answer(
    holds: bool = True,
    *assertions: ProposedAssertion,
    reason: str = "",
    evidence: Sequence[int] = (),
    why_not: str | None = None,
    found: bool = True,
) -> CheckAnswer:
    """The answer to a check() request: whether the statement ``holds``, the assertions that
    compile it (:func:`expectation`), the ``reason`` and the ``evidence`` (element numbers; by
    default those the assertions name). ``why_not`` says it cannot be compiled (no
    assertions); ``found=False``: what it is about is not in the part of the page shown."""
    cited = list(evidence) or [a.element for a in assertions if a.element is not None]
    return CheckAnswer(
        holds=holds,
        found=found,
        reason=reason,
        evidence=cited,
        assertions=list(assertions),
        compilable=why_not is None,
        why_not=why_not,
    )


def extract_answer(data: Mapping[str, Any] | BaseModel, *, complete: bool = True) -> dict[str, Any]:
    """The answer to one extract() request: ``data`` in the shape of your schema (a dict or an
    instance of it) and whether everything asked for was found (``complete``)."""
    value = data.model_dump(mode="json") if isinstance(data, BaseModel) else dict(data)
    return {"data": value, "complete": complete}


def agent_output(
    *actions: Mapping[str, Any],
    thinking: str = "",
    evaluation_previous_goal: str = "",
    memory: str = "",
    next_goal: str = "",
) -> dict[str, Any]:
    """One step of the agent's answer: ``{thinking, evaluation_previous_goal, memory,
    next_goal, actions}`` as the agent's output model reads it. Each action is a plain dict
    in the agent's action format (passed through as given), e.g. ``{"click": {"element": 3}}``
    or ``{"done": {"success": True, "text": "..."}}``."""
    return {
        "thinking": thinking,
        "evaluation_previous_goal": evaluation_previous_goal,
        "memory": memory,
        "next_goal": next_goal,
        "actions": [dict(action) for action in actions],
    }


def estimated_usage(messages: Sequence[Message], answer_text: str, wall_time_s: float) -> Usage:
    prompt = "\n".join(m.content for m in messages)
    return Usage(
        requests=1,
        prompt_tokens=estimate_tokens(prompt),
        completion_tokens=estimate_tokens(answer_text),
        wall_time_s=wall_time_s,
    )


def trimmed(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def as_chat_response(answer: object, source: str) -> ChatResponse:
    """Turn a chat answer (tool call(s), a response or plain text) into a ChatResponse."""
    if isinstance(answer, ChatResponse):
        return answer.model_copy()
    if isinstance(answer, ToolCall):
        return ChatResponse(tool_calls=[answer])
    if isinstance(answer, list) and all(isinstance(c, ToolCall) for c in answer):
        return ChatResponse(tool_calls=list(answer))
    if isinstance(answer, str):
        return ChatResponse(text=answer)
    raise LLMError(
        f"{source} answered a chat request with a {type(answer).__name__}, which is a "
        f"structured answer: give chat requests a ToolCall, a list of them, a ChatResponse or "
        f"a string (check the order of the script)."
    )


def chat_answer_text(response: ChatResponse) -> str:
    calls = " ".join(f"{c.name}({json.dumps(c.arguments)})" for c in response.tool_calls)
    return f"{response.text} {calls}".strip()


def validate_answer(answer: object, schema: type[T], source: str) -> T:
    """Validate a structured answer against ``schema``; ValidationError when it does not fit."""
    if isinstance(answer, schema):
        return answer
    if isinstance(answer, (ToolCall, ChatResponse, str, list)):
        raise LLMError(
            f"{source} answered a structured request ({schema.__name__}) with a "
            f"{type(answer).__name__}, which is a chat answer: give structured requests a "
            f"{schema.__name__} instance or a dict (check the order of the script)."
        )
    if isinstance(answer, BaseModel):
        return schema.model_validate(answer.model_dump())
    if isinstance(answer, dict):
        return schema.model_validate(answer)
    raise LLMError(
        f"{source} got a {type(answer).__name__} as a structured answer: use a "
        f"{schema.__name__} instance or a dict."
    )


def answer_json(answer: object) -> str:
    if isinstance(answer, BaseModel):
        return answer.model_dump_json()
    try:
        return json.dumps(answer, default=str)
    except (TypeError, ValueError):
        return repr(answer)


def reask_messages(answer: object, error: ValidationError) -> list[Message]:
    """The two messages a re-ask appends: the invalid answer, then the validation error
    (the shape instructor uses when it re-asks)."""
    return [
        Message(role="assistant", content=answer_json(answer)),
        Message(
            role="user",
            content=f"Validation Error found:\n{error}\n{_REASK_HINT}",
        ),
    ]


def exhausted_error(
    schema: type[BaseModel], attempts: int, answer: object, error: str
) -> StructuredOutputError:
    return StructuredOutputError(
        f"The answer never validated as {schema.__name__} after {attempts} attempt(s); last "
        f"error: {trimmed(error, 400)}",
        last_answer=answer,
        errors=error,
    )


def answer_with_function(
    function: Callable[..., Any], messages: list[Message], second: object, context: object
) -> Any:
    """Call a ``FunctionLLM`` function with ``(messages, tools_or_schema)``, adding the
    request context as a third argument when the function takes one (older two-argument
    functions keep working)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: the documented form
        return function(messages, second)
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    takes_more = any(p.kind is p.VAR_POSITIONAL for p in parameters)
    if len(positional) >= 3 or takes_more:
        return function(messages, second, context)
    return function(messages, second)
