"""What each public call (act, extract, observe, check, agent, workflow) did, kept per Stagehand
for debugging and test reports.

Everything here is already redacted: records are built from results whose text went through
the variables' redactor, so printing a history never shows a secret.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ._types import ActionRecord, Verification
from ._usage import Usage

CallKind = Literal["act", "extract", "observe", "agent", "workflow", "check"]
"""The public calls a history records (a new verb adds its name here)."""


class CallRecord(BaseModel):
    """One act(), extract(), observe(), check(), agent() or workflow() call."""

    kind: CallKind
    instruction: str
    success: bool
    message: str = ""
    url: str = ""
    actions: list[ActionRecord] = Field(default_factory=list)
    verifications: list[Verification] = Field(default_factory=list)
    found: list[str] = Field(default_factory=list, description="observe: element descriptions")
    cache: str = "off"
    llm_calls: int = 0
    usage: Usage = Field(default_factory=Usage)
    duration_s: float = 0.0

    def summary(self) -> str:
        """A few readable lines, as shown in failed-test reports and by the CLI."""
        status = "ok" if self.success else "FAILED"
        head = (
            f"{self.kind}({self.instruction!r}) -> {status} in {self.duration_s:.2f}s, "
            f"{self.llm_calls} LLM call(s), {self.usage.prompt_tokens}+"
            f"{self.usage.completion_tokens} tokens"
        )
        if self.cache != "off":
            head += f", cache {self.cache}"
        lines = [head]
        if self.url:
            lines.append(f"  page: {self.url}")
        for number, action in enumerate(self.actions, 1):
            args = ", ".join(repr(a) for a in action.arguments)
            lines.append(f"  {number}. {action.description or f'{action.method}({args})'}")
            lines.append(f"     selector: {action.selector}")
        for verification in self.verifications:
            verdict = "done" if verification.completed else "not yet"
            lines.append(f"  verify: {verdict} - {verification.reason}")
        lines.extend(f"  found: {item}" for item in self.found)
        if self.message:
            lines.append(f"  {self.message}")
        return "\n".join(lines)
