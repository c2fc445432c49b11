"""Checklist workflows, pure parts: the checklist and its progress, emergency-mode triggers,
the per-site history store, registrable domains and sitemap hints.

The loop itself is ``stagehand_py._async.workflow.run`` (and its generated sync twin); users call
it as ``page.workflow(text, ...)``. Nothing here opens a browser or a network connection.
(The prompts and the result model import the agent's parts, which import the escalation
models from here, so they are not imported by this package: the result is
``stagehand_py.WorkflowResult``.)
"""

from .._emergency import (
    EmergencyMonitor,
    EmergencySettings,
    Escalation,
    EscalationTrigger,
    changes_anything,
    plan_escalation,
)
from ._checklist import (
    ChecklistAnswer,
    ItemStatus,
    StepMeta,
    checklist_strings,
    derive_next_step,
    render_progress,
)
from ._domains import registrable_domain
from ._history import (
    HISTORY_DIR_ENV,
    RETENTION_DAYS,
    ChecklistRecord,
    FailureRecord,
    FlowRecord,
    SiteHistory,
    WorkflowHistory,
)
from ._settings import WorkflowSettings
from ._sitemap import hint_urls, parse_sitemap, sitemaps_in_robots

__all__ = [
    "HISTORY_DIR_ENV",
    "RETENTION_DAYS",
    "ChecklistAnswer",
    "ChecklistRecord",
    "EmergencyMonitor",
    "EmergencySettings",
    "Escalation",
    "EscalationTrigger",
    "FailureRecord",
    "FlowRecord",
    "ItemStatus",
    "SiteHistory",
    "StepMeta",
    "WorkflowHistory",
    "WorkflowSettings",
    "changes_anything",
    "checklist_strings",
    "derive_next_step",
    "hint_urls",
    "parse_sitemap",
    "plan_escalation",
    "registrable_domain",
    "render_progress",
    "sitemaps_in_robots",
]
