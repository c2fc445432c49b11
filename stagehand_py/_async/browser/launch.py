"""Launch Playwright's Chromium with an executable found on this machine."""

from __future__ import annotations

import os
from typing import Any

from playwright.async_api import Browser, BrowserType

from ..._chromium import find_chromium, launch_args
from ..._run_modes import RunMode, preset_launch_options


async def launch_chromium(
    browser_type: BrowserType,
    *,
    executable_path: str | os.PathLike[str] | None = None,
    headless: bool | None = None,
    args: list[str] | None = None,
    mode: RunMode | None = None,
    **launch_options: Any,
) -> Browser:
    """Launch ``playwright.chromium`` with a Chromium found by :func:`find_chromium`.

    ``browser_type`` is ``playwright.chromium`` from your own ``async_playwright()`` (or
    ``sync_playwright()`` for the sync twin). ``mode="dev"``: headed, DevTools open,
    ``slow_mo=500``; ``mode="prod"``: headless, no slow-down, the package's logging at ERROR
    (explicit arguments win over the preset). Headless by default, on a headless shell where
    one is installed (see :func:`find_chromium`). Other keyword arguments go
    to ``BrowserType.launch`` unchanged; with ``channel`` (``"chrome"``, ``"msedge"``...) and no
    ``executable_path``, Playwright launches that installed browser instead of the one found.
    """
    chosen, extra, options = preset_launch_options(
        mode, headless=headless, args=list(args or []), options=launch_options
    )
    # A channel names an installed browser: Playwright finds it unless a path says otherwise.
    use_channel = bool(options.get("channel")) and executable_path is None
    return await browser_type.launch(
        executable_path=None if use_channel else find_chromium(executable_path, headless=chosen),
        headless=chosen,
        args=launch_args(extra),
        **options,
    )
