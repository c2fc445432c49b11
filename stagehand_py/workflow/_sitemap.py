"""Sitemap hints (the ADR's 5.1), pure parts: reading robots.txt and sitemaps, and the limits.

A site's sitemap lists its pages; a checklist item that must find a page is shown the list,
in the sitemap's own order, unsummarised and unfiltered, cut at ``HINT_MAX_URLS`` URLs or
``HINT_MAX_CHARS`` characters, whichever comes first. Sitemaps of images, news and videos
are skipped (their entries are not pages to visit). A sitemap cut at ``MAX_BYTES`` (the fetch
stops there) is read up to its last complete ``<loc>``.

A sitemap is the site's own text, so it is held to the page's origin (:func:`same_origin`)
and shown as data: each URL on one line, every character outside printable ASCII (line
breaks and Unicode line separators included) percent-encoded, at most ``HINT_URL_MAX_CHARS``
characters (a longer one is left out, never cut into a URL the site does not have).
"""

from __future__ import annotations

import html
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import quote, urljoin, urlsplit

from .._secret_scope import origin_of

TIMEOUT_S = 3.0
MAX_BYTES = 2 * 1024 * 1024
HINT_MAX_URLS = 300
HINT_MAX_CHARS = 10_000
DOMAIN_MAX_URLS = 50_000  # kept in memory per site, at most
MAX_FILES = 10  # sitemap files read per site (robots.txt's list, then an index's children)
HINT_URL_MAX_CHARS = 500  # one URL as shown, escaped

_SITEMAP_LINE = re.compile(r"^\s*sitemap\s*:\s*(\S+)", re.IGNORECASE | re.MULTILINE)
_ROOT = re.compile(r"<(?:[\w.-]+:)?(urlset|sitemapindex)\b", re.IGNORECASE)
# A location holds no "<" (XML escapes it), so a match never runs past the next tag.
_LOC = re.compile(r"<(?:([\w.-]+):)?loc>([^<]*)</(?:[\w.-]+:)?loc>", re.IGNORECASE)
_MEDIA_PREFIXES = frozenset({"image", "news", "video", "xhtml"})
_MEDIA_NAME = re.compile(r"(^|[^a-z])(image|images|img|news|video|videos)([^a-z]|$)")

SitemapKind = Literal["urlset", "index", "unknown"]


def sitemaps_in_robots(text: str, base_url: str) -> list[str]:
    """The ``Sitemap:`` URLs of a robots.txt, in order, without duplicates or media sitemaps."""
    found: list[str] = []
    for match in _SITEMAP_LINE.finditer(text):
        url = urljoin(base_url, match.group(1).split("#", 1)[0])
        if _is_http(url) and url not in found and not is_media_sitemap(url):
            found.append(url)
    return found


def is_media_sitemap(url: str) -> bool:
    """A sitemap of images, news or videos, by its file name (``sitemap-images.xml``...)."""
    name = urlsplit(url).path.rsplit("/", 1)[-1].lower()
    return bool(_MEDIA_NAME.search(name))


def _is_http(url: str) -> bool:
    return url[:8].lower().startswith(("http://", "https://"))


def same_origin(url: str, origin: str) -> bool:
    """Whether ``url`` is an http(s) URL on ``origin`` (scheme, host and port, as the secret
    scope compares them), refusing what a browser could read differently: credentials, or a
    backslash (which browsers take for a slash)."""
    if "\\" in url or not _is_http(url):
        return False
    try:
        if "@" in urlsplit(url).netloc:
            return False
    except ValueError:
        return False
    here = origin_of(url)
    return here is not None and here == origin_of(origin)


def prompt_url(url: str) -> str | None:
    """``url`` as one line of a prompt: every character outside printable ASCII (a space,
    a line break, U+2028...) percent-encoded; None when it is longer than
    ``HINT_URL_MAX_CHARS`` even so."""
    shown = "".join(
        c if "!" <= c <= "~" else quote(c, safe="", errors="replace") for c in url.strip()
    )
    return shown if len(shown) <= HINT_URL_MAX_CHARS else None


def ungzip(data: bytes, limit: int = MAX_BYTES) -> bytes:
    """``data`` decompressed when it is gzip (``sitemap.xml.gz``), at most ``limit`` bytes."""
    if not data.startswith(b"\x1f\x8b"):
        return data
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        return inflater.decompress(data, limit)
    except zlib.error:
        return b""


@dataclass
class SitemapDocument:
    """What one sitemap file says: pages (``urlset``) or more sitemaps (``index``)."""

    kind: SitemapKind
    locs: list[str] = field(default_factory=list)


def parse_sitemap(data: bytes, base_url: str = "") -> SitemapDocument:
    """Read a sitemap (possibly cut short): its kind and its ``<loc>`` URLs, in order.

    Only page locations count: ``<image:loc>`` and the like inside a ``<url>`` are skipped,
    and so are the children of an index that are media sitemaps.
    """
    text = ungzip(data).decode("utf-8", errors="replace")
    root = _ROOT.search(text)
    if root is None:
        return SitemapDocument("unknown")
    kind: SitemapKind = "index" if root.group(1).lower() == "sitemapindex" else "urlset"
    locs: list[str] = []
    for match in _LOC.finditer(text, root.end()):
        prefix, raw = match.group(1), match.group(2)
        if prefix and prefix.lower() in _MEDIA_PREFIXES:
            continue
        url = html.unescape(raw.strip()) if "&" in raw else raw.strip()
        if not _is_http(url):  # sitemaps list absolute URLs; a relative one is joined
            url = urljoin(base_url, url)
        if not _is_http(url) or (kind == "index" and is_media_sitemap(url)):
            continue
        locs.append(url)
        if len(locs) >= DOMAIN_MAX_URLS:
            break
    return SitemapDocument(kind, locs)


def hint_urls(
    urls: Iterable[str], *, max_urls: int = HINT_MAX_URLS, max_chars: int = HINT_MAX_CHARS
) -> list[str]:
    """The first URLs, in order, as shown (:func:`prompt_url`), up to ``max_urls`` or
    ``max_chars`` (one per line)."""
    picked: list[str] = []
    used = 0
    for raw in urls:
        url = prompt_url(raw)
        if url is None:
            continue
        cost = len(url) + 1
        if len(picked) >= max_urls or used + cost > max_chars:
            break
        picked.append(url)
        used += cost
    return picked


def hints_text(urls: list[str], total: int) -> str:
    """The block an item's request shows."""
    more = f" (the first {len(urls)} of {total})" if total > len(urls) else ""
    return (
        f"Pages of this site, from its sitemap, in its order{more}. Open one with navigate "
        "when it is where the item leads:\n" + "\n".join(urls)
    )
