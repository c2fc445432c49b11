"""Sitemap parsing and limits without a network: robots.txt lines, media sitemaps skipped,
gzip, relative and escaped locations, documents cut short, and the 300 URL / 10,000 character
cap in the sitemap's order."""

from __future__ import annotations

import gzip

from stagehand_py.workflow._sitemap import (
    HINT_MAX_CHARS,
    HINT_MAX_URLS,
    hint_urls,
    is_media_sitemap,
    parse_sitemap,
    sitemaps_in_robots,
)
from tests.site_server import sitemap_index, urlset

BASE = "https://shop.example"


def test_robots_lines_in_order_without_duplicates_or_media() -> None:
    robots = (
        "User-agent: *\nDisallow: /cart\n"
        "Sitemap: https://shop.example/sitemap.xml\n"
        "sitemap:/relative-map.xml # comment\n"
        "SITEMAP: https://shop.example/sitemap.xml\n"
        "Sitemap: https://shop.example/sitemap-images.xml\n"
        "Sitemap: https://shop.example/news_sitemap.xml\n"
        "Sitemap: ftp://shop.example/other.xml\n"
    )
    assert sitemaps_in_robots(robots, BASE + "/") == [
        "https://shop.example/sitemap.xml",
        "https://shop.example/relative-map.xml",
    ]
    assert not is_media_sitemap(BASE + "/newsletter-pages.xml")  # "news" must be a word


def test_a_urlset_skips_image_locations_and_an_index_skips_media_sitemaps() -> None:
    pages = [f"{BASE}/p/{n}?a=1&b=2" for n in range(3)]
    document = parse_sitemap(urlset(pages, images=True).replace(b"&", b"&amp;"), BASE)
    assert (document.kind, document.locs) == ("urlset", pages)
    index = parse_sitemap(
        sitemap_index([f"{BASE}/s-books.xml", f"{BASE}/s-images.xml", f"{BASE}/video.xml"])
    )
    assert (index.kind, index.locs) == ("index", [f"{BASE}/s-books.xml"])


def test_gzip_relative_locations_and_a_document_cut_mid_entry() -> None:
    body = urlset(["/a", f"{BASE}/b", "javascript:alert(1)"])
    assert parse_sitemap(gzip.compress(body), BASE + "/map.xml").locs == [
        f"{BASE}/a",
        f"{BASE}/b",
    ]
    whole = urlset([f"{BASE}/x", f"{BASE}/y"])
    cut = whole[: whole.rindex(b"</loc>")]  # ends inside the second <loc>
    assert parse_sitemap(cut).locs == [f"{BASE}/x"]
    assert parse_sitemap(b"<html><body>Not found</body></html>").kind == "unknown"


def test_hints_keep_the_order_and_stop_at_the_smaller_limit() -> None:
    short = [f"{BASE}/{n}" for n in range(1000)]  # 22-23 characters each: 300 URLs bind
    assert hint_urls(short) == short[:HINT_MAX_URLS]
    long = [f"{BASE}/{'x' * 80}/{n}" for n in range(1000)]  # ~105 characters: chars bind
    picked = hint_urls(long)
    assert picked == long[: len(picked)] and len(picked) < HINT_MAX_URLS
    assert sum(len(u) + 1 for u in picked) <= HINT_MAX_CHARS
    assert sum(len(u) + 1 for u in long[: len(picked) + 1]) > HINT_MAX_CHARS
