"""Refuse to type a variable where it does not belong (rules in :mod:`.._secret_scope`).

The field's origin is Playwright's view of the frame the element lives in (a page script can
change what ``location`` says, not which document a frame holds); ``about:blank`` and
``srcdoc`` frames take their parent's, as the browser does. The rest (type, autocomplete,
labels, where the form submits) is read from the element itself.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from .._errors import PageError
from .._secret_scope import FieldFacts, refusal
from .._variables import Variables
from ..dom import Element, load_js
from .locate import locate_selectors

logger = logging.getLogger("stagehand_py")

_INHERITING_URLS = ("about:blank", "about:srcdoc")


def _frame_url(frame: AsyncFrame | None) -> str:
    """The URL whose origin the frame's document has, as Playwright knows it."""
    while frame is not None:
        url = frame.url
        if url.split("?", 1)[0] not in _INHERITING_URLS or frame.parent_frame is None:
            return url
        frame = frame.parent_frame
    return ""


async def field_facts(locator: AsyncLocator, *, timeout_ms: float) -> FieldFacts:
    """What Playwright reports about the element ``locator`` resolves to."""
    handle = await locator.element_handle(timeout=timeout_ms)
    try:
        frame_url = _frame_url(await handle.owner_frame())
        raw = await handle.evaluate(load_js("field_facts.js"))
    finally:
        await handle.dispose()
    return FieldFacts(
        frame_url=frame_url,
        tag=str(raw.get("tag", "")),
        type=str(raw.get("type", "")),
        role=str(raw.get("role", "")),
        autocomplete=str(raw.get("autocomplete", "")),
        name=str(raw.get("name", "")),
        id=str(raw.get("id", "")),
        placeholder=str(raw.get("placeholder", "")),
        aria_label=str(raw.get("ariaLabel", "")),
        labels=tuple(str(label) for label in raw.get("labels", [])),
        in_search_form=bool(raw.get("inSearchForm", False)),
        form_targets=tuple(str(url) for url in raw.get("formTargets", [])),
    )


async def locator_refusal(
    locator: AsyncLocator,
    method: str,
    args: Sequence[str],
    variables: Variables,
    *,
    timeout_ms: float = 2000,
) -> str | None:
    """Why ``args`` (with placeholders) may not be typed into ``locator``; None if they may."""
    names = variables.used_names(args)
    if not names:
        return None
    try:
        facts = await field_facts(locator, timeout_ms=timeout_ms)
    except PlaywrightError as exc:
        first = (exc.message or str(exc)).splitlines()[0]
        return f"Refused: could not check where the field is ({variables.redact(first)})"
    for name in names:
        scope = variables.scope(name)
        if scope is None:
            continue
        reason = refusal(name, method, facts, scope)
        if reason is not None:
            logger.info("stagehand_py: %s", reason)
            return reason
    return None


async def secret_refusal(
    page: AsyncPage,
    element: Element,
    method: str,
    args: Sequence[str],
    variables: Variables,
    *,
    timeout_ms: float = 2000,
) -> str | None:
    """:func:`locator_refusal` for a snapshot element (the act loop's hook)."""
    if not variables.used_names(args):
        return None
    try:
        locator, _ = await locate_selectors(page, element.frame, element.selectors)
    except PageError:
        return None  # perform() reports the missing element itself
    return await locator_refusal(locator, method, args, variables, timeout_ms=timeout_ms)
