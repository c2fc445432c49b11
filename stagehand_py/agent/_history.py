"""The record of an agent run: each step with its phases, and the result with save/load.

Every text here was redacted before it was stored (the message manager and the loop pass all
of it through the variables filter), so a saved run never holds a secret value. Screenshots
are written as PNG files beside the JSON, never inlined.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field

from .._emergency import Escalation
from .._errors import ConfigurationError
from .._history import CallKind, CallRecord
from .._types import ActionRecord, CacheStatus
from .._usage import Usage
from ..codegen import WritesPlaywrightCode
from ..codegen_agent import agent_playwright_code
from ._state import TabInfo

AgentReason = Literal["done", "failed", "max_steps", "max_failures", "timeout", "cancelled"]
"""Why a run ended:

``done``          the model finished with ``done(success=true)``
``failed``        the model finished with ``done(success=false)``, or the run could not go on
                  (every tab closed, the page crashed)
``max_steps``     ``max_steps`` steps ran; a last request asked the model for a summary
``max_failures``  ``max_failures`` consecutive steps failed; the same forced summary
``timeout``       ``timeout_s`` ran out (no summary request: there is no time left for one)
``cancelled``     an approver answered ``Cancel``, or ``AgentControls.stop()`` was called
"""

ActionStatus = Literal["ok", "error", "not_run"]


def redacted(value: Any, redact: Callable[[str], str]) -> Any:
    """``value`` (JSON-like data) with every string passed through ``redact``."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): redacted(v, redact) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redacted(v, redact) for v in value]
    return value


class ActionOutcome(BaseModel):
    """What one proposed action did: ``ok``, ``error`` (with the error) or ``not_run``."""

    action: str
    params: dict[str, Any] = Field(default_factory=dict)
    description: str = ""
    status: ActionStatus = "ok"
    error: str | None = None
    note: str = ""
    extracted: Any = None
    selector: str | None = None
    # Every selector of the element acted on (most exact first) and its frame path, for
    # AgentResult.to_playwright_code(); redacted like everything else.
    selectors: list[str] = Field(default_factory=list)
    frame: list[str] = Field(default_factory=list)
    url: str = ""
    confidence: float | None = Field(
        default=None, description="the model's confidence in the action (0..1), if it gave one"
    )

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def line(self) -> str:
        """``click [3] <button>Add</button> -> ok`` as the model and the logs read it."""
        if self.status == "error":
            outcome = f"error: {self.error}"
        elif self.status == "not_run":
            outcome = f"not run ({self.note})" if self.note else "not run"
        else:
            outcome = f"ok ({self.note})" if self.note else "ok"
        return f"{self.description or self.action} -> {outcome}"


class PhaseTimings(BaseModel):
    """Seconds spent in each phase of a step."""

    observe_s: float = 0.0
    think_s: float = 0.0
    approval_s: float = 0.0
    act_s: float = 0.0
    post_s: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def sdk_s(self) -> float:
        """The SDK's own time: observing, acting and bookkeeping (not the model, not a human)."""
        return self.observe_s + self.act_s + self.post_s


class StepRecord(BaseModel):
    """One step: what was seen, what the model proposed, what ran and what it cost."""

    number: int
    started_at: datetime
    ended_at: datetime | None = None
    timings: PhaseTimings = Field(default_factory=PhaseTimings)
    url: str = ""
    title: str = ""
    tabs: list[TabInfo] = Field(default_factory=list)
    output: dict[str, Any] | None = None
    actions: list[dict[str, Any]] = Field(default_factory=list)
    results: list[ActionOutcome] = Field(default_factory=list)
    error: str | None = None
    approval: str | None = None
    skipped: bool = False
    summary: bool = Field(default=False, description="the forced final summary request")
    usage: Usage = Field(default_factory=Usage)
    cost: float | None = None
    model_requests: int = 0
    prompt_chars: int = 0
    prompt_tokens: int = 0
    cuts: list[str] = Field(default_factory=list, description="what the token budget cut")
    downloads: list[str] = Field(default_factory=list)
    screenshot: bytes | None = Field(default=None, exclude=True, repr=False)
    screenshot_file: str | None = None

    @property
    def failed(self) -> bool:
        """A step-level error, or its last action that ran ended in an error."""
        if self.error is not None:
            return True
        ran = [r for r in self.results if r.status != "not_run"]
        return bool(ran) and ran[-1].status == "error"


class AgentResult(WritesPlaywrightCode, BaseModel):
    """What an agent run did and why it ended (``reason``: see :data:`AgentReason`)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    task: str
    success: bool
    final_text: str
    data: Any = None
    reason: AgentReason
    steps: list[StepRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    cost: float | None = None
    model: str = ""
    started_at: datetime
    ended_at: datetime
    duration_s: float = 0.0
    downloads: list[str] = Field(default_factory=list)
    conversation: list[dict[str, Any]] = Field(
        default_factory=list, description="the last model request, message by message"
    )
    escalations: list[Escalation] = Field(
        default_factory=list, description="switches to emergency mode, with their triggers"
    )
    cache: CacheStatus = Field(
        default="off",
        description="how the action cache answered: 'hit' (replayed, no model call), 'healed' "
        "(a stored step no longer held; the model finished the task and the entry was "
        "rewritten), 'miss' or 'off' (no cache)",
    )
    cache_note: str = Field(default="", description="why a stored run did not replay to its end")
    not_cached: str | None = Field(
        default=None, description="why a successful run was not written to the action cache"
    )
    # The tab the run ended on (wrapped); not saved.
    page: Any = Field(default=None, exclude=True, repr=False)

    def __bool__(self) -> bool:
        return self.success

    def _code_parts(self) -> tuple[Callable[..., str], Sequence[Any], str]:
        outcomes = [outcome for step in self.steps for outcome in step.results]
        return agent_playwright_code, outcomes, f"agent: {self.task}"

    def summary(self) -> str:
        """A few readable lines per step, as the command line and test reports show them."""
        status = "ok" if self.success else "FAILED"
        lines = [
            f"agent({self.task!r}) -> {status} ({self.reason}) in {len(self.steps)} step(s), "
            f"{self.duration_s:.1f}s, {self.usage.prompt_tokens}+{self.usage.completion_tokens} "
            "tokens" + (f", ${self.cost:.4f}" if self.cost is not None else "")
        ]
        for step in self.steps:
            head = f"  step {step.number}"
            if step.summary:
                head += " (final summary)"
            elif step.skipped:
                head += " (skipped)"
            lines.append(f"{head}: {step.url}")
            if step.error:
                lines.append(f"    error: {step.error}")
            lines.extend(f"    {result.line()}" for result in step.results)
        lines.append(f"  {self.final_text}")
        return "\n".join(lines)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the run as JSON to ``path``; screenshots go to ``<name>_screenshots/`` beside
        it. Returns the JSON file's path."""
        target = Path(path)
        data = self.model_dump(mode="json")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shots = target.with_name(target.stem + "_screenshots")
            for position, step in enumerate(self.steps):
                if step.screenshot is None:
                    continue
                shots.mkdir(exist_ok=True)
                name = f"step_{step.number:03d}.png"
                (shots / name).write_bytes(step.screenshot)
                data["steps"][position]["screenshot_file"] = f"{shots.name}/{name}"
            target.write_text(json.dumps(data, indent=2, ensure_ascii=False), "utf-8")
        except OSError as exc:
            raise ConfigurationError(
                f"Cannot save the agent result to {str(target)!r}: {exc.strerror or exc}. "
                "Give a writable file path such as 'runs/agent.json'."
            ) from None
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> AgentResult:
        """Read a run written by :meth:`save` (screenshots included when their files exist)."""
        source = Path(path)
        try:
            result = cls.model_validate_json(source.read_text("utf-8"))
        except OSError as exc:
            raise ConfigurationError(
                f"Cannot read an agent result from {str(source)!r}: {exc.strerror or exc}."
            ) from None
        except ValidationError as exc:
            raise ConfigurationError(
                f"{str(source)!r} is not a saved agent result ({exc.error_count()} problem(s), "
                f"first: {exc.errors()[0]['msg']})."
            ) from None
        for step in result.steps:
            if step.screenshot_file:
                shot = source.parent / step.screenshot_file
                if shot.is_file():
                    step.screenshot = shot.read_bytes()
        return result


class FinishedRun(Protocol):
    """What a finished agent run or workflow says of itself."""

    success: bool
    usage: Usage
    duration_s: float


# One step of an agent run or one item of a workflow: its label, page URL and actions.
RunPart = tuple[str, str, list[ActionOutcome]]


def run_record(
    kind: CallKind,
    instruction: str,
    run: FinishedRun,
    message: str,
    parts: list[RunPart],
    *,
    with_arguments: bool,
) -> CallRecord:
    """A finished run as one entry of ``Stagehand.history`` (and of a failed test's report):
    its model requests are its calls, the page it ended on the last part's."""
    actions: list[ActionRecord] = []
    for label, page_url, outcomes in parts:
        for outcome in outcomes:
            record = ActionRecord(
                method=outcome.action,
                selector=outcome.selector or "",
                description=f"{label}: {outcome.line()}",
                url=outcome.url or page_url,
            )
            if with_arguments:
                record.arguments = [str(v) for k, v in outcome.params.items() if k != "index"]
            actions.append(record)
    return CallRecord(
        kind=kind,
        instruction=instruction,
        success=run.success,
        message=message,
        url=parts[-1][1] if parts else "",
        actions=actions,
        llm_calls=run.usage.requests,
        usage=run.usage,
        duration_s=run.duration_s,
    )


def call_record(result: AgentResult) -> CallRecord:
    """The run as one entry of ``Stagehand.history`` (and of a failed test's report)."""
    parts = [(f"step {step.number}", step.url, step.results) for step in result.steps]
    message = f"{result.reason}: {result.final_text}"
    record = run_record("agent", result.task, result, message, parts, with_arguments=True)
    record.cache = result.cache
    return record
