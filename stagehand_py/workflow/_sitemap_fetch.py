"""Sitemap hints, the fetch: one site's robots.txt and sitemaps, read under total deadlines.

Written once, in asyncio, for both APIs: a request is cancelled wherever it waits when its
time is up (a blocking client cannot be interrupted in the middle of a read, and a server that
drips its headers a byte at a time would hold it for as long as it likes). The async workflow
awaits :func:`fetch_site_hints`; the sync one runs it on an event loop of its own
(``run_coroutine`` of the sync ``_deadline`` module).

Every request has a total deadline of ``timeout_s`` (3 s) from its start to its last byte,
headers and body alike; the first that runs out ends the site's fetching (a host that hangs is
not asked again). A body is read up to ``max_bytes`` (2 MB). Only the site's own origin is
asked: a ``Sitemap:`` line, an index's child or a redirect that points elsewhere is skipped,
and so is a listed page of another origin. Results are kept with their ETag and
Last-Modified validators (:class:`SitemapStore`), so the next fetch of the same file is a
conditional GET; nothing else is stored. Any failure means no hints, never a failed workflow.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
import ssl
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import httpx2

from ..cache._files import read_bounded, write_atomically
from ._sitemap import (
    DOMAIN_MAX_URLS,
    HINT_MAX_URLS,
    MAX_FILES,
    SitemapDocument,
    SitemapKind,
    parse_sitemap,
    same_origin,
    sitemaps_in_robots,
)

logger = logging.getLogger("stagehand_py")
_MEMORY_FILES = 64  # sitemap files remembered by this process
_TEMP_DIR_NAME = "stagehand_py-sitemaps"
_STORED_MAX_BYTES = 8 << 20  # a stored sitemap file (50,000 URLs fit in 4 MB)
_MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


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
    elsewhere: int = 0  # sitemaps, redirects and pages of another origin, skipped
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
    ``directory`` (the temporary directory by default), with their ETag/Last-Modified. Files
    are read as the stores read theirs: bounded, regular files only, without blocking."""

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
            data = json.loads(read_bounded(self._path(url), _STORED_MAX_BYTES))
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


DEFAULT_STORE = SitemapStore()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One verifying TLS context per process: loading the CA bundle takes 0.1-0.5 s, which
    a client of its own per site would spend again each time."""
    return httpx2.create_ssl_context()


async def fetch_site_hints(
    origin: str, budget_s: float, *, timeout_s: float, max_bytes: int, store: SitemapStore
) -> SiteHints:
    """The hints of the site at ``origin``, fetched within ``budget_s`` seconds in all."""
    hints = SiteHints(origin=origin)
    started = time.monotonic()
    if budget_s <= 0:
        hints.error = "no time left for sitemap hints"
        return hints
    fetch = _SiteFetch(hints, started + budget_s, timeout_s, max_bytes, store)
    async with httpx2.AsyncClient(
        verify=_tls_context(),
        timeout=httpx2.Timeout(min(timeout_s, budget_s)),
        follow_redirects=False,  # followed here, to the site's own origin only
        headers={"User-Agent": "stagehand_py (sitemap hints)"},
    ) as client:
        try:
            await fetch.read_site(client)
        except _Stop as stop:
            hints.error = str(stop)
    logger.info(
        "stagehand_py: sitemap hints for %s: %d URL(s) from %d file(s) in %.1f s%s",
        origin,
        len(hints.urls),
        len(hints.files),
        time.monotonic() - started,
        f" ({hints.error})" if hints.error else "",
    )
    return hints


@dataclass
class _SiteFetch:
    """One site's fetching: robots.txt, then its sitemaps (an index's children first)."""

    hints: SiteHints
    ends: float  # monotonic time the site's fetching must end by
    timeout_s: float
    max_bytes: int
    store: SitemapStore

    def _ours(self, url: str) -> bool:
        if same_origin(url, self.hints.origin):
            return True
        self.hints.elsewhere += 1
        return False

    async def read_site(self, client: httpx2.AsyncClient) -> None:
        origin, hints = self.hints.origin, self.hints
        robots = await self._get(client, origin + "/robots.txt")
        text = robots.data.decode("utf-8", "replace") if isinstance(robots, _Fetched) else ""
        queue = [u for u in sitemaps_in_robots(text, origin + "/") if self._ours(u)]
        if not queue:
            queue = [origin + "/sitemap.xml"]
        seen: set[str] = set()
        known: set[str] = set()
        while queue and len(seen) < MAX_FILES and len(hints.urls) < HINT_MAX_URLS:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            document = await self._sitemap(client, url)
            if document is None:
                continue
            hints.files.append(url)
            locs = [u for u in document.locs if self._ours(u)]
            if document.kind == "index":
                queue = [u for u in locs if u not in seen] + queue
            elif document.kind == "urlset":
                fresh = [u for u in dict.fromkeys(locs) if u not in known]
                fresh = fresh[: max(0, DOMAIN_MAX_URLS - len(hints.urls))]
                known.update(fresh)
                hints.urls.extend(fresh)

    async def _sitemap(self, client: httpx2.AsyncClient, url: str) -> SitemapDocument | None:
        stored = self.store.recall(url)
        got = await self._get(client, url, stored=stored)
        if got is None:
            return None
        if isinstance(got, _Stored):  # 304: what was read last time still holds
            self.hints.not_modified += 1
            return SitemapDocument(got.kind, list(got.locs))
        document = parse_sitemap(got.data, url)
        if got.etag or got.last_modified:
            stored = _Stored(document.kind, document.locs, got.etag, got.last_modified)
            self.store.remember(url, stored)
        return document

    async def _get(
        self, client: httpx2.AsyncClient, url: str, *, stored: _Stored | None = None
    ) -> _Fetched | _Stored | None:
        """The body (at most ``max_bytes``), the stored copy on a 304, or None; the whole
        request, redirects included, ends at its deadline whatever it waits for."""
        left = self.ends - time.monotonic()
        if left <= 0:
            raise _Stop("the time for sitemap hints ran out")
        self.hints.requests += 1
        try:
            return await asyncio.wait_for(
                self._follow(client, url, stored), min(self.timeout_s, left)
            )
        except (asyncio.TimeoutError, httpx2.TimeoutException):
            if left < self.timeout_s:
                raise _Stop(f"the time for sitemap hints ran out while reading {url}") from None
            raise _Stop(f"{url} did not answer within {self.timeout_s:g} s") from None
        except httpx2.TransportError as exc:
            raise _Stop(f"{url} could not be fetched ({type(exc).__name__})") from None
        except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
            logger.debug("sitemap: %s: %s", url, exc)
            return None

    async def _follow(
        self, client: httpx2.AsyncClient, url: str, stored: _Stored | None
    ) -> _Fetched | _Stored | None:
        """GET ``url``, following redirects that stay on the site's origin."""
        headers = {}
        if stored is not None:
            if stored.etag:
                headers["If-None-Match"] = stored.etag
            if stored.last_modified:
                headers["If-Modified-Since"] = stored.last_modified
        for _ in range(_MAX_REDIRECTS + 1):
            async with client.stream("GET", url, headers=headers) as response:
                if response.status_code in _REDIRECTS and "Location" in response.headers:
                    url = urljoin(url, response.headers["Location"])
                    if not self._ours(url):
                        return None
                    continue
                if response.status_code == 304 and stored is not None:
                    return stored
                if response.status_code != 200:
                    return None
                data = bytearray()
                async for chunk in response.aiter_bytes():
                    data.extend(chunk[: self.max_bytes - len(data)])
                    if len(data) >= self.max_bytes:
                        self.hints.truncated.append(url)
                        break
                etag = response.headers.get("ETag", "")
                return _Fetched(bytes(data), etag, response.headers.get("Last-Modified", ""))
        return None
