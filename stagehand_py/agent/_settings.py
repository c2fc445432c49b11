"""Limits of ``page.agent()``: on the call, or once in ``Settings(agent=AgentSettings(...))``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from .._settings_model import SettingsModel


class AgentSettings(SettingsModel):
    """Tunable limits of one agent run. Every wait is bounded by ``timeout_s`` as well."""

    _settings_of = "agent"

    max_steps: int = Field(default=50, ge=1, le=10_000, description="steps before a forced summary")
    max_actions_per_step: int = Field(default=3, ge=1, le=20, description="actions in one answer")
    max_failures: int = Field(
        default=3, ge=1, description="consecutive failed steps before a forced summary"
    )
    timeout_s: float = Field(default=900.0, gt=0, description="wall-clock budget of the whole run")
    step_timeout_s: float = Field(default=180.0, gt=0, description="budget of one step")
    llm_timeout_s: float = Field(default=90.0, gt=0, description="budget of one model request")
    use_vision: bool = Field(default=False, description="attach a screenshot to each state")
    max_elements: int = Field(default=150, ge=1, description="elements one state lists")
    max_input_tokens: int = Field(
        default=32_000, ge=500, description="token budget of one request (estimated)"
    )
    max_history_items: int = Field(
        default=10, ge=0, description="past steps kept when the budget is exceeded"
    )
    image_tokens: int = Field(default=800, ge=0, description="budget cost of one screenshot")
    max_reasks: int = Field(default=2, ge=0, description="re-asks of an invalid answer")
    max_wait_s: float = Field(default=10.0, gt=0, description="cap of one wait action")
    allowed_domains: tuple[str, ...] | None = Field(
        default=None,
        description="glob patterns of hosts navigate() and links may reach, e.g. '*.example.com'",
    )
    downloads_dir: str | None = Field(
        default=None, description="where downloads are saved (default: a new temporary directory)"
    )
    snapshot: Literal["dom", "aria"] | None = Field(
        default=None,
        description='how each state reads the page: "dom" or "aria" (None: Settings.snapshot)',
    )
    action_timeout_ms: float = Field(default=5000, gt=0, description="Playwright timeout")
    settle_timeout_ms: float = Field(default=3000, ge=0, description="longest settle wait")

    @field_validator("allowed_domains", mode="before")
    @classmethod
    def _one_pattern_is_a_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return (value,)
        return value

    @field_validator("allowed_domains")
    @classmethod
    def _patterns_are_not_blank(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("give at least one pattern, or None to allow every domain")
        cleaned = tuple(p.strip().lower() for p in value)
        if any(not p for p in cleaned):
            raise ValueError("a domain pattern is blank")
        return cleaned
