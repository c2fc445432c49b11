"""Sitemap hints for a workflow: fetched once per site visited, bounded, never persisted.

robots.txt's ``Sitemap:`` lines are read first, else ``/sitemap.xml``; an index's children are
followed (media sitemaps skipped) until enough page URLs are known. Every request has a
3-second timeout (the first one that times out ends the site's fetching: a host that hangs
is not asked again) and reads at most 2 MB. Results are kept in memory and, with their ETag
and Last-Modified validators, under the temporary directory, so the next fetch of the same
file is a conditional GET (a 304 reuses what was read). Nothing else is stored. Any failure
means no hints, never a failed workflow.
"""

from __future__ import annotations

import hashlib
import json
import logging
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx2

from ...cache._files import write_atomically
from ...workflow._sitemap import (
    DOMAIN_MAX_URLS,
    HINT_MAX_URLS,
    MAX_BYTES,
    MAX_FILES,
    TIMEOUT_S,
    SitemapDocument,
    SitemapKind,
    parse_sitemap,
    sitemaps_in_robots,
)

logger = logging.getLogger("stagehand_py")
_MEMORY_FILES = 64  # sitemap files remembered by this process
_TEMP_DIR_NAME = "stagehand_py-sitemaps"


@dataclass
class _Stored:
    """One sitemap file as read, with the validators of its response."""

    kind: SitemapKind
    locs: list[str]
    etag: str = ""
    last_modified: str = ""


@dataclass
class _Fetched:
    data: bytes
    etag: str
    last_modified: str


@dataclass
class SiteHints:
    """What the sitemaps of one site gave: page URLs in order, and how they were read."""

    origin: str
    urls: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    requests: int = 0
    not_modified: int = 0
    truncated: list[str] = field(default_factory=list)
    error: str = ""


class _Stop(Exception):
    """A request failed in a way that ends the site's fetching (a timeout, no connection)."""


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


class SitemapStore:
    """Sitemap files already read: in memory (the newest ``_MEMORY_FILES``) and as JSON under
    ``directory`` (the temporary directory by default), with their ETag/Last-Modified."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory or Path(tempfile.gettempdir()) / _TEMP_DIR_NAME)
        self._memory: OrderedDict[str, _Stored] = OrderedDict()

    def _path(self, url: str) -> Path:
        return self.directory / (hashlib.sha256(url.encode("utf-8")).hexdigest()[:32] + ".json")

    def recall(self, url: str) -> _Stored | None:
        if url in self._memory:
            self._memory.move_to_end(url)
            return self._memory[url]
        try:
            data = json.loads(self._path(url).read_text("utf-8"))
            kind: SitemapKind = "index" if data["kind"] == "index" else "urlset"
            locs = [str(u) for u in data["locs"]]
            return _Stored(kind, locs, str(data["etag"]), str(data["last_modified"]))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def remember(self, url: str, stored: _Stored) -> None:
        self._memory[url] = stored
        self._memory.move_to_end(url)
        while len(self._memory) > _MEMORY_FILES:
            self._memory.popitem(last=False)
        path = self._path(url)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            payload = {"url": url, **stored.__dict__}
            write_atomically(path, json.dumps(payload).encode("utf-8"))
        except OSError as exc:  # a cache: losing it costs one full GET
            logger.debug("sitemap: not kept under %s: %s", self.directory, exc)


_DEFAULT_STORE = SitemapStore()


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
        self.store = store or _DEFAULT_STORE
        self.sites: dict[str, SiteHints] = {}
        self._ends = 0.0

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
        hints = SiteHints(origin=origin)
        started = time.monotonic()
        self._ends = started + budget_s
        if budget_s <= 0:
            hints.error = "no time left for sitemap hints"
            return hints
        async with httpx2.AsyncClient(
            timeout=httpx2.Timeout(min(self.timeout_s, budget_s)),
            follow_redirects=True,
            headers={"User-Agent": "stagehand_py (sitemap hints)"},
        ) as client:
            try:
                await self._read_site(client, origin, hints)
            except _Stop as stop:
                hints.error = str(stop)
        took = time.monotonic() - started
        logger.info(
            "stagehand_py: sitemap hints for %s: %d URL(s) from %d file(s) in %.1f s%s",
            origin,
            len(hints.urls),
            len(hints.files),
            took,
            f" ({hints.error})" if hints.error else "",
        )
        return hints

    async def _read_site(self, client: httpx2.AsyncClient, origin: str, hints: SiteHints) -> None:
        robots = await self._get(client, origin + "/robots.txt", hints)
        text = robots.data.decode("utf-8", "replace") if isinstance(robots, _Fetched) else ""
        queue = sitemaps_in_robots(text, origin + "/")
        if not queue:
            queue = [origin + "/sitemap.xml"]
        seen: set[str] = set()
        known: set[str] = set()
        while queue and len(seen) < MAX_FILES and len(hints.urls) < HINT_MAX_URLS:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            document = await self._sitemap(client, url, hints)
            if document is None:
                continue
            hints.files.append(url)
            if document.kind == "index":
                queue = [u for u in document.locs if u not in seen] + queue
            elif document.kind == "urlset":
                for page in document.locs:
                    if len(hints.urls) >= DOMAIN_MAX_URLS:
                        break
                    if page not in known:
                        known.add(page)
                        hints.urls.append(page)

    async def _sitemap(
        self, client: httpx2.AsyncClient, url: str, hints: SiteHints
    ) -> SitemapDocument | None:
        stored = self.store.recall(url)
        got = await self._get(client, url, hints, stored=stored)
        if got is None:
            return None
        if isinstance(got, _Stored):  # 304: what was read last time still holds
            hints.not_modified += 1
            return SitemapDocument(got.kind, list(got.locs))
        document = parse_sitemap(got.data, url)
        if got.etag or got.last_modified:
            stored = _Stored(document.kind, document.locs, got.etag, got.last_modified)
            self.store.remember(url, stored)
        return document

    async def _get(
        self,
        client: httpx2.AsyncClient,
        url: str,
        hints: SiteHints,
        *,
        stored: _Stored | None = None,
    ) -> _Fetched | _Stored | None:
        """The body (at most ``max_bytes``), the stored copy on a 304, or None."""
        headers = {}
        if stored is not None:
            if stored.etag:
                headers["If-None-Match"] = stored.etag
            if stored.last_modified:
                headers["If-Modified-Since"] = stored.last_modified
        if time.monotonic() >= self._ends:
            raise _Stop("the time for sitemap hints ran out")
        hints.requests += 1
        deadline = min(time.monotonic() + self.timeout_s, self._ends)
        try:
            async with client.stream("GET", url, headers=headers) as response:
                if response.status_code == 304 and stored is not None:
                    return stored
                if response.status_code != 200:
                    return None
                data = bytearray()
                async for chunk in response.aiter_bytes():
                    data.extend(chunk[: self.max_bytes - len(data)])
                    if len(data) >= self.max_bytes:
                        hints.truncated.append(url)
                        break
                    if time.monotonic() > deadline:
                        raise _Stop(f"{url} took longer than {self.timeout_s:g} s")
                return _Fetched(
                    bytes(data),
                    response.headers.get("ETag", ""),
                    response.headers.get("Last-Modified", ""),
                )
        except httpx2.TimeoutException:
            raise _Stop(f"{url} did not answer within {self.timeout_s:g} s") from None
        except httpx2.TransportError as exc:
            raise _Stop(f"{url} could not be fetched ({type(exc).__name__})") from None
        except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
            logger.debug("sitemap: %s: %s", url, exc)
            return None
