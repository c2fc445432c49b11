"""Sitemap hints from a loopback site: robots.txt and a sitemap index (media sitemaps
skipped), /sitemap.xml when robots.txt names none, conditional GETs on the next workflow, a
3 MB sitemap cut at 2 MB, a server that hangs past 3 s, and the hints in an item's request."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.async_api import Page as AsyncPage

from stagehand_py import AsyncStagehand
from stagehand_py._async.workflow.sitemap import AsyncSitemapFetcher, SitemapStore
from stagehand_py.testing import AsyncFunctionLLM
from stagehand_py.workflow._sitemap import hint_urls
from tests.agent_plan import Do
from tests.site_server import Route, site_server, sitemap_index, urlset
from tests.workflow_plan import WorkflowPlan

MODIFIED = "Wed, 07 Jan 2026 10:00:00 GMT"


async def test_robots_sitemaps_and_an_index_in_order_then_conditional_gets(tmp_path: Path) -> None:
    with site_server() as site:
        base = site.url
        books = [f"{base}/books/{n}" for n in range(1, 6)]
        blog = [f"{base}/blog/{n}" for n in range(1, 3)]
        site.routes["/robots.txt"] = Route(
            f"User-agent: *\nDisallow: /cart\nSitemap: {base}/sitemap_index.xml\n"
            f"sitemap: /sitemap-blog.xml  # relative\n"
            f"Sitemap: {base}/sitemap-images.xml\n".encode(),
            content_type="text/plain",
        )
        site.routes["/sitemap_index.xml"] = Route(
            sitemap_index([f"{base}/sitemap-books.xml", f"{base}/sitemap-news.xml"])
        )
        site.routes["/sitemap-books.xml"] = Route(urlset(books, images=True), etag='"books-7"')
        site.routes["/sitemap-blog.xml"] = Route(urlset(blog), last_modified=MODIFIED)

        fetcher = AsyncSitemapFetcher(store=SitemapStore(tmp_path))
        hints = await fetcher.hints_for(base + "/index.html")
        assert hints is not None and hints.urls == books + blog  # sitemap order, no images
        assert site.paths() == [
            "/robots.txt",
            "/sitemap_index.xml",
            "/sitemap-books.xml",
            "/sitemap-blog.xml",
        ]  # the news and image sitemaps are never fetched
        await fetcher.hints_for(base + "/books/2")  # same site, same workflow: no request
        assert len(site.requests) == 4

        # The next workflow (fresh memory, same temp store) asks only whether they changed.
        later = AsyncSitemapFetcher(store=SitemapStore(tmp_path))
        again = await later.hints_for(base + "/")
        assert again is not None and again.urls == books + blog and again.not_modified == 2
        sent = dict(site.requests[4:])
        assert sent["/sitemap-books.xml"]["if-none-match"] == '"books-7"'
        assert sent["/sitemap-blog.xml"]["if-modified-since"] == MODIFIED


@pytest.mark.no_sync_twin
async def test_sitemap_xml_when_robots_names_none_and_a_3_mb_sitemap_cut_at_2_mb(
    tmp_path: Path,
) -> None:
    with site_server() as site:
        base = site.url
        urls = [f"{base}/catalogue/item-{n:06d}-a-long-descriptive-slug" for n in range(27_000)]
        body = urlset(urls)
        assert len(body) > 3 * 1024 * 1024
        site.routes["/robots.txt"] = Route(b"User-agent: *\nDisallow:\n", content_type="text/plain")
        site.routes["/sitemap.xml"] = Route(body)

        hints = await AsyncSitemapFetcher(store=SitemapStore(tmp_path)).hints_for(base + "/")
        assert hints is not None and site.paths() == ["/robots.txt", "/sitemap.xml"]
        assert hints.truncated == [base + "/sitemap.xml"]
        complete = re.findall(r"<loc>(.*?)</loc>", body[: 2 * 1024 * 1024].decode())
        assert hints.urls == complete == urls[: len(complete)]  # every URL whole, in order
        shown = hint_urls(hints.urls)
        assert sum(len(u) + 1 for u in shown) <= 10_000 and len(shown) < 300  # chars bind first
        assert shown == urls[: len(shown)]


async def test_a_server_that_hangs_gives_no_hints_within_the_timeout(tmp_path: Path) -> None:
    with site_server() as site:
        site.routes["/robots.txt"] = Route(hang=True)
        started = time.monotonic()
        hints = await AsyncSitemapFetcher(store=SitemapStore(tmp_path)).hints_for(site.url + "/")
        took = time.monotonic() - started
        assert hints is not None and hints.urls == []
        assert "did not answer within 3 s" in hints.error
        assert took < 3 + 1.5
        assert site.paths() == ["/robots.txt"]  # a host that hangs is not asked again


@pytest.mark.no_sync_twin
async def test_an_item_that_finds_a_page_sees_the_sitemap_and_sitemap_false_turns_it_off(
    async_page: AsyncPage,
) -> None:
    with site_server() as site:
        base = site.url
        pages = [f"{base}/guides/{name}" for name in ("returns", "shipping", "gift-cards")]
        site.routes["/robots.txt"] = Route(f"Sitemap: {base}/map.xml\n".encode())
        site.routes["/map.xml"] = Route(urlset(pages))
        for path in ("/", "/guides/shipping"):
            title = "Shipping" if path.endswith("shipping") else "Home"
            html = f"<html><head><title>{title}</title></head><body><h1>{title}</h1></body></html>"
            site.routes[path] = Route(html.encode(), content_type="text/html")

        def plan() -> WorkflowPlan:
            return WorkflowPlan(
                ["[] Open the shipping guide"],
                {1: [[Do("navigate", url=pages[1])]]},
                {1: r"Shipping"},
                find_page=[1],
            )

        with_hints = plan()
        page = AsyncStagehand(llm=AsyncFunctionLLM(structured=with_hints)).wrap(async_page)
        await page.goto(base + "/")
        result = await page.workflow("Open the shipping guide")
        assert result.success and result.items[0].hints == 3, result.summary()
        assert "from its sitemap, in its order" in with_hints.tasks[0]
        assert with_hints.tasks[0].endswith("\n".join(pages))
        assert result.sitemaps == {base: 3}

        without = plan()
        before = len(site.requests)
        page = AsyncStagehand(llm=AsyncFunctionLLM(structured=without)).wrap(async_page)
        await page.goto(base + "/")
        result = await page.workflow("Open the shipping guide", sitemap=False)
        assert result.success and result.items[0].hints == 0
        assert "sitemap" not in without.tasks[0]
        assert [p for p in site.paths()[before:] if "map" in p or "robots" in p] == []
