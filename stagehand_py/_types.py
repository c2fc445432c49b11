"""Public result models of act() and observe()."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._errors import ActErrorCode
from .llm._usage import Usage

CacheStatus = Literal["off", "miss", "hit", "healed"]


class ActionRecord(BaseModel):
    """One Playwright call an act() made. ``arguments`` keep variable placeholders."""

    method: str
    selector: str
    selectors: list[str] = Field(default_factory=list)
    frame: list[str] = Field(default_factory=list)
    arguments: list[str] = Field(default_factory=list)
    element: int | None = None
    description: str = ""
    reason: str = ""
    url: str = ""


class Verification(BaseModel):
    """One verify_act_completion answer."""

    completed: bool
    reason: str = ""


class ActResult(BaseModel):
    """What an act() did. ``success`` is False when the goal was not reached."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    success: bool
    message: str
    instruction: str
    actions: list[ActionRecord] = Field(default_factory=list)
    verifications: list[Verification] = Field(default_factory=list)
    chunks_seen: list[int] = Field(default_factory=list)
    llm_calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    duration_s: float = 0.0
    cache: CacheStatus = "off"
    healed: bool = False
    timed_out: bool = False
    # Why a failed act stopped (None on success); ActError carries the same code.
    code: ActErrorCode | None = None
    opened_pages: list[str] = Field(default_factory=list)
    # What the caller should know that did not stop the act (e.g. why it was not cached).
    notes: list[str] = Field(default_factory=list)
    # The page the act ended on (a new tab when a click opened one and it was followed).
    page: Any = Field(default=None, exclude=True, repr=False)

    def __bool__(self) -> bool:
        return self.success


class ObserveResult(BaseModel):
    """An element observe() found, ready to hand to act() (which then needs no LLM call)."""

    selector: str
    description: str
    method: str = "click"
    arguments: list[str] = Field(default_factory=list)
    element: int | None = None
    selectors: list[str] = Field(default_factory=list)
    frame: list[str] = Field(default_factory=list)
