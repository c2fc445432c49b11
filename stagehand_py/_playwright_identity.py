"""One identity for a Playwright object, whichever face of it the caller holds. Pure.

Playwright's sync and async API objects (and the package's wrapped page, which wraps the
user's page) are thin faces over one implementation object; keys of per-page or per-frame
state use that object, so every face of one tab or frame finds the same entry.
"""

from __future__ import annotations

from typing import Any


def identity(obj: object) -> Any:
    """The implementation object behind ``obj`` (``obj`` itself for anything else)."""
    return getattr(obj, "_impl_obj", obj)
