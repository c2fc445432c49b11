"""Serve a directory over HTTP on 127.0.0.1 for as long as a ``with`` block lasts.

Used by the demo, the examples and the benchmarks, and offered to users' tests through
:mod:`stagehand_py.testing`: fixture pages served from loopback behave like a real site.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # request lines would interleave with the command's own output


@contextmanager
def serve_directory(directory: str | Path) -> Iterator[str]:
    """Yield the base URL (trailing slash) of ``directory`` served on a free loopback port."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
