"""What the model answers each step: its reasoning and 1 to N actions from a closed set.

The set is closed by construction: ``actions`` is a union discriminated by the ``action``
field, and every action model forbids unknown fields, so anything else fails validation and is
re-asked with the error. Element actions name an element by its number in the state shown;
the selector always comes from the snapshot, never from the model.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal, Union, cast

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from .._errors import StructuredOutputError
from ._navigation import url_problem

_INDEX = Field(ge=0, description="the element's number in the current state")
# The most text one answer may hold. A model's answer is bounded by its max_tokens, far below;
# a longer one would be echoed in re-asks, redacted, typed and recorded at a cost in seconds of
# CPU that no deadline can cut short (redacting 10 MB takes 3-5 s), so it fails the request at
# once, before any of that (the step fails and the next one asks afresh).
MAX_ANSWER_CHARS = 100_000


# Optional on every action: how sure the model is (0..1) and why, in one line. Recorded on the
# action's outcome and watched by emergency mode (a low average over the last attempts).
META_FIELDS = frozenset({"confidence", "confidence_reason"})


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    confidence: float | None = Field(
        default=None, ge=0, le=1, description="optional: how sure you are, 0.0 to 1.0"
    )
    confidence_reason: str | None = Field(
        default=None, max_length=300, description="optional: why, in one line"
    )


class ElementActionBase(_Action):
    """An action on one element of the state shown, named by its number."""

    action: str  # each action narrows it to its own name (declared here to stay first)
    index: int = _INDEX


class ClickAction(ElementActionBase):
    action: Literal["click"]


class FillAction(ElementActionBase):
    """Replace a field's content (write variables as their placeholders, e.g. <|EMAIL|>)."""

    action: Literal["fill"]
    text: str


class TypeAction(ElementActionBase):
    """Type key by key at the end of a field's content (for fields that react to typing)."""

    action: Literal["type"]
    text: str


class SelectOptionAction(ElementActionBase):
    action: Literal["select_option"]
    option: str = Field(min_length=1, description="the label of the option to select")


class CheckAction(ElementActionBase):
    action: Literal["check"]


class UncheckAction(ElementActionBase):
    action: Literal["uncheck"]


class PressAction(ElementActionBase):
    action: Literal["press"]
    key: str = Field(min_length=1, description="a key such as Enter, Escape, Tab, ArrowDown")


class HoverAction(ElementActionBase):
    action: Literal["hover"]


class ScrollAction(_Action):
    """Scroll the page (no index) or the scrollable element ``index`` is in."""

    action: Literal["scroll"]
    direction: Literal["up", "down", "top", "bottom"] = "down"
    pages: float = Field(default=1.0, gt=0, le=10, description="how far, in visible heights")
    index: int | None = Field(default=None, ge=0)


class NavigateAction(_Action):
    action: Literal["navigate"]
    url: str = Field(min_length=1, description="a full http or https URL")

    @field_validator("url")
    @classmethod
    def _http_only(cls, url: str) -> str:
        problem = url_problem(url)
        if problem is not None:
            raise ValueError(problem)
        return url.strip()


class GoBackAction(_Action):
    action: Literal["go_back"]


class SwitchTabAction(_Action):
    action: Literal["switch_tab"]
    tab: int = Field(ge=0, description="the tab's number in the list of open tabs")


class CloseTabAction(_Action):
    action: Literal["close_tab"]
    tab: int = Field(ge=0, description="the tab's number in the list of open tabs")


class WaitAction(_Action):
    action: Literal["wait"]
    seconds: float = Field(default=1.0, ge=0, description="capped by the run's max_wait_s")


class ExtractAction(_Action):
    """Read data off the current page; the result is kept in memory for later steps."""

    action: Literal["extract"]
    instruction: str = Field(min_length=1)
    schema_: dict[str, Any] | None = Field(
        default=None, alias="schema", description="an optional JSON schema for the data"
    )

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class DoneAction(_Action):
    """Finish the task: say whether it succeeded and give the answer."""

    action: Literal["done"]
    success: bool = True
    text: str = Field(description="the answer or a summary for the user")
    data: dict[str, Any] | list[Any] | None = Field(
        default=None, description="optional structured result"
    )


AgentAction = Annotated[
    Union[  # noqa: UP007 (a runtime union: pydantic needs the class objects)
        ClickAction,
        FillAction,
        TypeAction,
        SelectOptionAction,
        CheckAction,
        UncheckAction,
        PressAction,
        HoverAction,
        ScrollAction,
        NavigateAction,
        GoBackAction,
        SwitchTabAction,
        CloseTabAction,
        WaitAction,
        ExtractAction,
        DoneAction,
    ],
    Field(discriminator="action"),
]

ElementAction = (
    ClickAction
    | FillAction
    | TypeAction
    | SelectOptionAction
    | CheckAction
    | UncheckAction
    | PressAction
    | HoverAction
)
ACTION_NAMES = (
    "click",
    "fill",
    "type",
    "select_option",
    "check",
    "uncheck",
    "press",
    "hover",
    "scroll",
    "navigate",
    "go_back",
    "switch_tab",
    "close_tab",
    "wait",
    "extract",
    "done",
)


class AgentOutput(BaseModel):
    """One answer: reasoning fields, then the actions to run in order."""

    thinking: str = Field(default="", description="your reasoning about the current state")
    evaluation_previous_goal: str = Field(
        default="", description="did the previous step achieve its goal? success, failure, why"
    )
    memory: str = Field(default="", description="what to remember: progress, data found so far")
    next_goal: str = Field(default="", description="what the actions below should achieve")
    actions: list[AgentAction] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, answer: Any) -> Any:
        """An answer over :data:`MAX_ANSWER_CHARS` raises past the re-ask loop (not a
        ValueError, which pydantic would turn into a re-ask echoing the whole answer)."""
        size = text_chars(answer)
        if size > MAX_ANSWER_CHARS:
            raise StructuredOutputError(
                f"The agent's answer holds {size} characters of text, more than the "
                f"{MAX_ANSWER_CHARS} accepted; it was not run. Keep texts short (a long "
                "value belongs in a variable, written as its placeholder, e.g. <|NOTE|>).",
                errors="answer too long",
            )
        return answer

    @model_validator(mode="after")
    def _done_stands_alone(self) -> AgentOutput:
        if len(self.actions) > 1 and any(isinstance(a, DoneAction) for a in self.actions):
            raise ValueError(
                "'done' must be the only action of its answer: finish the other actions first, "
                "then answer with done alone in the next step"
            )
        return self

    @property
    def done(self) -> DoneAction | None:
        first = self.actions[0]
        return first if isinstance(first, DoneAction) else None


def text_chars(value: Any) -> int:
    """How many characters of text JSON-like ``value`` holds (keys included), without
    copying any of it."""
    total, pending = 0, [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, dict):
            total += sum(len(str(key)) for key in item)
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return total


@functools.cache
def output_model(max_actions: int) -> type[AgentOutput]:
    """The answer schema of a run: at most ``max_actions`` actions (also in the JSON schema)."""
    model = create_model(
        "AgentOutput",
        __base__=AgentOutput,
        actions=(list[AgentAction], Field(min_length=1, max_length=max_actions)),
    )
    return cast("type[AgentOutput]", model)


class FinalSummary(BaseModel):
    """The forced last answer after max_steps or max_failures: no more actions, only a summary.
    The run is unsuccessful whatever it says (``done(success=false)``)."""

    thinking: str = ""
    text: str = Field(description="what was done, what was found, and what is still missing")
    data: dict[str, Any] | list[Any] | None = None


def action_params(action: BaseModel) -> dict[str, Any]:
    """The action's own parameters as JSON data (no ``action`` name, no confidence fields)."""
    return action.model_dump(
        mode="json", by_alias=True, exclude={"action", *META_FIELDS}, exclude_none=True
    )


def action_confidence(action: BaseModel) -> float | None:
    value = getattr(action, "confidence", None)
    return float(value) if isinstance(value, (int, float)) else None


def describe_action(action: BaseModel, element_line: str | None = None) -> str:
    """One short line, e.g. ``fill 4 '<|EMAIL|>'`` or ``navigate https://...``."""
    fields = action.model_dump(by_alias=True, exclude={"action", *META_FIELDS}, exclude_none=True)
    name = cast("str", getattr(action, "action", type(action).__name__))
    index = fields.pop("index", None)
    parts = [name]
    if index is not None:
        parts.append(f"[{index}]" + (f" {element_line}" if element_line else ""))
    for key, value in fields.items():
        shown = repr(value) if isinstance(value, str) else str(value)
        parts.append(f"{key}={shown}")
    return " ".join(parts)
