"""The keywords of each public verb, written once for the page and the Stagehand layer.

``page.act(action, **options)`` and ``stagehand.act(page, action, **options)`` both take
:class:`ActOptions` (PEP 692's ``Unpack``), so editors and type checkers list one set of
keywords for both, and a verb added later declares its keywords once too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from .._limits import AgentLimits, SettingsLimits, WorkflowLimits

if TYPE_CHECKING:
    from .._config import SnapshotMode
    from ..agent import AgentControls, TokenCounter
    from ..workflow import WorkflowHistory
    from .agent.think import ApprovalCallback
    from .llm.base import AsyncLLM


class SpendingCaps(TypedDict, total=False):
    """What every verb takes: hard caps on what this call's model requests may spend (a
    request that would cross one is not sent: ``BudgetExceededError``)."""

    max_cost_usd: float | None
    max_total_tokens: int | None


class VariablesOption(SpendingCaps, total=False):
    """What every verb takes: values typed for ``<|NAME|>`` / ``%name%``, never sent (and the
    call's spending caps)."""

    variables: Mapping[str, object] | None


class ModelOptions(TypedDict, total=False):
    """Another model than the session's (a model string or a client), or more instructions,
    for this call only."""

    model: str | None
    llm: AsyncLLM | None
    instructions: str | None


class ActOptions(VariablesOption, ModelOptions, SettingsLimits, total=False):
    raise_on_failure: bool


class ObserveOptions(VariablesOption, ModelOptions, total=False):
    timeout_s: float | None
    max_tokens: int | dict[str, int] | None
    temperature: float | None
    snapshot: SnapshotMode | None


class ExtractOptions(ObserveOptions, total=False):
    selector: str | None
    cache_key: str | None


class CheckOptions(ObserveOptions, total=False):
    """check()'s keywords: the same as observe()'s."""


class AgentOptions(VariablesOption, ModelOptions, AgentLimits, total=False):
    approval: ApprovalCallback | None
    controls: AgentControls | None
    count_tokens: TokenCounter | None
    snapshot: SnapshotMode | None


class WorkflowOptions(VariablesOption, WorkflowLimits, total=False):
    fallback_model: str | AsyncLLM | None
    history_dir: str | os.PathLike[str] | WorkflowHistory | None
    sitemap: bool | None
    clock: Callable[[], float] | None


def limits_in(options: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a call overrides: what is left of its options once the verb has taken
    its own (the settings model refuses a name it does not know). What every verb takes
    (variables, spending caps) is the call's own, never a settings override."""
    return {
        name: value
        for name, value in options.items()
        if name not in VariablesOption.__optional_keys__
    }
