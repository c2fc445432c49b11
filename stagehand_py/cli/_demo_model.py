"""The offline stand-in model of ``demo --fake``, and the prompt recorder of an unconfigured demo.

The stand-in reads its prompts like a model would: it finds each planned element by a pattern
in the numbered lines it is shown (so element numbers come from the real serializer), calls
skipSection when the section lacks it, answers verify by looking for the confirmation, and
extracts by reading the page text it was sent. It knows only the bundled demo page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .._errors import StagehandError
from ..extract._schema import subclass_of
from ..llm._messages import Message, ToolCall, ToolSpec
from ..prompts.act import VerifyAnswer
from ..prompts.observe import ObserveAnswer

_LINE = re.compile(r"^(\d+):(.*)$", re.MULTILINE)
_SECTION_MARK = "position first):"


@dataclass(frozen=True)
class PlannedStep:
    """One doAction: ``pattern`` picks the element's line (``<tag attrs>text</tag>``)."""

    method: str
    pattern: str
    args: tuple[str, ...] = ()


# The demo's act(), as a good model would carry it out on the bundled page.
SIGNUP_STEPS = (
    PlannedStep("fill", r"(?i)^<input\b[^>]*full.name", ("<|NAME|>",)),
    PlannedStep("fill", r"(?i)^<input\b[^>]*type=\"email\"", ("<|EMAIL|>",)),
    PlannedStep("fill", r"(?i)^<input\b[^>]*type=\"password\"", ("<|PASSWORD|>",)),
    PlannedStep("select_option", r"(?i)^<select\b", ("Espresso",)),
    PlannedStep("click", r"(?i)^<(label|input)\b[^>]*>?.*Pro - 3 bags"),
    PlannedStep("click", r"(?i)^<button\b[^>]*>\s*Create account"),
)
DASHBOARD_PATTERN = r"(?i)^<button\b[^>]*>\s*Open my dashboard"
_MEMBERSHIP_PATTERNS = {
    # A name, or the placeholder the page text shows for a variable's value (<|NAME|>).
    "name": r"Member\W+?(?!number)(<\|[A-Z_]+\|>|[A-Z][^|\n]*?)\s*(?:\||\n|$)",
    "plan": r"Plan\W+(Basic|Pro)\b",
    "monthly_price_eur": r"Monthly price\W+(\d+(?:\.\d+)?)",
    "member_number": r"Member number\W+(NW-\d+)",
}


def _last_user_text(messages: Sequence[Message]) -> str:
    for message in reversed(messages):
        if message.role == "user":
            return message.content
    return ""


def find_line(section: str, pattern: str) -> int | None:
    """The number of the first element line in ``section`` matching ``pattern``."""
    for match in _LINE.finditer(section):
        if re.search(pattern, match.group(2)):
            return int(match.group(1))
    return None


@dataclass
class DemoModel:
    """Decisions for the demo page; wrap with ``FunctionLLM(chat=..., structured=...)``."""

    steps: list[PlannedStep] = field(default_factory=lambda: list(SIGNUP_STEPS))
    position: int = 0

    def chat(self, messages: list[Message], tools: list[ToolSpec]) -> ToolCall:
        prompt = _last_user_text(messages)
        section = prompt.split(_SECTION_MARK)[-1]
        if self.position >= len(self.steps):
            return ToolCall(id="skip", name="skipSection", arguments={"reason": "all done"})
        step = self.steps[self.position]
        element = find_line(section, step.pattern)
        if element is None:
            reason = "nothing for the next step in this section"
            return ToolCall(id="skip", name="skipSection", arguments={"reason": reason})
        self.position += 1
        arguments = {
            "method": step.method,
            "element": element,
            "args": list(step.args),
            "step": f"{step.method} element {element}",
            "why": "the goal asks for it",
            "completed": self.position == len(self.steps),
        }
        return ToolCall(id=f"step{self.position}", name="doAction", arguments=arguments)

    def structured(
        self, messages: list[Message], schema: type[BaseModel]
    ) -> BaseModel | dict[str, Any]:
        prompt = "\n".join(m.content for m in messages if m.role != "system")
        if schema is VerifyAnswer:
            done = "Welcome to the club" in prompt
            reason = "the confirmation is shown" if done else "no confirmation yet"
            return VerifyAnswer(completed=done, reason=reason)
        if schema is ObserveAnswer:
            element = find_line(prompt, DASHBOARD_PATTERN)
            found = [{"element": element, "description": "Open my dashboard button"}]
            return ObserveAnswer.model_validate({"elements": found if element is not None else []})
        return fit_to_schema(schema, read_membership(prompt))


def read_membership(page_text: str) -> dict[str, Any]:
    """The membership fields as they appear in the page text the model was sent."""
    values: dict[str, Any] = {}
    for name, pattern in _MEMBERSHIP_PATTERNS.items():
        match = re.search(pattern, page_text)
        if match:
            values[name] = match.group(1).strip()
    return values


def fit_to_schema(schema: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """Shape ``data`` for the schema extract() asked for: the fields at the top, or nested
    in the one field whose type is a model, plus ``complete`` when the schema has it."""
    fields = schema.model_fields
    shaped: dict[str, Any] = dict(data)
    if not set(data) & set(fields):
        for name, info in fields.items():
            annotation = info.annotation
            if subclass_of(annotation, BaseModel):
                shaped = {name: data}
                break
    if "complete" in fields:
        shaped["complete"] = True
    return shaped


class PromptCaptured(StagehandError):
    """Raised by :class:`PromptRecorder` once it holds the first request."""


class PromptRecorder:
    """A model that records the first request it is sent and stops the run there."""

    model = "not configured"

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.tools: list[ToolSpec] = []

    def chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec], **_: Any) -> Any:
        self.messages, self.tools = list(messages), list(tools)
        raise PromptCaptured("The demo stopped before sending anything: no model is configured.")

    def structured(self, messages: Sequence[Message], schema: type[BaseModel], **_: Any) -> Any:
        self.messages = list(messages)
        raise PromptCaptured("The demo stopped before sending anything: no model is configured.")
