"""Loaded at start-up by every Python process a README code block starts (``tests/test_readme.py``
puts this directory on ``PYTHONPATH``), so the blocks run exactly as written, offline:

- every browser context routes ``https://<host>/...`` for the hosts under
  ``tests/pages/ci/sites/`` to those files, lets loopback requests through, and blocks the
  rest (no block can reach the internet);
- (unless ``STAGEHAND_PY_README_HARNESS=sites``: the model is then the one the block's
  environment configures, e.g. the loopback wire server's of ``readme_wire.py``) the model
  any block configures (``Stagehand(model=...)``, ``STAGEHAND_PY_MODEL``, the pytest
  plugin, the command line) is the README model of ``readme_model.py``: a fake that knows the
  README's instructions and reads element numbers and text from what it is sent.

Not used outside the README test.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SITES = Path(__file__).resolve().parent.parent / "pages" / "ci" / "sites"
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "::1")


def _site_file(url: str) -> Path | None:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    base = SITES / host
    if not host or not base.is_dir():
        return None
    relative = parts.path.lstrip("/")
    for candidate in (base / relative, base / f"{relative}.html", base / relative / "index.html"):
        if candidate.is_file() and base in candidate.resolve().parents:
            return candidate
    return base / "__missing__"


def _decide(url: str) -> tuple[str, Path | None]:
    host = (urlsplit(url).hostname or "").lower()
    if urlsplit(url).scheme not in ("http", "https") or host in _LOOPBACK:
        return "continue", None
    found = _site_file(url)
    if found is None:
        return "abort", None
    return ("fulfill", found) if found.is_file() else ("missing", None)


def _sync_handler(route: Any) -> None:
    action, path = _decide(route.request.url)
    if action == "continue":
        route.continue_()
    elif action == "fulfill":
        route.fulfill(path=str(path))
    elif action == "missing":
        route.fulfill(status=404, content_type="text/html", body="<h1>Not found</h1>")
    else:
        route.abort("blockedbyclient")


async def _async_handler(route: Any) -> None:
    action, path = _decide(route.request.url)
    if action == "continue":
        await route.continue_()
    elif action == "fulfill":
        await route.fulfill(path=str(path))
    elif action == "missing":
        await route.fulfill(status=404, content_type="text/html", body="<h1>Not found</h1>")
    else:
        await route.abort("blockedbyclient")


def _route_contexts() -> None:
    from playwright.async_api import Browser as AsyncBrowser
    from playwright.sync_api import Browser

    original_new_context = Browser.new_context
    original_async_new_context = AsyncBrowser.new_context

    @functools.wraps(original_new_context)
    def new_context(self: Any, *args: Any, **kwargs: Any) -> Any:
        context = original_new_context(self, *args, **kwargs)
        context.route("**/*", _sync_handler)
        return context

    @functools.wraps(original_async_new_context)
    async def async_new_context(self: Any, *args: Any, **kwargs: Any) -> Any:
        context = await original_async_new_context(self, *args, **kwargs)
        await context.route("**/*", _async_handler)
        return context

    def new_page(self: Any, *args: Any, **kwargs: Any) -> Any:
        context = self.new_context(*args, **kwargs)
        return context.new_page()

    async def async_new_page(self: Any, *args: Any, **kwargs: Any) -> Any:
        context = await self.new_context(*args, **kwargs)
        return await context.new_page()

    Browser.new_context = new_context  # type: ignore[method-assign]
    AsyncBrowser.new_context = async_new_context  # type: ignore[method-assign]
    Browser.new_page = new_page  # type: ignore[method-assign]
    AsyncBrowser.new_page = async_new_page  # type: ignore[method-assign]


def _readme_models() -> None:
    import readme_model

    import stagehand_py._async.llm.factory as async_factory
    import stagehand_py._async.session as async_stagehand
    import stagehand_py._sync.llm.factory as sync_factory
    import stagehand_py._sync.session as sync_stagehand

    def sync_llm(*_: Any, **__: Any) -> Any:
        return readme_model.README_MODEL.sync_llm()

    def async_llm(*_: Any, **__: Any) -> Any:
        return readme_model.README_MODEL.async_llm()

    sync_factory.create_llm = sync_llm  # type: ignore[assignment]
    sync_stagehand.create_llm = sync_llm  # type: ignore[assignment]
    async_factory.create_llm = async_llm  # type: ignore[assignment]
    async_stagehand.create_llm = async_llm  # type: ignore[assignment]


if os.environ.get("STAGEHAND_PY_README_HARNESS") in ("1", "sites"):
    _route_contexts()
if os.environ.get("STAGEHAND_PY_README_HARNESS") == "1":
    _readme_models()
