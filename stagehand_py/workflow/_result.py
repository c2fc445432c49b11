"""The record of a checklist workflow: each item with its status, and the checklist as it ended.

Every text here was redacted before it was stored (variable values replaced by their
placeholders), like the agent's record.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._emergency import Escalation
from .._history import CallRecord
from .._types import ActErrorCode, CacheStatus
from .._usage import Usage
from ..agent._history import ActionOutcome, run_record
from ._checklist import ItemStatus

WorkflowReason = Literal["done", "failed", "timeout", "cancelled"]
"""``done`` every item is done; ``failed`` an item could not be done (the rest did not run);
``timeout`` ``timeout_s`` ran out; ``cancelled`` an approver or ``controls`` stopped it."""


class WorkflowItem(BaseModel):
    """One checklist item and what happened to it."""

    id: int = Field(description="1 for the first item")
    text: str
    status: ItemStatus = "pending"
    attempts: int = Field(default=0, description="steps taken (model turns), replays excluded")
    actions: list[ActionOutcome] = Field(default_factory=list, description="every action run")
    replayed: bool = Field(default=False, description="done by a stored flow, no model call")
    replay_note: str = Field(default="", description="why a stored flow did not replay")
    escalations: list[Escalation] = Field(default_factory=list)
    find_page: bool = Field(default=False, description="the item must find a page first")
    hints: int = Field(default=0, description="sitemap URLs shown to the model for it")
    check: str = Field(default="", description="the completion check's reason")
    error: str | None = None
    code: ActErrorCode | None = None
    url: str = Field(default="", description="the page the item ended on")
    model_requests: int = 0
    usage: Usage = Field(default_factory=Usage)

    def line(self) -> str:
        box = "[x]" if self.status == "done" else "[ ]"
        how = " (replayed from history)" if self.replayed else f", {self.attempts} attempt(s)"
        tail = f": {self.error}" if self.error else ""
        return f"{box} {self.id}. {self.text} -> {self.status}{how}{tail}"


class WorkflowResult(BaseModel):
    """What ``page.workflow(text)`` did: the checklist as it ended and every item."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    text: str = Field(description="the request, redacted")
    success: bool
    reason: WorkflowReason
    message: str = ""
    checklist: list[str] = Field(
        default_factory=list, description='the checklist as it ended: "[x] ..." or "[] ..."'
    )
    checklist_replayed: bool = Field(
        default=False,
        description="the checklist came from the action cache or the history: no checklist request",
    )
    items: list[WorkflowItem] = Field(default_factory=list)
    model: str = ""
    fallback_model: str = ""
    usage: Usage = Field(default_factory=Usage)
    started_at: datetime
    ended_at: datetime
    duration_s: float = 0.0
    sitemaps: dict[str, int] = Field(
        default_factory=dict, description="site -> page URLs its sitemaps gave"
    )
    cache: CacheStatus = Field(
        default="off",
        description="how the action cache answered: 'hit' (checklist and every item replayed, "
        "no model call), 'healed' (an item's stored step no longer held; the model finished "
        "from there and the entry was rewritten), 'miss' or 'off' (no cache)",
    )
    cache_note: str = Field(default="", description="why a stored workflow did not replay")
    not_cached: str | None = Field(
        default=None, description="why a successful workflow was not written to the cache"
    )
    page: Any = Field(default=None, exclude=True, repr=False)

    def __bool__(self) -> bool:
        return self.success

    @property
    def replayed(self) -> list[int]:
        """Ids of the items a stored flow did, with no model call."""
        return [item.id for item in self.items if item.replayed]

    @property
    def escalations(self) -> list[Escalation]:
        return [e for item in self.items for e in item.escalations]

    def summary(self) -> str:
        status = "ok" if self.success else "FAILED"
        lines = [
            f"workflow -> {status} ({self.reason}) in {self.duration_s:.1f}s, "
            f"{self.usage.requests} model request(s)"
        ]
        for item in self.items:
            lines.append("  " + item.line())
            lines.extend(f"      {e.line()}" for e in item.escalations)
        if self.message:
            lines.append(f"  {self.message}")
        return "\n".join(lines)


def call_record(result: WorkflowResult) -> CallRecord:
    """The workflow as one entry of ``Stagehand.history`` (and of a failed test's report)."""
    parts = [(f"item {item.id}", item.url, item.actions) for item in result.items]
    message = f"{result.reason}: " + " | ".join(result.checklist)
    record = run_record("workflow", result.text, result, message, parts, with_arguments=False)
    record.cache = result.cache
    return record
