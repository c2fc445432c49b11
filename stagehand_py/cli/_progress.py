"""Progress lines on stderr while a command works, from the ``stagehand_py`` logger.

The SDK logs each step, re-ask and verification at INFO (already redacted); while a command
runs, those records are echoed to stderr with the time since the start, so a long act() shows
what it is doing. stdout stays clean for the results.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


class _ProgressHandler(logging.Handler):
    def __init__(self, stream: TextIO, started: float) -> None:
        super().__init__(logging.INFO)
        self.stream = stream
        self.started = started

    def emit(self, record: logging.LogRecord) -> None:
        try:
            elapsed = time.monotonic() - self.started
            message = record.getMessage().removeprefix("stagehand_py: ")
            self.stream.write(f"[{elapsed:5.1f}s] {message}\n")
            self.stream.flush()
        except Exception:  # a broken stderr must never break the command
            self.handleError(record)


@contextmanager
def progress(title: str, *, enabled: bool = True, stream: TextIO | None = None) -> Iterator[None]:
    """Show ``title`` and then one line per logged step until the block ends."""
    if not enabled:
        yield
        return
    out = stream or sys.stderr
    started = time.monotonic()
    out.write(f"{title} ...\n")
    out.flush()
    logger = logging.getLogger("stagehand_py")
    handler = _ProgressHandler(out, started)
    previous = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    outcome = "stopped"
    try:
        yield
        outcome = "done"
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        out.write(f"[{time.monotonic() - started:5.1f}s] {outcome}\n")
        out.flush()
