"""Fingerprint a live element (for cache replay), with the recipe used for serialized ones.

:func:`locate_fingerprinted` is the replay's way to find a cached step's element: the first
stored selector whose one element still has the stored fingerprint.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage
from pydantic import BaseModel, Field

from ..._error_line import first_line
from ..._errors import ElementNotFoundError, PageError, SerializationError
from ...cache import CachedAction, ElementFingerprint
from ...cache._fingerprint import fingerprint_from_element, load_fingerprint_js
from ..browser.closed_shadow import scoped_locator
from ..browser.locate import frame_scope
from ..browser.scripts import run_page_script
from ..browser.secret_guard import STAYS_HOME


class LiveElement(BaseModel):
    """What ``stagehand_py/dom/fingerprint/`` returns for one element."""

    tag: str
    text: str = ""
    attributes: dict[str, str] = Field(default_factory=dict)
    role: str = ""
    name: str = ""


async def fingerprint_of_locator(
    locator: AsyncLocator, *, timeout_ms: float = 5000
) -> ElementFingerprint:
    """The fingerprint of the element ``locator`` resolves to (it must resolve to one).

    Raises :class:`PageError` when the element is gone or ambiguous within ``timeout_ms``:
    for a cached step that means the page changed and the step must be healed.
    """
    try:
        fields = await locator.evaluate(load_fingerprint_js(), timeout=timeout_ms)
    except PlaywrightError as exc:
        raise PageError(
            f"Could not read the element for its fingerprint: {first_line(exc)}. The page changed "
            "since the element was found; find it again."
        ) from None
    return fingerprint_from_element(LiveElement.model_validate(fields))


async def locate_cached(
    page: AsyncPage,
    action: CachedAction,
    *,
    timeout_ms: float,
    redact: Callable[[str], str] | None = None,
) -> tuple[AsyncLocator, str]:
    """A cached step's (or found element's) element: :func:`locate_fingerprinted` with what
    the cache stored (``redact``: the call's, for a fingerprint stored with placeholders)."""
    located = await locate_cached_field(page, action, timeout_ms=timeout_ms, redact=redact)
    return located.locator, located.selector


@dataclass(frozen=True)
class LocatedField:
    """A cached step's element, and what ``dom/shared/field_facts.js`` read of it in the same
    round trip (None when it was found another way: read it then, if needed)."""

    locator: AsyncLocator
    selector: str
    facts: dict[str, Any] | None = None


async def locate_cached_field(
    page: AsyncPage,
    action: CachedAction,
    *,
    timeout_ms: float,
    redact: Callable[[str], str] | None = None,
    read_field: bool = False,
) -> LocatedField:
    """:func:`locate_cached`; with ``read_field``, a step found by a top-document XPath also
    brings the field facts the secret scope check reads (one round trip for both)."""
    return await _locate(
        page,
        action.frame,
        action.selectors,
        action.fingerprint,
        timeout_ms=timeout_ms,
        redact=redact,
        read_field=read_field,
    )


async def locate_fingerprinted(
    page: AsyncPage,
    frame: Sequence[str],
    selectors: Sequence[str],
    fingerprint: ElementFingerprint | None,
    *,
    timeout_ms: float = 5000,
    redact: Callable[[str], str] | None = None,
) -> tuple[AsyncLocator, str]:
    """The first selector that finds exactly one element matching ``fingerprint``.

    Unlike taking the first selector that finds one element, a selector that now lands on
    another element (the positional path after a row was inserted) is passed over for the next
    one (the id- or attribute-anchored path), so a layout change needs no model call. A
    fingerprint stored with placeholders is compared with the live one after ``redact``. Raises
    :class:`ElementNotFoundError` naming what each selector found when none holds.
    """
    located = await _locate(
        page, frame, selectors, fingerprint, timeout_ms=timeout_ms, redact=redact
    )
    return located.locator, located.selector


async def _locate(
    page: AsyncPage,
    frame: Sequence[str],
    selectors: Sequence[str],
    fingerprint: ElementFingerprint | None,
    *,
    timeout_ms: float,
    redact: Callable[[str], str] | None,
    read_field: bool = False,
) -> LocatedField:
    scope = await frame_scope(page, frame)
    # Top-document XPaths are all checked in one plain page.evaluate (see fingerprint/).
    checked = await _check_xpaths(page, selectors, read_field) if not frame else {}
    tried: list[str] = []
    for selector in selectors:
        locator = scoped_locator(page, scope, selector)
        facts = None
        if selector in checked:
            count, fields, error, facts = checked[selector]
        else:
            try:
                # One round trip: how many elements match, and the fingerprint fields of each.
                matches = await locator.evaluate_all(load_fingerprint_js())
            except PlaywrightError as exc:  # malformed selector, or the frame is gone
                count, fields, error = 0, None, first_line(exc)
            else:
                count, fields, error = len(matches), matches[0] if matches else None, None
        if error is not None:
            tried.append(f"{selector} (error: {error})")
            continue
        if count != 1:
            tried.append(f"{selector} ({count} matches)")
            continue
        if fingerprint is None:
            return LocatedField(locator, selector, facts)
        found = fingerprint_from_element(LiveElement.model_validate(fields))
        if redact is not None and fingerprint.has_placeholder:
            found = found.redacted(redact)
        if fingerprint.matches(found):
            return LocatedField(locator, selector, facts)
        tried.append(f"{selector} (a different element: <{found.tag}> {found.name[:40]!r})")
    detail = "; ".join(tried) if tried else "no selectors were stored"
    raise ElementNotFoundError(
        f"No stored selector found the cached element ({fingerprint_summary(fingerprint)}) on "
        f"{page.url}: {detail}. The page changed; the step needs the model again.",
        list(selectors),
    )


_Checked = tuple[int, dict[str, Any] | None, str | None, dict[str, Any] | None]


async def _check_xpaths(
    page: AsyncPage, selectors: Sequence[str], read_field: bool
) -> dict[str, _Checked]:
    """``selector -> (match count, fields of the one match, error, its field facts)`` for the
    XPath selectors (field facts only with ``read_field``).

    Leaves the others (css, shadow DOM) to Playwright's engine. A page that cannot run the
    check (navigating, closed) yields no answers, so every selector goes the usual way.
    """
    xpaths = {s: s[len("xpath=") :] for s in selectors if s.startswith("xpath=") and ">>" not in s}
    if not xpaths:
        return {}
    asked = {
        "xpaths": list(xpaths.values()),
        "facts": read_field,
        # With the facts, whether the form's proof holds (see secret_guard.STAYS_HOME).
        "guard": STAYS_HOME.removeprefix("xpath=") if read_field else None,
    }
    try:
        # Through the page's DevTools session where it has one: this is the one page call a
        # replayed step makes besides its action (see run_page_script).
        encoded = await run_page_script(
            page, "fingerprint", load_fingerprint_js(), asked, devtools=True
        )
        answers = json.loads(encoded) if isinstance(encoded, str) else None
    except (PlaywrightError, SerializationError, ValueError):
        return {}
    if not isinstance(answers, list) or len(answers) != len(xpaths):
        return {}
    checked: dict[str, _Checked] = {}
    for index, (selector, answer) in enumerate(zip(xpaths, answers, strict=True)):
        same = answer.get("same") if isinstance(answer, dict) else None
        if isinstance(same, int) and 0 <= same < index:  # the element an earlier XPath read
            answer = answers[same]
        if not isinstance(answer, dict):
            return {}  # a page script broke ours: every selector goes Playwright's way
        facts = answer.get("facts")
        count = answer.get("count")
        checked[selector] = (
            count if isinstance(count, int) else 0,
            answer.get("fields"),
            answer.get("error"),
            facts if isinstance(facts, dict) else None,
        )
    return checked


def fingerprint_summary(fingerprint: ElementFingerprint | None) -> str:
    """``<tag role> "name"`` for messages; the fingerprint never holds a typed value."""
    if fingerprint is None:
        return "no fingerprint"
    role = f" role={fingerprint.role}" if fingerprint.role else ""
    return f'<{fingerprint.tag}{role}> "{fingerprint.name[:40]}"'
