"""Run the SDK's browser-side scripts, installed once per document instead of sent each call.

The first call in a document sends the script inside ``dom/page_script_install.js``, which
defines it on the page's main-world ``globalThis`` under a key naming the script and a hash of
its source (a new SDK version never runs an old copy) and runs it. Every later call sends
only ``dom/page_script_call.js`` and the key. Both go without comment lines and indentation
(:func:`~stagehand_py._js_compact.compact_js`). A navigation gives a new document without the
script: the stub reports that, and the script is installed again. Frames are documents of
their own: each gets its copy the same way.

Why: Playwright traces record the source of every evaluate, so sending a 60 KB serializer
with each look made a three-action act's trace mostly script (see ``benchmarks/trace_size.py``).
``add_init_script`` alone would not reach documents that are already loaded.

A document Playwright reported as new (a frame navigated since the script was installed
there, or a frame not seen before) gets the installer straight away: asking the stub first
would only hear "not installed", one round trip per script per document. A navigation
reported late only means the stub is asked first, as before.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import weakref
from typing import Any

from playwright.async_api import CDPSession as AsyncCDPSession
from playwright.async_api import Frame as AsyncFrame
from playwright.async_api import Page as AsyncPage

from ..._errors import SerializationError
from ..._js_compact import compact_js
from ..._playwright_identity import identity
from ...dom._js import load_js
from .interrupt import devtools_session, session_value

_MARKER = "/* STAGEHAND_PY_SCRIPT */"
# Bumped when the install/call protocol itself changes.
_PROTOCOL = 1

# A private switch for benchmarks/trace_size.py: False sends the whole script with every
# call, as before scripts were installed once (the "before" of the measurement).
_install_once = True


@functools.cache
def script_key(name: str, source: str) -> str:
    """``__stagehand_py_1_serializer_3f2a...``: the global a script is installed under."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")
    digest = hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]
    return f"__stagehand_py_{_PROTOCOL}_{slug}_{digest}"


@functools.cache
def script_in_template(template_name: str, source: str) -> str:
    """The script ``dom/<template_name>`` with ``source`` (a function expression) where its
    ``/* STAGEHAND_PY_SCRIPT */`` marker is, compacted (:func:`compact_js`)."""
    template = load_js(template_name)
    if _MARKER not in template:
        raise SerializationError(f"{template_name} lost its script marker")
    return compact_js(template.replace(_MARKER, source.strip().rstrip(";")))


@functools.cache
def _caller() -> str:
    return compact_js(load_js("page_script_call.js"))


# Per frame (Playwright's object): how many navigations Playwright reported for it, and the
# count at which each script key was last installed there.
_navigations: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_installed: weakref.WeakKeyDictionary[Any, dict[str, int]] = weakref.WeakKeyDictionary()
_watched_pages: weakref.WeakSet[Any] = weakref.WeakSet()


def _navigated(frame: AsyncFrame) -> None:
    key = identity(frame)
    _navigations[key] = _navigations.get(key, 0) + 1


def _watch_navigations(page: AsyncPage) -> None:
    """Count the page's frame navigations (once per page)."""
    if identity(page) not in _watched_pages:
        _watched_pages.add(identity(page))
        page.on("framenavigated", _navigated)


def _installed_here(target: AsyncPage | AsyncFrame, key: str) -> bool:
    """Whether ``key`` was installed in the frame's current document, as far as the
    navigations Playwright reported tell; records it as installed from now on."""
    if isinstance(target, AsyncPage):
        _watch_navigations(target)
        frame = identity(target.main_frame)
    else:
        _watch_navigations(target.page)
        frame = identity(target)
    count = _navigations.get(frame, 0)
    keys = _installed.setdefault(frame, {})
    known = keys.get(key) == count
    keys[key] = count
    return known


async def run_page_script(
    target: AsyncPage | AsyncFrame,
    name: str,
    source: str,
    arg: Any = None,
    *,
    devtools: bool = False,
) -> Any:
    """``target.evaluate(source, arg)``, with ``source`` installed once per document.

    ``name`` names the script in its key (``"serializer"``); ``source`` is a function
    expression taking one argument. Playwright errors (a navigation mid-call, a closed page)
    propagate as they would from ``evaluate``. ``devtools``: on a page with a DevTools session
    (:func:`~.interrupt.devtools_session`), run in its top document through that session, for
    a short read with a JSON answer (see :func:`_evaluate`).
    """
    if not _install_once:
        return await target.evaluate(source, arg)
    session = devtools_session(target) if devtools and isinstance(target, AsyncPage) else None
    call = {"key": script_key(name, source), "arg": arg}
    answer = None
    if _installed_here(target, call["key"]):
        answer = await _evaluate(target, session, _caller(), call)
    if not (isinstance(answer, dict) and answer.get("installed")):
        installer = script_in_template("page_script_install.js", source)
        answer = await _evaluate(target, session, installer, call)
    if not isinstance(answer, dict):
        raise SerializationError(
            f"The page script {name} answered {type(answer).__name__}, not its result: a "
            "script on the page may have replaced Object.defineProperty or JSON."
        )
    return answer.get("value")


async def _evaluate(
    target: AsyncPage | AsyncFrame, session: AsyncCDPSession | None, script: str, call: Any
) -> Any:
    """``target.evaluate(script, call)``, or the same in the top document's main world through
    ``session``: Playwright's evaluate sets up a helper in each new document on its first
    call (measured on a replayed step's check: 7.0 ms for the first call in a document against
    4.1 ms through the session, 2.1 against 1.7 ms for later ones). ``call`` must be JSON."""
    if session is None:
        return await target.evaluate(script, call)
    return await session_value(session, f"({script})({json.dumps(call)})")
