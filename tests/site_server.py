"""A loopback web site whose answers a test sets path by path, recording every request.

``Route(body, etag=..., hang=True)``: a hanging route holds the connection open until the test
ends (``SiteServer.close`` releases it), so a client's timeout is what ends the request.
"""

from __future__ import annotations

import contextlib
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

_HANG_LIMIT_S = 30.0  # a hanging handler gives up by itself even if the test never releases


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    content_type: str = "application/xml"
    etag: str = ""
    last_modified: str = ""
    hang: bool = False
    delay_s: float = 0.0  # the server answers this late (a slow download)
    location: str = ""  # sent as Location (with a 3xx status)
    body_after_s: float = 0.0  # the headers at once, the body this late (a download under way)
    allow_origin: str = ""  # sent as Access-Control-Allow-Origin (a page's cross-origin fetch)


@dataclass
class SiteServer:
    url: str
    routes: dict[str, Route] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]


def _handler(site: SiteServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            site.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
            route = site.routes.get(self.path)
            if route is None:
                self.send_error(404)
                return
            if route.hang:
                site.release.wait(_HANG_LIMIT_S)
                return
            if route.delay_s:
                site.release.wait(route.delay_s)
            fresh = (route.etag and self.headers.get("If-None-Match") == route.etag) or (
                route.last_modified and self.headers.get("If-Modified-Since") == route.last_modified
            )
            if fresh:
                self.send_response(304)
                self.end_headers()
                return
            self.send_response(route.status)
            self.send_header("Content-Type", route.content_type)
            self.send_header("Content-Length", str(len(route.body)))
            if route.etag:
                self.send_header("ETag", route.etag)
            if route.last_modified:
                self.send_header("Last-Modified", route.last_modified)
            if route.location:
                self.send_header("Location", route.location)
            if route.allow_origin:
                self.send_header("Access-Control-Allow-Origin", route.allow_origin)
            self.end_headers()
            if route.body_after_s:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.flush()
                site.release.wait(route.body_after_s)
            # The client may stop reading (the 2 MB cap): expected.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(route.body)

    return Handler


@contextmanager
def site_server() -> Iterator[SiteServer]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(SiteServer("")))
    site = SiteServer(f"http://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(site)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        site.release.set()
        server.shutdown()
        server.server_close()


def urlset(urls: list[str], *, images: bool = False) -> bytes:
    rows = []
    for url in urls:
        extra = f"<image:image><image:loc>{url}.jpg</image:loc></image:image>" if images else ""
        rows.append(f"<url><loc>{url}</loc><lastmod>2026-01-01</lastmod>{extra}</url>")
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset '
        'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
    )
    return (head + "\n".join(rows) + "</urlset>").encode("utf-8")


def sitemap_index(urls: list[str]) -> bytes:
    rows = "".join(f"<sitemap><loc>{url}</loc></sitemap>" for url in urls)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex '
        f'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{rows}</sitemapindex>'
    ).encode()
