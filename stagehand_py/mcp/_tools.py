"""What each MCP tool does, on the session's page: plain dictionaries in, JSON-ready answers
out, every string redacted of the session's variables before it leaves."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from .._async.browser.in_time import within
from .._errors import CheckError, ConfigurationError, PageError
from .._snapshot import Snapshot
from .._variables import Variables
from ._browser import BrowserSession
from ._schema import checked_schema


class Tools:
    """The tools of one session. A tool's bad input or failure is a package error: the server
    turns it into an MCP error result (see :mod:`._server`)."""

    def __init__(self, session: BrowserSession) -> None:
        self.session = session
        options = session.options
        self.values = Variables(dict(options.variables))
        self._variables = dict(options.variables) or None

    def seconds(self, timeout_s: float | None) -> float:
        """The tool's time bound: ``timeout_s``, or the server's ``--timeout`` when None."""
        if timeout_s is None:
            return self.session.options.timeout_s
        if not 0 < timeout_s <= 3600:
            raise ConfigurationError(
                f"timeout_s must be between 0 and 3600 seconds, got {timeout_s}."
            )
        return timeout_s

    async def navigate(self, url: str, timeout_s: float | None) -> dict[str, Any]:
        if not self.session.options.allows(url):
            allowed = ", ".join(self.session.options.allowed_origins) or "http(s) pages"
            raise PageError(
                f"Navigation to {self.values.redact(url)} is not allowed: this server may open "
                f"{allowed} only (--allowed-origins)."
            )
        seconds = self.seconds(timeout_s)
        page = await self.session.page()

        async def go() -> dict[str, Any]:  # a busy page is stopped at the deadline
            await page.goto(url, timeout=seconds * 1000)
            return {"url": page.url, "title": await page.title()}

        return self._redacted(await within("navigate", page, seconds, go))

    async def act(self, instruction: str, timeout_s: float | None) -> dict[str, Any]:
        page = await self.session.page()
        result = await page.act(
            instruction,
            variables=self._variables,
            timeout_s=self.seconds(timeout_s),
            raise_on_failure=False,
        )
        self.session.follow_latest()
        answer = {
            "success": result.success,
            "message": result.message,
            "cache": result.cache,
            "actions": [a.description or a.method for a in result.actions],
            "llm_calls": result.llm_calls,
            "playwright_code": result.to_playwright_code() if result.success else None,
        }
        if not result.success:
            raise PageError(f"act failed ({result.code}): {result.message}")
        return self._redacted(answer)

    async def observe(self, instruction: str, timeout_s: float | None) -> dict[str, Any]:
        page = await self.session.page()
        found = await page.observe(instruction, timeout_s=self.seconds(timeout_s))
        elements = [
            {
                "description": o.description,
                "method": o.method,
                "arguments": o.arguments,
                "playwright_code": o.to_playwright_code(),
            }
            for o in found
        ]
        return self._redacted({"elements": elements})

    async def extract(
        self, instruction: str, schema: dict[str, Any] | None, timeout_s: float | None
    ) -> dict[str, Any]:
        schema = checked_schema(schema)
        page = await self.session.page()
        data = await page.extract(
            instruction,
            schema=schema,
            variables=self._variables,
            timeout_s=self.seconds(timeout_s),
        )
        return self._redacted({"data": data})

    async def check(self, statement: str, timeout_s: float | None) -> dict[str, Any]:
        page = await self.session.page()
        try:  # the SDK's check: page.check("#agree") would tick a checkbox
            result = await self.session.stagehand.check(
                page, statement, variables=self._variables, timeout_s=self.seconds(timeout_s)
            )
        except CheckError as failed:
            result = failed.result
        return self._redacted(
            {
                "holds": result.passed,
                "reason": result.reason,
                "evidence": result.evidence,
                "compiled": result.compiled,
                "cache": result.cache,
                "playwright_code": result.to_playwright_code() if result.compiled else None,
            }
        )

    async def snapshot(
        self, view: str | None, section: int, timeout_s: float | None
    ) -> dict[str, Any]:
        chosen = view or self.session.options.view
        if chosen not in ("dom", "aria"):
            raise ConfigurationError(f"view must be 'dom' or 'aria', got {chosen!r}.")
        page = await self.session.page()
        snapshot = await page.snapshot(chosen, timeout_s=self.seconds(timeout_s))  # type: ignore[arg-type]
        return self._redacted(self._section(snapshot, section, chosen))

    def _section(self, snapshot: Snapshot, section: int, view: str) -> dict[str, Any]:
        """One section of ``snapshot``, cut to the answer's character bound."""
        count = len(snapshot.chunks)
        if count == 0:
            return {"url": snapshot.url, "view": view, "section": 0, "sections": 0, "text": ""}
        if not 0 <= section < count:
            raise ConfigurationError(
                f"section {section} does not exist: this page has sections 0 to {count - 1}."
            )
        text = snapshot.render_chunk(section, redact=self.values.redact)
        limit = self.session.options.max_chars
        cut = len(text) > limit
        if cut:
            text = text[: text.rfind("\n", 0, limit) if "\n" in text[:limit] else limit]
        return {
            "url": snapshot.url,
            "view": view,
            "section": section,
            "sections": count,
            "text": text,
            "cut": cut,
        }

    async def screenshot(self, full_page: bool, timeout_s: float | None) -> bytes:
        page = await self.session.page()
        seconds = self.seconds(timeout_s)
        return await page.screenshot(full_page=full_page, timeout=seconds * 1000, type="png")

    async def agent(
        self, task: str, max_steps: int | None, timeout_s: float | None
    ) -> dict[str, Any]:
        page = await self.session.page()
        origins = self.session.options.allowed_origins
        limits: dict[str, Any] = {"timeout_s": self.seconds(timeout_s)}
        if max_steps is not None:
            limits["max_steps"] = max_steps
        if origins:
            limits["allowed_domains"] = [urlsplit(o).hostname or o for o in origins]
        result = await page.agent(task, variables=self._variables, **limits)
        self.session.follow_latest()
        return self._redacted(
            {
                "success": result.success,
                "reason": result.reason,
                "final_text": result.final_text,
                "steps": len(result.steps),
                "playwright_code": result.to_playwright_code(),
            }
        )

    def _redacted(self, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer`` with every string redacted, keys too (a page may show what a variable
        typed, and an extracted object may be keyed by what the page shows)."""
        return {self._scrubbed(key): self._scrubbed(value) for key, value in answer.items()}

    def _scrubbed(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.values.redact(value)
        if isinstance(value, dict):
            return self._redacted(value)
        if isinstance(value, list):
            return [self._scrubbed(v) for v in value]
        return value
