"""The MCP server: the tools of :mod:`._tools` registered on the official SDK's ``MCPServer``,
each bounded in time and turned into an MCP error result when it fails, never a crash."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from playwright.async_api import Error as PlaywrightError

from .._async.stagehand import AsyncStagehand
from .._error_line import first_line
from .._errors import StagehandError
from ._browser import BrowserSession
from ._options import McpOptions
from ._tools import Tools

T = TypeVar("T")

INSTRUCTIONS = (
    "Drive one browser page in plain language. navigate opens a URL; act does one thing "
    "(variables are named as placeholders such as <|PASSWORD|>, never typed out); observe "
    "finds elements; check asserts a statement about the page; extract reads data by JSON "
    "Schema; snapshot shows the page one section at a time; agent runs a multi-step task. "
    "Act-like results carry the Playwright code that repeats them without a model."
)
# Seconds a tool may run past its own timeout_s before the server gives up on it (the SDK
# call honours its deadline within a second; this guards the browser's own calls).
GRACE_S = 2.0


def build_server(options: McpOptions, stagehand: AsyncStagehand | None = None) -> MCPServer:
    """The server with its tools; ``stagehand`` (built from ``options`` when not given) is
    the session's SDK, its browser opened on the first tool call and closed at shutdown."""
    sdk = stagehand or AsyncStagehand(
        options.model, base_url=options.base_url, cache_dir=options.cache_dir, **_limits(options)
    )
    session = BrowserSession(options, sdk)
    tools = Tools(session)
    redact = tools.values.redact  # the session's variables, as every answer is redacted

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await session.close()

    server = MCPServer("stagehand_py", instructions=INSTRUCTIONS, lifespan=lifespan)

    async def run(timeout_s: float | None, work: Callable[[], Awaitable[T]]) -> T:
        try:
            seconds = tools.seconds(timeout_s) + GRACE_S
            return await asyncio.wait_for(work(), seconds)
        except StagehandError as error:
            raise ToolError(redact(f"{type(error).__name__}: {error}")) from None
        except PlaywrightError as error:  # the browser's own failure: a closed tab, a bad URL
            raise ToolError(
                redact(f"PageError: {first_line(error)}. Check the URL, or navigate again.")
            ) from None
        except asyncio.TimeoutError:
            raise ToolError(
                f"The tool ran out of time after {seconds:.0f} s. Pass a larger timeout_s, "
                "or check that the page answers."
            ) from None

    @server.tool()
    async def navigate(url: str, timeout_s: float | None = None) -> dict[str, Any]:
        """Open url in the session's page (only --allowed-origins when the server has any)."""
        return await run(timeout_s, lambda: tools.navigate(url, timeout_s))

    @server.tool()
    async def act(instruction: str, timeout_s: float | None = None) -> dict[str, Any]:
        """Do one thing on the page, e.g. "click Sign in" or "type <|EMAIL|> into Email".
        The answer has the Playwright code that repeats it and whether it came from the cache."""
        return await run(timeout_s, lambda: tools.act(instruction, timeout_s))

    @server.tool()
    async def observe(instruction: str, timeout_s: float | None = None) -> dict[str, Any]:
        """Find the elements an instruction means, each with the Playwright code to act on it."""
        return await run(timeout_s, lambda: tools.observe(instruction, timeout_s))

    @server.tool()
    async def check(statement: str, timeout_s: float | None = None) -> dict[str, Any]:
        """Whether a statement about the page holds ("the cart shows 2 items"), with the
        reason, the evidence and, when compiled, the Playwright expect() lines."""
        return await run(timeout_s, lambda: tools.check(statement, timeout_s))

    @server.tool()
    async def extract(
        instruction: str, schema: dict[str, Any] | None = None, timeout_s: float | None = None
    ) -> dict[str, Any]:
        """Read data from the page; schema is a JSON Schema of the answer (an object)."""
        return await run(timeout_s, lambda: tools.extract(instruction, schema, timeout_s))

    @server.tool()
    async def snapshot(
        view: str | None = None, section: int = 0, timeout_s: float | None = None
    ) -> dict[str, Any]:
        """One section of the page as numbered elements ("aria" or "dom" view); the answer
        says how many sections there are. Never the whole page at once."""
        return await run(timeout_s, lambda: tools.snapshot(view, section, timeout_s))

    @server.tool()
    async def screenshot(full_page: bool = False, timeout_s: float | None = None) -> Image:
        """A PNG screenshot of the page (the viewport, or the full page)."""
        data = await run(timeout_s, lambda: tools.screenshot(full_page, timeout_s))
        return Image(data=data, format="png")

    @server.tool()
    async def agent(
        task: str, max_steps: int | None = None, timeout_s: float | None = None
    ) -> dict[str, Any]:
        """Run a multi-step task in the page; the answer has the Playwright code of its actions."""
        return await run(timeout_s, lambda: tools.agent(task, max_steps, timeout_s))

    return server


def _limits(options: McpOptions) -> dict[str, Any]:
    limits: dict[str, Any] = {"snapshot": options.view, "timeout_s": options.timeout_s}
    if options.cache_mode is not None:
        limits["cache_mode"] = options.cache_mode
    return limits


async def serve_stdio(options: McpOptions, stagehand: AsyncStagehand | None = None) -> None:
    """Serve the tools over stdin and stdout until the client goes away."""
    await build_server(options, stagehand).run_stdio_async()
