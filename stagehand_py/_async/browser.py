"""Launch Playwright's Chromium with an executable found on this machine."""

from __future__ import annotations

import os
from typing import Any

from playwright.async_api import Browser, BrowserType

from .._chromium import find_chromium, launch_args


async def launch_chromium(
    browser_type: BrowserType,
    *,
    executable_path: str | os.PathLike[str] | None = None,
    headless: bool = True,
    args: list[str] | None = None,
    **launch_options: Any,
) -> Browser:
    """Launch ``playwright.chromium`` with a Chromium found by :func:`find_chromium`.

    ``browser_type`` is ``playwright.chromium`` from your own ``async_playwright()`` (or
    ``sync_playwright()`` for the sync twin). Other keyword arguments go to
    ``BrowserType.launch`` unchanged.
    """
    return await browser_type.launch(
        executable_path=find_chromium(executable_path),
        headless=headless,
        args=launch_args(args),
        **launch_options,
    )
