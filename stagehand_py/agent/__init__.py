"""The agent's pure parts: answer and action models, the message manager, prompts, the run's
record, approvals and controls. The step loop itself is ``stagehand_py._async.agent.run`` (and its
generated sync twin); users call it as ``page.agent(task, ...)``.

Approvers return one of :class:`Approve`, :class:`Retry`, :class:`Skip`, :class:`Cancel`.
"""

from ._actions import AgentAction, AgentOutput, DoneAction
from ._approval import ApprovalRule, ConsoleApprover, RuleApprover
from ._controls import AgentControls
from ._conversation import MessageManager, TokenCounter
from ._history import ActionOutcome, AgentReason, AgentResult, PhaseTimings, StepRecord
from ._settings import AgentSettings
from ._state import AgentState, ApprovalDecision, Approve, Cancel, Retry, Skip, TabInfo

__all__ = [
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
    "Cancel",
    "ConsoleApprover",
    "DoneAction",
    "MessageManager",
    "PhaseTimings",
    "Retry",
    "RuleApprover",
    "Skip",
    "StepRecord",
    "TabInfo",
    "TokenCounter",
]
