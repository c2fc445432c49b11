"""Public result models of act() and observe()."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._emergency import Escalation
from ._usage import Usage
from .codegen import WritesPlaywrightCode, playwright_code

CacheStatus = Literal["off", "miss", "hit", "healed"]

ActErrorCode = Literal[
    "TARGET_NOT_FOUND",
    "VLIST_NOT_REACHED",
    "CANVAS_UNSUPPORTED",
    "ALL_SECTIONS_SKIPPED",
    "GOAL_NOT_REACHED",
    "NO_USABLE_REPLY",
    "MAX_STEPS",
    "TIMEOUT",
    "PAGE_EMPTY",
    "ELEMENT_REPLACED",
    "MODEL_ERROR",
]
"""Why an act() stopped without reaching its goal (``ActError.code``, ``ActResult.code``)."""


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
    # The model's confidence in this action (0.00-1.00), when it gave one.
    confidence: float | None = None
    # Accessibility-tree mode: ``selectors`` (the locator ladder) as readable Playwright calls,
    # e.g. ``page.get_by_role("button", name="Save", exact=True)``; empty in DOM mode.
    ladder: list[str] = Field(default_factory=list)
    # The user-facing locator Playwright's codegen picks for the element (e.g.
    # ``internal:role=button[name="Sign in"i]``), found unique when the step was recorded;
    # None when there was none (generated code then uses the most durable of ``selectors``).
    user_facing_selector: str | None = None


class Verification(BaseModel):
    """One verify_act_completion answer."""

    completed: bool
    reason: str = ""


class ActResult(WritesPlaywrightCode, BaseModel):
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
    # Machine-readable facts of the failure, when its code has some: for VLIST_NOT_REACHED the
    # first searched list's containerSelector, clientHeight, scrollHeight, ratio, attemptCount,
    # scrollPositions and viewportMatchCounts (frameUrl inside an iframe; containers: the same
    # fields for each list, when several were searched).
    details: dict[str, Any] | None = None
    opened_pages: list[str] = Field(default_factory=list)
    # Mean confidence of the model's last 5 action attempts: an action that ran counts with
    # the confidence the model gave (left out if it gave none), one that could not run (refused
    # element or arguments, failed on the page, element replaced) counts 0.00. None when no
    # attempt counted.
    confidence: float | None = None
    # What the caller should know that did not stop the act (e.g. why it was not cached).
    notes: list[str] = Field(default_factory=list)
    # Why a successful act's steps were not written to the action cache although a write was
    # due (cache_mode="read-write"); None when they were, or when no write was due.
    not_cached: str | None = None
    # Emergency mode's switch to fallback_model and the DOM view, with its trigger (issue 18).
    escalations: list[Escalation] = Field(default_factory=list)
    # The page the act ended on (a new tab when a click opened one and it was followed).
    page: Any = Field(default=None, exclude=True, repr=False)

    def __bool__(self) -> bool:
        return self.success

    def _code_parts(self) -> tuple[Callable[..., str], Sequence[Any], str]:
        return playwright_code, self.actions, f"act: {self.instruction}"


class ObserveResult(WritesPlaywrightCode, BaseModel):
    """An element observe() found, ready to hand to act() (which then needs no LLM call)."""

    selector: str
    description: str
    method: str = "click"
    arguments: list[str] = Field(default_factory=list)
    element: int | None = None
    selectors: list[str] = Field(default_factory=list)
    frame: list[str] = Field(default_factory=list)
    # Accessibility-tree mode: the locator ladder as readable calls (see ActionRecord.ladder).
    ladder: list[str] = Field(default_factory=list)

    def _code_parts(self) -> tuple[Callable[..., str], Sequence[Any], str]:
        return playwright_code, [self], f"observe: {self.description}"
