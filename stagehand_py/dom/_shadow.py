"""Selectors for elements inside closed shadow roots (pure).

No Playwright engine steps into a closed shadow root, so an element inside one gets a selector
of stagehand_py's own: ``stagehand-closed=`` and a JSON list, first a Playwright selector for
the outermost host a Playwright engine reaches, then one ``tag[n]/tag[n]`` path per shadow
root below it (``n``: the position among the element children). Both page scripts write it
(``closedSelectors`` in ``serializer/60_selectors.js`` and ``aria_page``);
``stagehand_py._async.browser.closed_shadow`` resolves it through the closed roots DevTools
found on the page.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

CLOSED_SHADOW_PREFIX = "stagehand-closed="
_PART = r"[^/\[\]\s]+\[[1-9][0-9]*\]"
_STEP = re.compile(f"{_PART}(?:/{_PART})*")


@dataclass(frozen=True)
class ClosedShadowPath:
    """A parsed closed-shadow selector: the host's Playwright selector and the steps below."""

    host: str
    steps: tuple[str, ...]


def is_closed_shadow(selector: str) -> bool:
    return selector.startswith(CLOSED_SHADOW_PREFIX)


def parse_closed_shadow(selector: str) -> ClosedShadowPath | None:
    """The parts of a closed-shadow selector, or None when it is malformed (a tampered page
    or cache file): a host selector and at least one well-formed step."""
    try:
        parts = json.loads(selector[len(CLOSED_SHADOW_PREFIX) :])
    except ValueError:
        return None
    if not isinstance(parts, list) or len(parts) < 2:
        return None
    if not all(isinstance(p, str) and p for p in parts):
        return None
    host, *steps = parts
    if not host.startswith(("css=", "xpath=")) or not all(_STEP.fullmatch(s) for s in steps):
        return None
    return ClosedShadowPath(host, tuple(steps))
