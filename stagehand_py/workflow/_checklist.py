"""The checklist: what the model's checklist answer must be, and how progress is written.

One structured request turns the user's text into a :class:`ChecklistAnswer` (items written
``"[] ..."``, each keeping its conditions). The loop then tracks each item's status and shows
the whole list in every request: ``[x]`` for done items, the current one marked. The step the
model works on is re-derived every turn by :func:`derive_next_step` from the item alone (id,
original instruction, attempt), never carried over from an earlier turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field, field_validator

MAX_ITEMS = 20
MAX_ITEM_CHARS = 500

ItemStatus = Literal["pending", "done", "failed", "not_run"]
"""``pending`` not reached yet (or in progress); ``done`` its completion check said so (or a
stored flow replayed); ``failed`` it could not be done; ``not_run`` an earlier item failed."""

# "[]", "[ ]", "[x]", "- [ ]", "1.", "1)", "・" before the item text: the model's markup.
_MARKER = re.compile(
    r"^\s*(?:[-*\u30fb\u2022]\s*)?(?:\d{1,2}\s*[.)\uff0e\u3001]\s*)?(?:\[\s*[xX\u2713]?\s*\]\s*)?"
)


def strip_marker(text: str) -> str:
    """``"[] Search for lamps"`` -> ``"Search for lamps"`` (any list or checkbox markup)."""
    return " ".join(_MARKER.sub("", text, count=1).split())


class ChecklistAnswer(BaseModel):
    """What the checklist request asks the model for."""

    checklist: list[str] = Field(
        min_length=1,
        max_length=MAX_ITEMS,
        description='the steps in order, each written "[] ...", in the language of the request, '
        "keeping every condition of the request (numbers, limits, names, quoted text)",
    )
    find_page: list[int] = Field(
        default_factory=list,
        description="numbers (1 = first) of the items that must first find or open a page",
    )

    @field_validator("checklist")
    @classmethod
    def _items_have_text(cls, items: list[str]) -> list[str]:
        cleaned = [strip_marker(item) for item in items]
        for number, item in enumerate(cleaned, 1):
            if not item:
                raise ValueError(f'item {number} is empty: write each item as "[] what to do"')
            if len(item) > MAX_ITEM_CHARS:
                raise ValueError(
                    f"item {number} is {len(item)} characters long: keep each item under "
                    f"{MAX_ITEM_CHARS} characters, one step each"
                )
        return cleaned

    @field_validator("find_page")
    @classmethod
    def _numbers_are_positive(cls, numbers: list[int]) -> list[int]:
        if any(n < 1 for n in numbers):
            raise ValueError("find_page lists item numbers, the first item being 1")
        return sorted(set(numbers))


@dataclass(frozen=True)
class StepMeta:
    """The step the model works on this turn (the ADR's ``deriveNextStep``): no target, no
    value, no intent guessed by code; the model reads those off the page."""

    id: str
    original_instruction: str
    attempt: int

    def line(self) -> str:
        return (
            f'{{"id": "{self.id}", "original_instruction": {_quoted(self.original_instruction)}, '
            f'"attempt": {self.attempt}}}'
        )


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def derive_next_step(item_id: int, instruction: str, attempt: int) -> StepMeta:
    """The step meta of item ``item_id`` (1-based) at its ``attempt`` (1-based)."""
    return StepMeta(id=f"item-{item_id}", original_instruction=instruction, attempt=attempt)


_BOX: dict[ItemStatus, str] = {"pending": "[ ]", "done": "[x]", "failed": "[!]", "not_run": "[ ]"}


def render_progress(
    texts: Sequence[str], statuses: Sequence[ItemStatus], current: int | None
) -> str:
    """The checklist as every request shows it: ``[x]`` done, the ``current`` (0-based) item
    marked with an arrow."""
    lines = []
    for position, (text, status) in enumerate(zip(texts, statuses, strict=True)):
        mark = "  <- current item" if position == current else ""
        failed = " (failed)" if status == "failed" else ""
        lines.append(f"{_BOX[status]} {position + 1}. {text}{failed}{mark}")
    return "\n".join(lines)


def checklist_strings(texts: Sequence[str], statuses: Sequence[ItemStatus]) -> list[str]:
    """The checklist as it ended, in the ADR's form: ``"[x] ..."`` done, ``"[] ..."`` not."""
    return [
        f"{'[x]' if status == 'done' else '[]'} {text}"
        for text, status in zip(texts, statuses, strict=True)
    ]
