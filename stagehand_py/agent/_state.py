"""What the model is shown of the browser at one step, and the approval decisions about it.

Everything in an :class:`AgentState` is already redacted (variable values replaced by their
placeholders), so approvers, logs and saved runs can show it as is.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field


class TabInfo(BaseModel):
    """One open tab: its number (what switch_tab/close_tab take), URL and title."""

    id: int
    url: str
    title: str = ""
    current: bool = False


class AgentState(BaseModel):
    """The browser as the model sees it at the start of a step."""

    step: int
    max_steps: int
    url: str
    title: str = ""
    tabs: list[TabInfo] = Field(default_factory=list)
    elements: dict[int, str] = Field(
        default_factory=dict, description="number -> line as the model reads it"
    )
    more_in_view: int = Field(default=0, description="elements in view beyond max_elements")
    pixels_above: int = 0
    pixels_below: int = 0
    downloads: list[str] = Field(default_factory=list, description="files saved since last step")
    time_left_s: float = 0.0
    screenshot: bytes | None = Field(default=None, exclude=True, repr=False)

    def element_line(self, index: int) -> str | None:
        """The element's line without its number (``<button>Pay</button>``), if it is shown."""
        line = self.elements.get(index)
        if line is None:
            return None
        return line.split(":", 1)[1] if ":" in line else line

    def elements_text(self) -> str:
        return "\n".join(self.elements.values())


@dataclass(frozen=True)
class Approve:
    """Run the proposed actions."""


@dataclass(frozen=True)
class Retry:
    """Do not run them: send ``feedback`` to the model and ask again."""

    feedback: str


@dataclass(frozen=True)
class Skip:
    """Do not run them and do not ask again: record a skipped step and go on."""

    reason: str = ""


@dataclass(frozen=True)
class Cancel:
    """End the run now (``reason="cancelled"``)."""

    reason: str = ""


ApprovalDecision = Approve | Retry | Skip | Cancel
APPROVAL_DECISIONS = (Approve, Retry, Skip, Cancel)
