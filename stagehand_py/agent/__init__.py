"""The agent's pure parts: answer and action models, the message manager, prompts, the run's
record, approvals and controls. The step loop itself is ``stagehand_py._async.agent.run`` (and its
generated sync twin); users call it as ``page.agent(task, ...)``.

Approvers return one of :class:`Approve`, :class:`Retry`, :class:`Skip`, :class:`Cancel`.
"""

from ._actions import (
    ACTION_NAMES,
    AgentAction,
    AgentOutput,
    DoneAction,
    FinalSummary,
    describe_action,
    output_model,
)
from ._approval import ApprovalRule, ConsoleApprover, RuleApprover, proposed_lines
from ._controls import AgentControls
from ._conversation import BuiltRequest, MessageManager, TokenCounter, estimate_tokens
from ._history import ActionOutcome, AgentReason, AgentResult, PhaseTimings, StepRecord
from ._navigation import domain_allowed, navigation_problem, url_problem
from ._settings import AgentSettings
from ._state import AgentState, ApprovalDecision, Approve, Cancel, Retry, Skip, TabInfo

__all__ = [
    "ACTION_NAMES",
    "ActionOutcome",
    "AgentAction",
    "AgentControls",
    "AgentOutput",
    "AgentReason",
    "AgentResult",
    "AgentSettings",
    "AgentState",
    "ApprovalDecision",
    "ApprovalRule",
    "Approve",
    "BuiltRequest",
    "Cancel",
    "ConsoleApprover",
    "DoneAction",
    "FinalSummary",
    "MessageManager",
    "PhaseTimings",
    "Retry",
    "RuleApprover",
    "Skip",
    "StepRecord",
    "TabInfo",
    "TokenCounter",
    "describe_action",
    "domain_allowed",
    "estimate_tokens",
    "navigation_problem",
    "output_model",
    "proposed_lines",
    "url_problem",
]
