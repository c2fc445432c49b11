"""Limits and timeouts of act(), extract() and observe(): arguments first, then environment.

Every field can be set on :class:`~stagehand_py.Stagehand` (for all calls) and most per call.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ._errors import ConfigurationError
from .agent._settings import AgentSettings
from .workflow._escalation import EmergencySettings
from .workflow._settings import WorkflowSettings

SnapshotMode = Literal["dom", "aria"]
"""How the page is shown to the model: the DOM serializer, or Playwright's accessibility tree."""
SNAPSHOT_MODES: tuple[SnapshotMode, ...] = ("dom", "aria")


class Settings(BaseModel):
    """Tunable limits. Defaults suit ordinary pages; raise them for slow sites."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_steps: int = Field(default=10, ge=1, description="actions one act() may take")
    timeout_s: float = Field(default=120.0, gt=0, description="wall-clock budget of one act()")
    action_timeout_ms: float = Field(
        default=5000, gt=0, description="Playwright timeout of one click/fill/..."
    )
    settle_timeout_ms: float = Field(
        default=3000, ge=0, description="longest wait for the page to settle after an action"
    )
    max_reasks: int = Field(
        default=2, ge=0, description="re-asks per turn when the model's reply is unusable"
    )
    follow_new_tabs: bool = Field(default=True, description="continue in a tab a click opened")
    verify: bool = Field(default=True, description="confirm 'completed' with a second call")
    max_prompt_chars: int = Field(
        default=24000, ge=1000, description="cap on page text in one verify/observe request"
    )
    agent: AgentSettings = Field(
        default_factory=AgentSettings, description="limits of page.agent() (max_steps, ...)"
    )
    snapshot: SnapshotMode = Field(
        default="dom", description='how the page is read: "dom" serializer or "aria" tree'
    )
    emergency: EmergencySettings = Field(
        default_factory=EmergencySettings,
        description="when workflows and the agent escalate to fallback_model and the DOM view",
    )
    workflow: WorkflowSettings = Field(
        default_factory=WorkflowSettings, description="limits of page.workflow() (view, ...)"
    )

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Defaults, then ``STAGEHAND_PY_MAX_STEPS`` / ``STAGEHAND_PY_TIMEOUT`` , then overrides."""
        values: dict[str, object] = {}
        if steps := os.environ.get("STAGEHAND_PY_MAX_STEPS"):
            values["max_steps"] = int(steps)
        if timeout := os.environ.get("STAGEHAND_PY_TIMEOUT"):
            values["timeout_s"] = float(timeout)
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.checked(values)

    @classmethod
    def checked(cls, values: dict[str, object]) -> Settings:
        """Validate ``values``; a bad or unknown setting is a :class:`ConfigurationError`."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
            )
            known = ", ".join(cls.model_fields)
            raise ConfigurationError(
                f"Invalid setting(s): {problems}. Known settings: {known}."
            ) from None

    def updated(self, **changes: object) -> Settings:
        """A copy with ``changes`` applied and validated."""
        return Settings.checked({**self.model_dump(), **changes})
