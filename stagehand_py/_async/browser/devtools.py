"""What only DevTools can read, made readable to the page scripts (Chromium).

Page JavaScript cannot list the listeners a page added with ``addEventListener``, nor reach
into a closed shadow root. Before each look at a page, :func:`prepare_page` gives the page
scripts of both views (``dom/serializer``, ``dom/aria_page``) both, in every document of the
page's process, through a DevTools session of its own:

- a predicate "has this element a click listener of its own", wrapping the DevTools console's
  ``getEventListeners`` (``dom/devtools_prepare.js``): it is only called for the few elements
  the clickable detection asks about (text-less ones, short texts), about a microsecond each;
- the closed shadow roots: DevTools is asked about each element that may host one
  (``DOM.describeNode`` with ``pierce``), and each closed root it reports is resolved to a
  script object (``DOM.resolveNode``) and registered for the page scripts
  (``dom/devtools_register.js``), which then walk it like an open one. An element is asked
  about once per document.

Measured on a loaded 2-core machine: one DevTools evaluate per document per look (~1-3 ms),
plus ~1 ms per element asked about (once). Reading every listener of a page instead
(``DOMDebugger.getEventListeners`` on the document, then resolving each node) took ~0.6 s on
the 5,000-element catalogue page. Browsers without DevTools (Firefox, WebKit) get nothing
installed: the views read what page JavaScript can.
"""

from __future__ import annotations

import contextlib
import logging
import weakref
from typing import Any

from playwright.async_api import CDPSession as AsyncCDPSession
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page as AsyncPage

from ..._playwright_identity import identity
from ...dom._js import load_js
from .interrupt import send_takes_timeout

logger = logging.getLogger("stagehand_py")

_SESSIONS: weakref.WeakKeyDictionary[Any, AsyncCDPSession | None] = weakref.WeakKeyDictionary()
_GROUP = "stagehand_py_devtools"
_SEND_TIMEOUT_MS = 3000
# Rounds of looking for hosts: a closed root found in one round can hold hosts of its own.
_ROUNDS = 3


async def _session(page: AsyncPage) -> AsyncCDPSession | None:
    """The page's DevTools session of this module (opened once), or None without DevTools."""
    key = identity(page)
    if key in _SESSIONS:
        return _SESSIONS[key]
    session: AsyncCDPSession | None
    try:
        session = await page.context.new_cdp_session(page)
    except PlaywrightError as exc:  # not Chromium, or the page is going away
        logger.debug("stagehand_py: no DevTools session: %s", (exc.message or "").split("\n")[0])
        session = None
    _SESSIONS[key] = session
    return session


async def _send(session: AsyncCDPSession, method: str, params: dict[str, Any]) -> Any:
    if send_takes_timeout(session):
        return await session.send(method, params, timeout=_SEND_TIMEOUT_MS)
    return await session.send(method, params)  # bounded by the call's own deadline only


async def _main_worlds(session: AsyncCDPSession, page: AsyncPage) -> list[int | None]:
    """The main-world script contexts of the page's documents (None: the page's own, the
    default). Frames in another process are not in this session: they get nothing."""
    if len(page.frames) <= 1:
        return [None]
    contexts: list[int | None] = []

    def created(event: dict[str, Any]) -> None:
        context = event.get("context") or {}
        if (context.get("auxData") or {}).get("isDefault"):
            contexts.append(int(context["id"]))

    session.on("Runtime.executionContextCreated", created)
    try:
        # Enabling reports every existing context; it is switched off again at once.
        await _send(session, "Runtime.enable", {})
        await _send(session, "Runtime.disable", {})
    finally:
        session.remove_listener("Runtime.executionContextCreated", created)
    return contexts or [None]


async def prepare_page(page: AsyncPage) -> None:
    """Install the listener predicate and register the closed shadow roots in every document
    of ``page`` (see the module docstring). Failures (a navigation meanwhile, a closed page)
    only mean the look goes on with what page JavaScript reads."""
    if page.is_closed():
        return
    session = await _session(page)
    if session is None:
        return
    # Whether DevTools holds objects of ours to release: only once an answer listed elements
    # (most looks list none, and then skip that round trip).
    holding: list[bool] = []
    try:
        for context in await _main_worlds(session, page):
            await _prepare_document(session, context, holding)
    except PlaywrightError as exc:
        logger.debug("stagehand_py: DevTools preparation skipped: %s", exc.message)
    finally:
        if holding:
            with contextlib.suppress(PlaywrightError):
                await _send(session, "Runtime.releaseObjectGroup", {"objectGroup": _GROUP})


async def _prepare_document(
    session: AsyncCDPSession, context: int | None, holding: list[bool]
) -> None:
    """Prepare one document; appends to ``holding`` when DevTools answered with objects."""
    params: dict[str, Any] = {
        "expression": load_js("devtools_prepare.js"),
        "includeCommandLineAPI": True,
        "objectGroup": _GROUP,
        "silent": True,
    }
    if context is not None:
        params["contextId"] = context
    for _ in range(_ROUNDS):
        answer = await _send(session, "Runtime.evaluate", params)
        if "exceptionDetails" in answer:
            logger.debug("stagehand_py: DevTools preparation failed in context %s", context)
            holding.append(True)  # the exception's object is in the group
            return
        result = answer["result"]
        if result.get("subtype") != "array":
            return  # null: no element left to ask about, and no object made
        holding.append(True)
        listed = {"objectId": result["objectId"], "ownProperties": True}
        hosts = await _send(session, "Runtime.getProperties", listed)
        registered = 0
        for prop in hosts["result"]:
            value = prop.get("value") or {}
            if prop["name"].isdigit() and "objectId" in value:
                registered += await _register_closed_roots(session, value["objectId"])
        if not registered:
            return


async def _register_closed_roots(session: AsyncCDPSession, host: str) -> int:
    """Register the closed shadow roots of the element ``host`` (an object id); how many."""
    described = await _send(
        session, "DOM.describeNode", {"objectId": host, "depth": 1, "pierce": True}
    )
    count = 0
    for root in described["node"].get("shadowRoots", []):
        if root.get("shadowRootType") != "closed":
            continue
        resolved = await _send(
            session,
            "DOM.resolveNode",
            {"backendNodeId": root["backendNodeId"], "objectGroup": _GROUP},
        )
        await _send(
            session,
            "Runtime.callFunctionOn",
            {
                "functionDeclaration": load_js("devtools_register.js"),
                "objectId": resolved["object"]["objectId"],
                "arguments": [{"objectId": host}],
                "silent": True,
            },
        )
        count += 1
    return count
