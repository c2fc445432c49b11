"""Refuse to type a variable where it does not belong (rules in :mod:`.._secret_scope`).

The field's origin is Playwright's view of the frame the element lives in (a page script can
change what ``location`` says, not which document a frame holds); ``about:blank`` and
``srcdoc`` frames take their parent's, as the browser does. Where the field's form submits
is read through Playwright's locators, whose queries and attribute reads run in Playwright's
own isolated JavaScript world: a page script that overrides ``getAttribute``,
``HTMLFormElement.prototype.action``, ``element.form``, ``closest`` or ``URL`` in its world
changes nothing there. Relative form targets are resolved here as a browser resolves them
(:func:`~stagehand_py._secret_scope.resolve_url`) against the frame's URL and the document's
``<base>``. What the field looks like (type, autocomplete, labels: the plausibility rules) is
read in one call in the page's world (``dom/field_facts/``): a page could disguise it, but
that cannot send a value to another origin, and the page's own script can read its own fields
anyway. This module is the one place that gathers these facts.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Locator as AsyncLocator
from playwright.async_api import Page as AsyncPage

from ..._errors import PageError, SerializationError
from ..._secret_scope import (
    MAX_FORM_ACTIONS,
    UNCHECKED_TARGETS,
    FieldFacts,
    is_absolute_url,
    refusal,
    resolve_url,
    stored_step_refusal,
)
from ..._snapshot import Element
from ..._variables import Variables
from ...dom._js import load_js
from .locate import locate_selectors
from .scripts import run_page_script

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


def _css_string(value: str) -> str:
    """``value`` as a quoted CSS string (for ``[id=...]`` selectors)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")
    return f'"{escaped}"'


async def _attribute(found: AsyncLocator, name: str, timeout_ms: float) -> str | None:
    return await found.first.get_attribute(name, timeout=timeout_ms)


# The common case, proven in Playwright's isolated world by XPath counts: the field names no
# other form (form=), no element of its tree has a target of its own (formaction), and its
# form, if any, sends to the document's own origin. That is one read for a form with no action
# or an empty one (its document's URL). A blank action or a path ("/login", "login": no scheme,
# and no "//" or "/\" that a browser reads as another host) also needs no <base href> in the
# document: a second read, since an XPath from inside a shadow root sees only that root's tree.
# Names are compared by local name, so an XHTML document's namespaced form counts too.
# Anything else is read attribute by attribute (:func:`_form_targets`).
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_FORM = "ancestor::*[local-name()='form'][1]"
_FIELD = "xpath=self::*[not(@form)][not(//*[@formaction])]"
_HOME_ACTION = "not(@action) or @action=''"
_PATH_ACTION = (
    "normalize-space(@action)='' or "
    f"(starts-with(@action, '/') and contains('{_ALNUM}', substring(@action, 2, 1)) "
    "and string-length(@action) > 1) or "
    f"(contains('{_ALNUM}', substring(@action, 1, 1)) and string-length(@action) > 0 "
    "and not(contains(@action, ':')))"
)
_TO_ITS_DOCUMENT = f"{_FIELD}[not({_FORM}) or {_FORM}[{_HOME_ACTION}]]"
_TO_A_PATH = f"{_FIELD}[{_FORM}[{_PATH_ACTION}]]"
# Both proofs in one condition, for a field of a frame's own tree (no shadow root: there "//"
# is the whole document, <base> included). A cache replay's element check evaluates it in the
# page's world; where it holds there, the value is typed through the field with the condition
# attached (:func:`stored_fill_clearance`), so Playwright's isolated world proves it again in
# the very query that types the value, with no round trip of its own.
STAYS_HOME = (
    f"{_FIELD}[not({_FORM}) or {_FORM}[{_HOME_ACTION}] or "
    f"({_FORM}[{_PATH_ACTION}] and not(//*[local-name()='base'][@href]))]"
)


async def _stays_on_its_origin(field: AsyncLocator, frame: AsyncFrame, doc_url: str) -> bool:
    """Whether the field's form (if any) is proven to submit only to ``doc_url``'s origin
    (rules above); False also when it cannot be proven this way."""
    if urlsplit(doc_url).scheme not in ("http", "https"):
        return False  # a path resolves against no origin of its own there
    if await field.locator(_TO_ITS_DOCUMENT).count() == 1:
        return True
    return (
        await field.locator(_TO_A_PATH).count() == 1
        and await frame.locator("base[href]").count() == 0
    )


async def _form_targets(
    field: AsyncLocator, frame: AsyncFrame, doc_url: str, timeout_ms: float
) -> tuple[str, ...]:
    """Absolute URLs the field's form submits to: its ``action`` (empty: the document's URL)
    and each submit button's ``formaction``, resolved against the document's base URL; just
    the document's URL when a read or two prove every target is on its origin (the case of
    most sign-in forms). Otherwise each read is a round trip to the browser: one form with an
    absolute action and no ``formaction`` takes six (the two proofs, its ``form`` attribute,
    the form, its action, and the ``formaction`` count). The form owner named by a ``form``
    attribute is read here, in Playwright's world: a page script can hide it from its own."""
    if await _stays_on_its_origin(field, frame, doc_url):
        return (doc_url,)
    forms = [field.locator("xpath=ancestor::form[1]")]
    form_id = await field.get_attribute("form", timeout=timeout_ms)
    if form_id:  # form="id": the form owner is that form, wherever it is
        forms.append(frame.locator(f"form[id={_css_string(form_id)}]").first)
    forms = [form for form in forms if await form.count()]
    if not forms:
        return ()
    base: str | None = None

    async def resolve(value: str | None) -> str:
        nonlocal base
        if not value:  # missing or empty: the document's own URL (a blank one is a URL)
            return doc_url
        if is_absolute_url(value):  # no base needed
            return resolve_url(doc_url, value)
        if base is None:
            bases = frame.locator("base[href]")
            href = await _attribute(bases, "href", timeout_ms) if await bases.count() else None
            base = resolve_url(doc_url, href or "")
        return resolve_url(base, value)

    targets = [await resolve(await _attribute(form, "action", timeout_ms)) for form in forms]
    if not await frame.locator("[formaction]").count():
        return tuple(targets)
    for form in forms:
        buttons = [form.locator("[formaction]")]
        owner_id = await _attribute(form, "id", timeout_ms)
        if owner_id:
            buttons.append(frame.locator(f"[form={_css_string(owner_id)}][formaction]"))
        for found in buttons:
            count = await found.count()
            if count > MAX_FORM_ACTIONS:  # too many to check in time: fail closed
                targets.append(UNCHECKED_TARGETS)
            for i in range(min(count, MAX_FORM_ACTIONS)):
                value = await found.nth(i).get_attribute("formaction", timeout=timeout_ms)
                targets.append(await resolve(value))
    return tuple(targets)


async def _page_world_facts(
    locator: AsyncLocator, frame: AsyncFrame | None, selector: str | None, timeout_ms: float
) -> tuple[AsyncFrame | None, Any]:
    """The element's frame and what ``dom/field_facts/`` reads of it, in as few round trips as
    what the caller knows allows (see :func:`field_facts`)."""
    script = load_js("field_facts")
    if frame is None:
        handle = await locator.element_handle(timeout=timeout_ms)
        try:
            return await handle.owner_frame(), await handle.evaluate(script)
        finally:
            await handle.dispose()
    if selector is not None and selector.startswith("xpath=") and ">>" not in selector:
        # A plain evaluate of the installed script: Playwright's selector engine is never set
        # up in the page's world (15-25 ms in each new document; fill and click do not need it).
        # A page whose own scripts break ours (the call fails) is read Playwright's way below.
        with contextlib.suppress(PlaywrightError, SerializationError):
            raw = await run_page_script(frame, "field_facts", script, {"xpath": selector[6:]})
            if isinstance(raw, dict):
                return frame, raw
    # One round trip (a locator's evaluate takes a handle and disposes of it: three).
    # Selectors only Playwright's own world resolves (a snapshot's aria-ref) find nothing
    # this way: those take the handle.
    matches = await locator.evaluate_all(script)
    if isinstance(matches, list) and len(matches) == 1 and isinstance(matches[0], dict):
        return frame, matches[0]
    return frame, await locator.evaluate(script, timeout=timeout_ms)


async def field_facts(
    locator: AsyncLocator,
    *,
    timeout_ms: float,
    frame: AsyncFrame | None = None,
    selector: str | None = None,
    read: dict[str, Any] | None = None,
    proven_on_fill: bool = False,
) -> FieldFacts:
    """What the element ``locator`` resolves to is, and where its form sends its data (see
    the module's docstring for which facts the page could disguise and which it cannot).
    ``frame``: the frame the locator was made in, when the caller knows it (a locator made
    on the page itself lives in its main frame): spares asking Playwright for the element's
    frame and a handle to the element: three round trips. ``selector``: the one the locator
    was made from in that frame; an XPath is read without Playwright's engine. ``read``:
    what ``field_facts`` already read of the element in the page's world, in that frame (a
    cache replay's element check brings it): spares that round trip too.
    ``proven_on_fill``: the caller types through :data:`STAYS_HOME`, which proves the form
    sends to the frame's own URL in the same query: its targets are not read here."""
    if read is not None and frame is not None:
        raw: Any = read
    else:
        frame, raw = await _page_world_facts(locator, frame, selector, timeout_ms)
    if frame is None:
        raise PlaywrightError("the element is no longer in a frame")
    frame_url = _frame_url(frame)
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
        form_targets=(
            (frame_url,)
            if proven_on_fill
            else await _form_targets(locator.first, frame, frame_url, timeout_ms)
        ),
    )


async def locator_refusal(
    locator: AsyncLocator,
    method: str,
    args: Sequence[str],
    variables: Variables,
    *,
    timeout_ms: float = 2000,
    stored: bool = False,
    frame: AsyncFrame | None = None,
    selector: str | None = None,
    read: dict[str, Any] | None = None,
    proven_on_fill: bool = False,
) -> str | None:
    """Why ``args`` (with placeholders) may not be typed into ``locator``; None if they may.
    ``stored``: the step comes from a file (a cache entry, a workflow flow), not from a model
    looking at this page, so the field must also name the variable. ``frame``, ``selector``,
    ``read`` and ``proven_on_fill``: see :func:`field_facts` (:func:`known_frame` gives the
    frame)."""
    names = variables.used_names(args)
    if not names:
        return None
    try:
        facts = await field_facts(
            locator,
            timeout_ms=timeout_ms,
            frame=frame,
            selector=selector,
            read=read,
            proven_on_fill=proven_on_fill,
        )
    except PlaywrightError as exc:
        first = (exc.message or str(exc)).splitlines()[0]
        return f"Refused: could not check where the field is ({variables.redact(first)})"
    for name in names:
        scope = variables.scope(name)
        if scope is None:
            continue
        check = stored_step_refusal if stored else refusal
        reason = check(name, method, facts, scope)
        if reason is not None:
            logger.info("stagehand_py: %s", reason)
            return reason
    return None


async def stored_fill_clearance(
    locator: AsyncLocator,
    method: str,
    args: Sequence[str],
    variables: Variables,
    *,
    frame: AsyncFrame | None,
    selector: str,
    read: dict[str, Any] | None,
) -> tuple[str | None, AsyncLocator]:
    """:func:`locator_refusal` for a stored step whose element check read its field
    (``read``), and the locator to act through.

    Where that check found :data:`STAYS_HOME` holding in the page's world (a field of the
    main frame named by an XPath, on an http(s) page), the form's targets take no round trip
    of their own: the returned locator carries the condition, so Playwright's isolated world
    proves it in the same query that types the value. A page whose own world answered falsely
    finds its field missing there: the action times out and nothing is typed."""
    if not variables.used_names(args):
        return None, locator
    proven = (
        read is not None
        and read.get("home") is True
        and frame is not None
        and frame.parent_frame is None
        and selector.startswith("xpath=")
        and ">>" not in selector
        and urlsplit(_frame_url(frame)).scheme in ("http", "https")
    )
    refused = await locator_refusal(
        locator,
        method,
        args,
        variables,
        stored=True,
        frame=frame,
        selector=selector,
        read=read,
        proven_on_fill=proven,
    )
    return refused, locator.locator(STAYS_HOME) if proven else locator


def known_frame(page: AsyncPage, frame_path: Sequence[str]) -> AsyncFrame | None:
    """The frame a locator made from ``page`` through ``frame_path`` lives in, when that is
    known without asking the browser: the page's main frame for an empty path (iframes are
    entered only through the path's frame locators); else None."""
    return None if frame_path else page.main_frame


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
        locator, selector = await locate_selectors(page, element.frame, element.selectors)
    except PageError:
        return None  # perform() reports the missing element itself
    return await locator_refusal(
        locator,
        method,
        args,
        variables,
        timeout_ms=timeout_ms,
        frame=known_frame(page, element.frame),
        selector=selector,
    )
