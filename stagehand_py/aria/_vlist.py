"""Virtualised lists (the ADR's numbers): which containers qualify, when a scroll search has
stalled, and the fields a VLIST_NOT_REACHED report carries. Pure Python; the browser side is
``dom/aria_page/30_lists.js`` (read by ``_async/aria/lists.py``) and the search is the act
loop's ``_async/act/vlist.py``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

MIN_RATIO = 2.0  # scrollHeight / clientHeight of a scroller worth searching
MAX_ATTEMPTS = 10  # scrolls before giving up
STEP_PAGES = 1.0  # executor.scroll's page is 0.8 x clientHeight: the ADR's step
STALL_PX = 5.0  # a scroll that moved less than this did not move
STALL_RUN = 2  # ... and that many in a row (the last 3 positions) ends the search
LIST_ROLES = ("list", "listbox", "grid", "table", "tree")


@dataclass(frozen=True)
class ListContainer:
    """A container that may hold a virtualised list, with the metrics the ADR logs."""

    selector: str
    role: str
    scrolls: bool  # overflow-y auto|scroll and ratio >= MIN_RATIO
    ratio: float
    client_height: float
    scroll_height: float
    scroll_top: float
    frame_url: str = ""  # set for a container inside a (same-origin) iframe

    @classmethod
    def read(cls, raw: dict[str, Any]) -> ListContainer:
        return cls(
            selector=raw["selector"],
            role=raw["role"],
            scrolls=bool(raw["scrolls"]),
            ratio=round(float(raw["ratio"]), 3),
            client_height=float(raw["clientHeight"]),
            scroll_height=float(raw["scrollHeight"]),
            scroll_top=float(raw["scrollTop"]),
        )

    def log_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "containerSelector": self.selector,
            "clientHeight": self.client_height,
            "scrollHeight": self.scroll_height,
            "ratio": self.ratio,
        }
        if self.frame_url:
            fields["frameUrl"] = self.frame_url
        return fields


def rank_key(container: ListContainer) -> tuple[bool, float]:
    """Scrollers first (the most content per visible height first), then role-only lists."""
    return (not container.scrolls, -container.ratio)


def rank_containers(found: Sequence[ListContainer]) -> list[ListContainer]:
    """``found`` in :func:`rank_key` order (stable: ties keep their order)."""
    return sorted(found, key=rank_key)


def stalled(positions: Sequence[float]) -> bool:
    """True when the last 3 scroll positions differ by less than ``STALL_PX`` twice in a row."""
    last = positions[-(STALL_RUN + 1) :]
    if len(last) < STALL_RUN + 1:
        return False
    return all(abs(b - a) < STALL_PX for a, b in itertools.pairwise(last))


@dataclass
class ListSearch:
    """How a scroll search of one container went (``found`` or why it stopped)."""

    container: ListContainer
    found: bool = False
    start_position: float = 0.0
    scroll_positions: list[float] = field(default_factory=list)
    viewport_match_counts: list[int] = field(default_factory=list)
    stopped_by: str = ""  # "found", "max_attempts", "stalled" or "scroll_failed"

    @property
    def attempt_count(self) -> int:
        return len(self.scroll_positions)

    def log_fields(self) -> dict[str, Any]:
        """The VLIST_NOT_REACHED record, with the ADR's field names."""
        return {
            **self.container.log_fields(),
            "attemptCount": self.attempt_count,
            "scrollPositions": list(self.scroll_positions),
            "viewportMatchCounts": list(self.viewport_match_counts),
        }
