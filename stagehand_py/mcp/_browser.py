"""The one browser of an MCP session: launched with the package's Chromium finder, or reached
over CDP, opened on the first tool call and closed with the server."""

from __future__ import annotations

import asyncio
from typing import Any

from playwright.async_api import Browser, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError

from .._async.browser.launch import launch_chromium
from .._async.page import AsyncStagehandPage
from .._async.stagehand import AsyncStagehand
from .._error_line import first_line
from .._errors import PageError
from ._options import McpOptions


class BrowserSession:
    """The session's Stagehand and its one page (a new tab the page opens replaces it)."""

    def __init__(self, options: McpOptions, stagehand: AsyncStagehand) -> None:
        self.options = options
        self.stagehand = stagehand
        self._lock = asyncio.Lock()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._page: AsyncStagehandPage | None = None

    async def page(self) -> AsyncStagehandPage:
        """The session's page, opening the browser on first use."""
        async with self._lock:
            if self._page is not None and self._page.is_closed():
                self.follow_latest()  # back to the newest tab still open, as a browser goes
            if self._page is None or self._page.is_closed():
                self._page = await self._open()
            return self._page

    def follow_latest(self) -> None:
        """Act on the newest tab of the page's context from now on (an act or the agent
        opened it, as a person would switch to it)."""
        if self._page is None:
            return
        tabs = [tab for tab in self._page.context.pages if not tab.is_closed()]
        if tabs and tabs[-1] != self._page:
            self._page = self.stagehand.wrap(tabs[-1])

    async def _open(self) -> AsyncStagehandPage:
        if self._playwright is None:
            self._playwright = await async_playwright().start()
        if self._browser is None:
            self._browser = await self._connect(self._playwright)
        contexts = self._browser.contexts
        if self.options.cdp_url and contexts:
            context = contexts[0]  # the user's own browser: its logged-in context
        else:
            width, height = self.options.viewport
            context = await self._browser.new_context(
                viewport={"width": width, "height": height},
                storage_state=self.options.storage_state,
            )
        tab = context.pages[0] if context.pages else await context.new_page()
        return self.stagehand.wrap(tab)

    async def _connect(self, playwright: Playwright) -> Browser:
        chromium = playwright.chromium
        try:
            if self.options.cdp_url:
                return await chromium.connect_over_cdp(
                    self.options.cdp_url, timeout=self.options.timeout_s * 1000
                )
            channel: dict[str, Any] = (
                {"channel": self.options.channel} if self.options.channel else {}
            )
            return await launch_chromium(chromium, headless=not self.options.headed, **channel)
        except PlaywrightError as exc:
            where = self.options.cdp_url or "a local Chromium"
            raise PageError(
                f"Could not open the browser ({where}): {first_line(exc)}. Check --cdp-url, "
                "or install Chromium (apt-get install chromium, or playwright install chromium)."
            ) from None

    async def close(self) -> None:
        """Close what this session opened (a browser reached over CDP is only let go)."""
        browser, playwright = self._browser, self._playwright
        self._browser = self._playwright = self._page = None
        try:
            if browser is not None:
                await browser.close()
        finally:
            if playwright is not None:
                await playwright.stop()
