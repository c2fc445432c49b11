"""What a check() returns (:class:`CheckResult`), what its failure says, and what it spent."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from .._types import CacheStatus
from .._usage import Usage
from ..codegen import WritesPlaywrightCode
from ._assertions import CheckAssertion
from ._code import check_code

MAX_EVIDENCE_LINES = 10
MAX_EVIDENCE_CHARS = 300


class CheckResult(WritesPlaywrightCode, BaseModel):
    """A statement about the page that held (``passed``), or, on a :class:`CheckError`'s
    ``result``, one that did not.

    ``reason`` is the model's, or on a replay what the compiled assertions found; ``evidence``
    the element lines it relied on (redacted). ``compiled`` says whether the statement became
    Playwright assertions (``assertions``, replayed with no model call next time); when not,
    ``why_not_compiled`` says why, and the model judges it on every run. ``cache`` is how the
    action cache answered (``"off"`` without one). ``to_playwright_code()`` writes the
    assertions as plain ``expect(...)`` lines.
    """

    statement: str
    passed: bool
    reason: str = ""
    evidence: list[str] = Field(default_factory=list)
    compiled: bool = False
    why_not_compiled: str | None = None
    assertions: list[CheckAssertion] = Field(default_factory=list)
    cache: CacheStatus = "off"
    llm_calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    duration_s: float = 0.0
    # What the caller should know that did not decide the check (e.g. why it was not cached).
    notes: list[str] = Field(default_factory=list)

    def __bool__(self) -> bool:
        return self.passed

    def _code_parts(self) -> tuple[Callable[..., str], Sequence[Any], str]:
        return check_code, self.assertions, f"check: {self.statement}"


@dataclass
class CheckSpent:
    """What a check has cost so far (the call path reads it when the check fails)."""

    usage: Usage = field(default_factory=Usage)
    llm_calls: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def duration_s(self) -> float:
        return time.monotonic() - self.started


def evidence_lines(lines: Sequence[str]) -> list[str]:
    """At most :data:`MAX_EVIDENCE_LINES` lines, each cut at :data:`MAX_EVIDENCE_CHARS`."""
    return [
        line if len(line) <= MAX_EVIDENCE_CHARS else line[: MAX_EVIDENCE_CHARS - 1] + "…"
        for line in lines[:MAX_EVIDENCE_LINES]
    ]


def failure_message(result: CheckResult, *, replay_failure: str | None = None) -> str:
    """The :class:`CheckError` message: the statement, why it does not hold, the evidence."""
    lines = [f"check({result.statement!r}) failed: {result.reason or 'it does not hold'}"]
    if replay_failure is not None:
        kept = "Its compiled assertions failed too (the cache entry is kept)"
        lines.append(f"{kept}: {replay_failure}")
    if result.evidence:
        lines.append("Evidence:")
        lines.extend(f"  {line}" for line in result.evidence)
    return "\n".join(lines)
