"""Checklist workflows, pure parts: the checklist and its progress, the result, the per-site
history store, registrable domains and sitemap hints.

The loop itself is ``stagehand_py._async.workflow.run`` (and its generated sync twin); users call
it as ``page.workflow(text, ...)``. Nothing here opens a browser or a network connection.
Emergency mode's settings and records serve act and the agent too: they are
``stagehand_py.EmergencySettings`` and ``stagehand_py.Escalation``.
"""

from ._checklist import ItemStatus
from ._history import (
    ChecklistRecord,
    FailureRecord,
    FlowRecord,
    HistoryWarning,
    SiteHistory,
    WorkflowHistory,
)
from ._result import WorkflowItem, WorkflowReason, WorkflowResult
from ._settings import WorkflowSettings

__all__ = [
    "ChecklistRecord",
    "FailureRecord",
    "FlowRecord",
    "HistoryWarning",
    "ItemStatus",
    "SiteHistory",
    "WorkflowHistory",
    "WorkflowItem",
    "WorkflowReason",
    "WorkflowResult",
    "WorkflowSettings",
]
