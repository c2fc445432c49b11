"""Sitemap hints for a workflow: fetched once per site visited, bounded, never persisted.

The fetch itself (:mod:`stagehand_py.workflow._sitemap_fetch`) is written once in asyncio for
both APIs, so that every request ends at its total deadline wherever it waits (a server that
drips its headers or body a byte at a time cannot stretch it). The async workflow awaits it;
the sync one runs it on an event loop of its own (``run_coroutine``). A site's fetching
takes at most two request timeouts in all, or the time the workflow has left.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from ...workflow._sitemap import MAX_BYTES, TIMEOUT_S
from ...workflow._sitemap_fetch import (
    DEFAULT_STORE,
    SiteHints,
    SitemapStore,
    fetch_site_hints,
    origin_of,
)
from .._deadline import DeadlineExceeded, run_coroutine

__all__ = ["AsyncSitemapFetcher", "SiteHints", "SitemapStore"]

# The fetch ends by its own deadline; this is only how long past it we wait for it to unwind.
_UNWIND_S = 0.5


class AsyncSitemapFetcher:
    """Fetches the hints of each site once per workflow (``hints_for``)."""

    def __init__(
        self,
        *,
        timeout_s: float = TIMEOUT_S,
        max_bytes: int = MAX_BYTES,
        store: SitemapStore | None = None,
    ) -> None:
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self.store = store or DEFAULT_STORE
        self.sites: dict[str, SiteHints] = {}

    async def hints_for(self, page_url: str, time_left: float | None = None) -> SiteHints | None:
        """The hints of ``page_url``'s site, fetched on its first visit; None for non-http.

        Fetching stops after two timeouts' worth of time in all, or ``time_left`` seconds
        (the caller's deadline), whichever comes first."""
        origin = origin_of(page_url)
        if not origin:
            return None
        if origin not in self.sites:
            budget = 2 * self.timeout_s if time_left is None else min(2 * self.timeout_s, time_left)
            self.sites[origin] = await self._fetch_site(origin, max(0.0, budget))
        return self.sites[origin]

    async def _fetch_site(self, origin: str, budget_s: float) -> SiteHints:
        def fetch() -> Coroutine[Any, Any, SiteHints]:
            return fetch_site_hints(
                origin,
                budget_s,
                timeout_s=self.timeout_s,
                max_bytes=self.max_bytes,
                store=self.store,
            )

        try:
            return await run_coroutine(fetch, budget_s + _UNWIND_S)
        except DeadlineExceeded:
            return SiteHints(origin, error="the time for sitemap hints ran out")
