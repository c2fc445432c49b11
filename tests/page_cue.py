"""A cue for a page that changes itself while the model thinks.

A page under test waits for the cue (it fetches ``<cue.url>/wait``, which answers only once
the cue is given), makes its change, then fetches ``<cue.url>/done`` (or the page it moved to
does). A fake model calls :meth:`PageCue.give` inside its answer: the call returns once the
page has changed, so the change lands between the look the model answers and the action that
follows, every time, without any timing in the test. Any other path a page fetches is only
recorded (``cue.paths``: what the pages reported). Used by tests/pages/swap/.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlencode

_WAIT_LIMIT_S = 30.0  # a page left waiting gives up by itself when the test never cues


class PageCue:
    def __init__(self, url: str) -> None:
        self.url = url
        self.given = threading.Event()
        self.done = threading.Event()
        self.paths: list[str] = []  # every request the pages made, in order

    def page_url(self, base: str, **params: str) -> str:
        """``base`` (a page of tests/pages/swap/) with ``params`` and this cue in its query."""
        return f"{base}?{urlencode({**params, 'cue': self.url})}"

    def give(self, timeout: float = 10.0) -> None:
        """Let the page change, and wait until it has (once; later calls return at once)."""
        self.given.set()
        if not self.done.wait(timeout):
            raise AssertionError(f"the page did not report its change within {timeout} s")


def _handler(cue: PageCue) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            cue.paths.append(self.path)
            if self.path == "/wait":
                cue.given.wait(_WAIT_LIMIT_S)
            elif self.path == "/done":
                cue.done.set()
            self.send_response(204)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()

    return Handler


@contextmanager
def page_cue() -> Iterator[PageCue]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    cue = PageCue(f"http://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(cue)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield cue
    finally:
        cue.given.set()
        server.shutdown()
        server.server_close()
