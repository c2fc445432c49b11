"""Limits and timeouts of act(), extract() and observe(): arguments first, then environment.

Every field can be set on :class:`~stagehand_py.Stagehand` (for all calls) and most per call.
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ._errors import ConfigurationError
from .llm._options import parse_max_tokens


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
    max_tokens: int | dict[str, int] | None = Field(
        default=None,
        description="answer budget of one model request: a number for every kind of request, "
        "or per kind ({'extract': 8000}; also '1024,extract=8000'); unset kinds keep their "
        "defaults (stagehand_py.llm.DEFAULT_MAX_TOKENS)",
    )
    temperature: float | None = Field(
        default=None,
        ge=0,
        le=2,
        description="sampling temperature (None: the server's default; Anthropic ignores it)",
    )

    @field_validator("max_tokens", mode="before")
    @classmethod
    def _read_max_tokens(cls, value: object) -> object:
        return parse_max_tokens(value)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Defaults, then ``STAGEHAND_PY_MAX_STEPS`` / ``STAGEHAND_PY_TIMEOUT`` /
        ``STAGEHAND_PY_MAX_TOKENS`` / ``STAGEHAND_PY_TEMPERATURE``, then overrides."""
        values: dict[str, object] = {}
        if steps := os.environ.get("STAGEHAND_PY_MAX_STEPS"):
            values["max_steps"] = int(steps)
        if timeout := os.environ.get("STAGEHAND_PY_TIMEOUT"):
            values["timeout_s"] = float(timeout)
        if max_tokens := os.environ.get("STAGEHAND_PY_MAX_TOKENS"):
            values["max_tokens"] = max_tokens  # validated (and parsed) with the rest
        if temperature := os.environ.get("STAGEHAND_PY_TEMPERATURE"):
            values["temperature"] = temperature
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
