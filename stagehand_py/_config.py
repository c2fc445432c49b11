"""Limits and timeouts of act(), extract() and observe(): arguments first, then environment.

Every field can be set on :class:`~stagehand_py.Stagehand` (for all calls) and most per call.
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ._errors import ConfigurationError


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
    secret_domains: tuple[str, ...] = Field(
        default=(),
        description="domain patterns every variable is bound to (default: the origin of the "
        "page a call starts on); Secret(domains=...) overrides it per variable",
    )

    @field_validator("secret_domains", mode="before")
    @classmethod
    def _domain_patterns(cls, value: object) -> object:
        if isinstance(value, str):
            raise ConfigurationError(
                "secret_domains takes a list of domain patterns, e.g. ['*.example.com']."
            )
        if isinstance(value, (list, tuple)):
            from ._secret_scope import parse_patterns

            parse_patterns(value)  # a malformed pattern is named here
        return value

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
