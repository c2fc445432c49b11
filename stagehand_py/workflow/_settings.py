"""Limits of ``page.workflow()``: on the call, or once in ``Settings(workflow=...)``."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .._settings_model import SettingsModel


class WorkflowSettings(SettingsModel):
    """Tunable limits of one checklist workflow (the agent's limits apply to each step)."""

    _settings_of = "workflow"

    view: Literal["dom", "aria"] = Field(
        default="aria", description="how the page is read before any escalation"
    )
    max_attempts: int = Field(default=12, ge=1, le=200, description="steps one item may take")
    timeout_s: float = Field(default=900.0, gt=0, description="wall-clock budget of the workflow")
    sitemap: bool = Field(default=True, description="sitemap hints for items that find a page")
    replay: bool = Field(default=True, description="replay a stored run first (cache or history)")
