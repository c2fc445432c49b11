"""Settings a single call may override, as keywords type checkers and editors know (PEP 692).

``page.act(..., max_steps=3)`` overrides :class:`~stagehand_py.Settings` for one call,
``page.agent(..., use_vision=True)`` :class:`~stagehand_py.AgentSettings`, and
``page.workflow(..., view="dom")`` :class:`~stagehand_py.WorkflowSettings`. Each TypedDict
below names the fields of one settings model (a test keeps them in step); the model itself
still validates every value, and refuses a name it does not know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypedDict

if TYPE_CHECKING:
    from ._config import CacheMode, CacheUrlMode, SnapshotMode
    from ._emergency import EmergencySettings
    from .agent import AgentSettings
    from .workflow import WorkflowSettings


class SettingsLimits(TypedDict, total=False):
    """:class:`~stagehand_py.Settings` fields, for act() (``instructions`` is act's own)."""

    max_steps: int
    timeout_s: float
    action_timeout_ms: float
    settle_timeout_ms: float
    max_reasks: int
    follow_new_tabs: bool
    verify: bool
    max_prompt_chars: int
    secret_domains: Sequence[str]
    agent: AgentSettings
    snapshot: SnapshotMode
    cache_mode: CacheMode
    self_heal: bool
    cache_url: CacheUrlMode
    max_section_chars: int
    emergency: EmergencySettings
    workflow: WorkflowSettings
    max_tokens: int | dict[str, int] | None
    temperature: float | None


class AgentLimits(TypedDict, total=False):
    """:class:`~stagehand_py.AgentSettings` fields, for agent() (``snapshot`` is its own)."""

    max_steps: int
    max_actions_per_step: int
    max_failures: int
    timeout_s: float
    step_timeout_s: float
    llm_timeout_s: float
    use_vision: bool
    max_elements: int
    max_input_tokens: int
    max_history_items: int
    image_tokens: int
    max_reasks: int
    max_wait_s: float
    allowed_domains: str | Sequence[str] | None
    downloads_dir: str | None
    action_timeout_ms: float
    settle_timeout_ms: float


class WorkflowLimits(TypedDict, total=False):
    """:class:`~stagehand_py.WorkflowSettings` fields, for workflow() (``sitemap`` is its own)."""

    view: Literal["dom", "aria"]
    max_attempts: int
    timeout_s: float
    replay: bool
