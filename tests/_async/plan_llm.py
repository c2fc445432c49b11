"""A fake model that follows a plan, finding its elements in the prompt like a model would.

Each planned step names a method, a regular expression that picks the element's line in the
section it is shown (``N:<tag ...>text</tag>``), and arguments. Shown a section without the
next step's element, it calls skipSection; so tests exercise chunk walking for real, and the
element numbers come from the serializer, not from the test. Verify requests get the queued
answers (default: done). Every request is recorded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from stagehand_py.llm._messages import (
    ChatResponse,
    Message,
    RequestOptions,
    StructuredResponse,
    ToolCall,
    ToolSpec,
)
from stagehand_py.llm._usage import Usage
from stagehand_py.prompts.act import VerifyAnswer

T = TypeVar("T", bound=BaseModel)
_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)


@dataclass
class Step:
    method: str
    pattern: str
    args: list[str] = field(default_factory=list)
    completed: bool | None = None  # None: true on the plan's last step only


@dataclass
class Request:
    kind: str
    messages: list[Message]

    def text(self) -> str:
        return "\n".join(m.content for m in self.messages)


def find_element(section: str, pattern: str) -> int | None:
    """The number of the first line in ``section`` matching ``pattern``."""
    for match in _LINE.finditer(section):
        if re.search(pattern, match.group(2)):
            return int(match.group(1))
    return None


class AsyncPlanLLM:
    model = "plan"

    def __init__(
        self,
        steps: Sequence[Step],
        *,
        verdicts: Sequence[bool] = (),
        complete_on_last: bool = True,
    ) -> None:
        self.steps = list(steps)
        self.position = 0
        self.verdicts = list(verdicts)
        self.complete_on_last = complete_on_last
        self.requests: list[Request] = []
        self.extra: list[Any] = []  # replies to send before following the plan

    @property
    def calls(self) -> int:
        return len(self.requests)

    async def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: Literal["auto", "required"] = "required",
        options: RequestOptions | None = None,
    ) -> ChatResponse:
        self.requests.append(Request("chat", list(messages)))
        usage = Usage(requests=1, prompt_tokens=sum(len(m.content) for m in messages) // 4)
        if self.extra:
            reply = self.extra.pop(0)
            if isinstance(reply, ChatResponse):
                return reply
            return ChatResponse(tool_calls=[reply], usage=usage)
        section = messages[1].content.split("(nearest to the current scroll position first):")[-1]
        call_id = f"call_{len(self.requests)}"
        if self.position >= len(self.steps):
            return ChatResponse(
                tool_calls=[ToolCall(id=call_id, name="skipSection", arguments={"reason": "done"})],
                usage=usage,
            )
        step = self.steps[self.position]
        element = find_element(section, step.pattern)
        if element is None:
            reason = f"no element matches {step.pattern}"
            return ChatResponse(
                tool_calls=[ToolCall(id=call_id, name="skipSection", arguments={"reason": reason})],
                usage=usage,
            )
        self.position += 1
        last = self.position == len(self.steps)
        arguments = {
            "method": step.method,
            "element": element,
            "args": step.args,
            "step": f"{step.method} the element matching {step.pattern}",
            "why": "it is in the plan",
            "completed": (last and self.complete_on_last)
            if step.completed is None
            else step.completed,
        }
        return ChatResponse(
            tool_calls=[ToolCall(id=call_id, name="doAction", arguments=arguments)], usage=usage
        )

    async def structured(
        self,
        messages: Sequence[Message],
        schema: type[T],
        *,
        max_retries: int = 2,
        options: RequestOptions | None = None,
    ) -> StructuredResponse[T]:
        self.requests.append(Request("structured", list(messages)))
        if schema is not VerifyAnswer:
            raise AssertionError(f"unexpected structured request for {schema.__name__}")
        verdict = self.verdicts.pop(0) if self.verdicts else True
        value = schema.model_validate({"completed": verdict, "reason": f"verdict {verdict}"})
        return StructuredResponse[T](value=value, usage=Usage(requests=1))
