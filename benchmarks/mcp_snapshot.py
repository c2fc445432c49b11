"""What the MCP server's ``snapshot`` tool answers against Playwright's own ``aria_snapshot()``.

Run: ``python benchmarks/mcp_snapshot.py [--quick]``. On the 5,000-element catalogue page of
``benchmarks/serialize.py``, in both views: the characters of one ``snapshot`` answer (one
section, cut to the server's character bound), the characters of every section together, and
the text of ``page.aria_snapshot()``, which a client of Playwright's own tools receives whole.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks._report import figure, parser  # noqa: E402
from benchmarks.serialize import catalogue_page  # noqa: E402
from stagehand_py._async.browser.launch import launch_chromium  # noqa: E402
from stagehand_py._async.stagehand import AsyncStagehand  # noqa: E402
from stagehand_py.mcp._browser import BrowserSession  # noqa: E402
from stagehand_py.mcp._options import McpOptions  # noqa: E402
from stagehand_py.mcp._tools import Tools  # noqa: E402


async def measure(products: int) -> None:
    async with async_playwright() as playwright:
        browser = await launch_chromium(playwright.chromium)
        page = await browser.new_page(viewport={"width": 1280, "height": 720})
        await page.set_content(catalogue_page(products))
        playwright_chars = len(await page.aria_snapshot())
        session = BrowserSession(McpOptions(), AsyncStagehand())
        session._page = session.stagehand.wrap(page)  # the page this run already opened
        tools = Tools(session)
        print(f"Playwright aria_snapshot(): {playwright_chars} characters")
        for view in ("aria", "dom"):
            first = await tools.snapshot(view, 0, 60)
            every = [first["text"]]
            for section in range(1, first["sections"]):
                every.append((await tools.snapshot(view, section, 60))["text"])
            whole = sum(len(text) for text in every)
            print(f"{view}: {first['sections']} sections, {whole} characters in all")
            figure(
                f"ratio one {view} snapshot answer / playwright aria_snapshot",
                f"{len(first['text']) / playwright_chars:.3f}",
                "<= 0.10",
            )
            figure(
                f"ratio all {view} sections / playwright aria_snapshot",
                f"{whole / playwright_chars:.2f}",
            )
        await browser.close()


def main() -> None:
    args = parser(__doc__).parse_args()
    asyncio.run(measure(20 if args.quick else 250))


if __name__ == "__main__":
    main()
