"""Checklist workflows, pure parts: the checklist and its progress, emergency-mode triggers,
the per-site history store, registrable domains and sitemap hints.

The loop itself is ``stagehand_py._async.workflow`` (and its generated sync twin); users call
it as ``page.workflow(text, ...)``. Nothing here opens a browser or a network connection.
"""

from ._escalation import (
    EmergencyMonitor,
    EmergencySettings,
    Escalation,
    EscalationTrigger,
    changes_anything,
    plan_escalation,
)

__all__ = [
    "EmergencyMonitor",
    "EmergencySettings",
    "Escalation",
    "EscalationTrigger",
    "changes_anything",
    "plan_escalation",
]
