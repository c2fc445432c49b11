"""The one line an exception is shown as in step records, notes and log lines. Pure."""

from __future__ import annotations


def first_line(error: BaseException) -> str:
    """The first line of ``error``'s message (its ``message`` attribute when it has one, as
    Playwright's errors do), or the name of its type when it says nothing."""
    text = (getattr(error, "message", None) or str(error)).strip()
    return text.splitlines()[0] if text else type(error).__name__
