"""Limits of ``page.workflow()``: on the call, or once in ``Settings(workflow=...)``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .._errors import ConfigurationError


class WorkflowSettings(BaseModel):
    """Tunable limits of one checklist workflow (the agent's limits apply to each step)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    view: Literal["dom", "aria"] = Field(
        default="aria", description="how the page is read before any escalation"
    )
    max_attempts: int = Field(default=12, ge=1, le=200, description="steps one item may take")
    timeout_s: float = Field(default=900.0, gt=0, description="wall-clock budget of the workflow")
    sitemap: bool = Field(default=True, description="sitemap hints for items that find a page")
    replay: bool = Field(default=True, description="replay stored flows from the history first")

    @classmethod
    def checked(cls, values: dict[str, Any]) -> WorkflowSettings:
        """Validate ``values``; a bad or unknown limit is a :class:`ConfigurationError`."""
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'workflow'}: {err['msg']}"
                for err in exc.errors()
            )
            known = ", ".join(cls.model_fields)
            raise ConfigurationError(
                f"Invalid workflow setting(s): {problems}. Known workflow settings: {known}."
            ) from None

    def updated(self, **changes: Any) -> WorkflowSettings:
        if not changes:
            return self
        return WorkflowSettings.checked({**self.model_dump(), **changes})
