"""Provider-neutral request and response types: the only shapes that cross the LLM layer.

Provider SDK objects never leave ``stagehand_py/_async/llm/<provider>.py``; everything the
rest of the package sees is one of these models.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from .._usage import Usage

T = TypeVar("T", bound=BaseModel)


class ToolSpec(BaseModel):
    """A tool the model may call: a name, a description and a JSON schema for its arguments."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any]


class ToolCall(BaseModel):
    """One tool call the model made.

    ``arguments`` is the parsed JSON object. When the model sent arguments that are not a
    JSON object, ``arguments`` is empty and ``arguments_error`` says what was wrong, with
    ``raw_arguments`` holding the text as sent, so the caller can re-ask.
    """

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str = ""
    arguments_error: str | None = None


class ImagePart(BaseModel):
    """A picture attached to a user message (a screenshot, for models that can see).

    ``data`` is the raw image bytes; providers encode them as their wire format wants
    (OpenAI ``image_url`` data URLs, Anthropic base64 ``image`` blocks).
    """

    model_config = ConfigDict(frozen=True)

    data: bytes = Field(repr=False)
    media_type: Literal["image/png", "image/jpeg"] = "image/png"


class Message(BaseModel):
    """One chat message.

    ``role="tool"`` answers a tool call: ``tool_call_id`` names it and ``is_error`` marks a
    re-ask (Anthropic's ``tool_result.is_error``; for OpenAI the error text is the content).
    An assistant message may carry the ``tool_calls`` it made; a user message may carry
    ``images`` after its text.
    """

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    is_error: bool = False
    images: list[ImagePart] = Field(default_factory=list)


RequestKind = Literal["act", "verify", "observe", "extract", "agent", "checklist", "check", "other"]


class RequestOptions(BaseModel):
    """Per-request settings every caller passes with a model request (``options=``).

    ``kind`` says which loop asks (providers pick per-kind defaults from it, fakes expose it);
    ``max_tokens``/``temperature`` override the client's defaults when set; ``timeout_s`` is
    the time the caller has left: a provider must not run past it (no retry that cannot
    finish in time, the connection closed when it runs out).
    """

    model_config = ConfigDict(frozen=True)

    kind: RequestKind = "other"
    max_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0, le=2)
    timeout_s: float | None = Field(default=None, gt=0)


class ChatResponse(BaseModel):
    """What a tool-enabled chat request returned."""

    tool_calls: list[ToolCall] = Field(default_factory=list)
    text: str = ""
    usage: Usage = Field(default_factory=Usage)
    model: str = ""


class StructuredResponse(BaseModel, Generic[T]):
    """A validated structured answer, with what it cost (re-asks included)."""

    value: T
    usage: Usage = Field(default_factory=Usage)
    attempts: int = 1
