"""A fake model that follows a plan, finding its elements in the prompt like a model would.

Each planned step names a method, a regular expression that picks the element's line in the
part of the page it is shown (``N:<tag ...>text</tag>``), and arguments. It answers with one
doAction per planned step whose element is shown, in order, up to the first one that is not
(a batch; ``batch=False`` answers one step at a time, as models did before batching). It moves
along the plan as it answers, and steps back over the actions of its last reply that the act
did not run (the prompt's "Steps taken so far" grew by fewer: a batch stopped early, a
re-ask). Shown a part without the next step's element, it calls skipSection; so tests
exercise chunk walking for real, and the element numbers come from the serializer, not from
the test. Verify requests get the queued answers (default: done). Every request is recorded.
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
_SECTION_MARK = "(nearest to the current scroll position first):"
_STEPS = re.compile(r"Steps taken so far:\n(.*?)\n\n", re.DOTALL)


@dataclass
class Step:
    method: str
    pattern: str
    args: list[str] = field(default_factory=list)
    completed: bool | None = None  # None: true on the plan's last step only
    confidence: float | None = None
    target: str | None = None  # drag_to: a pattern for the element to drop on (its number)


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
        batch: bool = True,
    ) -> None:
        self.steps = list(steps)
        self.position = 0
        self.verdicts = list(verdicts)
        self.complete_on_last = complete_on_last
        self.batch = batch
        self.requests: list[Request] = []
        self.extra: list[Any] = []  # replies to send before following the plan
        self._taken: int | None = None  # steps listed in the last prompt
        self._emitted = 0  # actions in the last reply

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
            self._emitted = 0
            reply = self.extra.pop(0)
            if isinstance(reply, ChatResponse):
                return reply
            return ChatResponse(tool_calls=[reply], usage=usage)
        prompt = messages[1].content
        section = prompt.split(_SECTION_MARK)[-1]
        self._replan(prompt)
        calls: list[ToolCall] = []
        while self.position < len(self.steps):
            step = self.steps[self.position]
            element = find_element(section, step.pattern)
            target = find_element(section, step.target) if step.target else None
            if element is None or (step.target and target is None):
                break
            self.position += 1
            call_id = f"call_{len(self.requests)}_{len(calls)}"
            calls.append(self._do_action(call_id, step, element, target))
            if not self.batch or calls[-1].arguments["completed"]:
                break
        self._emitted = len(calls)
        if calls:
            return ChatResponse(tool_calls=calls, usage=usage)
        done = self.position >= len(self.steps)
        reason = "done" if done else f"no element matches {self.steps[self.position].pattern}"
        skip = ToolCall(
            id=f"call_{len(self.requests)}", name="skipSection", arguments={"reason": reason}
        )
        return ChatResponse(tool_calls=[skip], usage=usage)

    def _replan(self, prompt: str) -> None:
        """Plan again the actions of the last reply that the act did not run (a batch it
        stopped, a re-ask): the prompt's step list grew by fewer than were sent."""
        listed = _STEPS.search(prompt)
        lines = listed.group(1).splitlines() if listed else []
        taken = 0 if lines == ["(none yet)"] else len(lines)
        if self._taken is not None and taken >= self._taken:
            self.position -= max(0, self._emitted - (taken - self._taken))
        self._taken = taken

    def _do_action(self, call_id: str, step: Step, element: int, target: int | None) -> ToolCall:
        last = self.position == len(self.steps)
        arguments: dict[str, Any] = {
            "method": step.method,
            "element": element,
            "args": step.args if target is None else [str(target)],
            "step": f"{step.method} the element matching {step.pattern}",
            "why": "it is in the plan",
            "completed": (last and self.complete_on_last)
            if step.completed is None
            else step.completed,
        }
        if step.confidence is not None:
            arguments["confidence"] = step.confidence
        return ToolCall(id=call_id, name="doAction", arguments=arguments)

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
