"""A loopback server that answers a byte at a time, as slowly as a hostile site can.

``drip_server("headers")``: the status line at once, then a header that never ends, one byte
every ``every_s``; ``drip_server("body")``: whole headers (a large Content-Length), then the
body one byte at a time. Each connection drips for at most ``for_s`` seconds, or until the
client goes away (a write to a closed connection fails) or the ``with`` block ends: the server
always stops by itself. Bound to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

Part = Literal["headers", "body"]
_BODY = b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'


def _drip(connection: socket.socket, data: bytes, every_s: float, stop: threading.Event) -> None:
    for byte in data:
        if stop.wait(every_s):
            return
        connection.sendall(bytes([byte]))


def _answer(
    connection: socket.socket, part: Part, every_s: float, for_s: float, stop: threading.Event
) -> None:
    endless = int(for_s / every_s) + 1  # more bytes than the drip has time to send
    with connection, contextlib.suppress(OSError):  # the client hung up: done
        connection.settimeout(5)
        connection.recv(65536)  # the request (one read is enough for a GET)
        if part == "headers":
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n")
            _drip(connection, b"X-Slow: " + b"a" * endless, every_s, stop)
        else:
            body = (_BODY * (endless // len(_BODY) + 1))[:endless]
            head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n"
            connection.sendall(head.encode() + b"Content-Type: application/xml\r\n\r\n")
            _drip(connection, body, every_s, stop)


@contextmanager
def drip_server(part: Part, *, every_s: float = 2.5, for_s: float = 40.0) -> Iterator[str]:
    """The server's base URL (``http://127.0.0.1:PORT``) while the block runs."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    stop = threading.Event()
    answering: list[threading.Thread] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            worker = threading.Thread(
                target=_answer, args=(connection, part, every_s, for_s, stop), daemon=True
            )
            worker.start()
            answering.append(worker)

    acceptor = threading.Thread(target=serve, daemon=True)
    acceptor.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        acceptor.join(timeout=5)
        listener.close()
        for worker in answering:
            worker.join(timeout=5)
