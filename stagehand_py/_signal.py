"""The base of the package's internal signals: exceptions used as control flow between its own
layers (an action that cannot run, a step or a run that must end), each carrying a message for
a record, a log line or the model. Pure.

The errors the package raises to its users are in :mod:`stagehand_py._errors`.
"""

from __future__ import annotations


class Signal(Exception):
    """An internal signal and the message it carries (``message``, also its ``str()``)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
