"""A loopback fake of the OpenAI and Anthropic HTTP APIs, for tests of the real clients.

The real ``openai`` and ``anthropic`` SDKs are pointed at this server (``127.0.0.1``, a free
port) and talk to it over HTTP, so the tests exercise the wire format, the SDKs' own retries
and timeouts, and our mapping of both, without monkeypatching anything.

Each test queues the replies it wants (status, JSON body, headers, an optional delay) and
reads back what the clients sent from ``server.requests``. Replies are served in order,
whatever the path; an empty queue answers 599 with a message naming the request, which makes
a missing scripted reply obvious in the failure.

A reply may also be raw bytes (a body that is not JSON, or is cut off), or no reply at all
(the connection closed, as a crashing server does). While a reply is delayed the server
watches the connection: a client that gives up and closes it is recorded in
``server.disconnects``. A *profile* (``server.use_profile(...)``, see
``tests/llm_llamacpp_profile.py``) answers instead of the queue, like a particular server.

Also here: ``block_real_llm_requests``, an autouse session fixture that switches on the
package's guard against real model requests for the whole test suite (loopback stays allowed).
"""

from __future__ import annotations

import http.server
import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import pytest

from stagehand_py.llm import block_real_requests
from tests import secret_values


@dataclass(frozen=True)
class ScriptedReply:
    """One HTTP answer: sent after ``delay`` seconds (a delay longer than the client's timeout
    makes the client give up). ``body`` may be a function of the request, for answers that
    depend on the prompt (an element number the serializer chose, say)."""

    body: Any
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    raw: bytes | None = None  # sent as the body, byte for byte, instead of ``body`` as JSON
    close: bool = False  # no reply: the connection is closed (a server that crashed)


@dataclass(frozen=True)
class ReceivedRequest:
    """What a client sent: method, path, headers (lower-case names) and the JSON body."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass(frozen=True)
class Disconnect:
    """A client closed its connection while its reply was still delayed."""

    path: str
    waited_s: float  # how long after the request arrived


class Profile(Protocol):
    """Answers every request in place of the queue, the way one kind of server does."""

    def answer(self, request: ReceivedRequest) -> ScriptedReply: ...


class LLMWireServer:
    """The server and its per-test state. Use through the ``llm_server`` fixture."""

    def __init__(self) -> None:
        self._lock = threading.Condition()  # notified whenever a request is recorded
        self._replies: deque[ScriptedReply] = deque()
        self._requests: list[ReceivedRequest] = []
        self._disconnects: list[Disconnect] = []
        self.profile: Profile | None = None
        # Set on shutdown so handlers sleeping through a delay return at once.
        self._stopping = threading.Event()
        handler = _make_handler(self)
        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def reset(self) -> None:
        with self._lock:
            self._replies.clear()
            self._requests.clear()
            self._disconnects.clear()
            self.profile = None

    def use_profile(self, profile: Profile) -> None:
        """Answer every request with ``profile`` (until the test ends)."""
        self.profile = profile

    # -- addresses ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` with no trailing slash."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        """What to pass as ``base_url`` to an OpenAI client (it appends ``/chat/completions``)."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """What to pass as ``base_url`` to an Anthropic client (it appends ``/v1/messages``)."""
        return self.url

    # -- scripting ---------------------------------------------------------------------

    def reply(
        self,
        body: Any,
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
        times: int = 1,
        raw: bytes | None = None,
        close: bool = False,
    ) -> None:
        """Queue ``times`` copies of one reply (``raw``: these bytes as the body; ``close``:
        no reply, the connection closed)."""
        reply = ScriptedReply(body, status, dict(headers or {}), delay, raw, close)
        for _ in range(times):
            self._replies.append(reply)

    @property
    def pending(self) -> int:
        """How many queued replies have not been served yet."""
        with self._lock:
            return len(self._replies)

    @property
    def requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return list(self._requests)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> list[ReceivedRequest]:
        """The requests received, once there are at least ``count`` (or ``timeout`` passed).

        A client that gave up (a timeout test) may return before the server thread has even
        read its request off the socket; this waits for the server's side to catch up.
        """
        with self._lock:
            self._lock.wait_for(lambda: len(self._requests) >= count, timeout)
            return list(self._requests)

    @property
    def disconnects(self) -> list[Disconnect]:
        with self._lock:
            return list(self._disconnects)

    def wait_for_disconnects(self, count: int, timeout: float = 5.0) -> list[Disconnect]:
        """The disconnects seen, once there are at least ``count`` (or ``timeout`` passed)."""
        with self._lock:
            self._lock.wait_for(lambda: len(self._disconnects) >= count, timeout)
            return list(self._disconnects)

    def _disconnected(self, request: ReceivedRequest, waited_s: float) -> None:
        with self._lock:
            self._disconnects.append(Disconnect(request.path, waited_s))
            self._lock.notify_all()

    @property
    def bodies(self) -> list[Any]:
        """The JSON bodies received, in order."""
        return [r.body for r in self.requests]

    def _take(self, request: ReceivedRequest) -> ScriptedReply:
        with self._lock:
            self._requests.append(request)
            self._lock.notify_all()
            profile = self.profile
            if profile is None and self._replies:
                return self._replies.popleft()
        if profile is not None:
            return profile.answer(request)
        return ScriptedReply(
            {"error": {"message": f"llm_wire_server: no scripted reply for {request.path}"}},
            status=599,
            headers={"x-should-retry": "false"},
        )


def _make_handler(server: LLMWireServer) -> type[http.server.BaseHTTPRequestHandler]:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the SDKs' connection pools expect

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            received = ReceivedRequest(
                method="POST",
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
            )
            arrived = time.monotonic()
            reply = server._take(received)
            if reply.delay and self._client_left(reply.delay):
                if not server._stopping.is_set():
                    server._disconnected(received, time.monotonic() - arrived)
                return
            if reply.close:
                self.close_connection = True
                return
            if reply.raw is not None:
                payload = reply.raw
            else:
                body = reply.body(received) if callable(reply.body) else reply.body
                payload = json.dumps(body).encode("utf-8")
            try:
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to do

        def _client_left(self, delay: float) -> bool:
            """Wait ``delay`` seconds; True as soon as the client closes the connection (or
            the server stops)."""
            end = time.monotonic() + delay
            while (left := end - time.monotonic()) > 0:
                if server._stopping.is_set():
                    return True
                readable, _, _ = select.select([self.connection], [], [], min(left, 0.05))
                if readable:
                    try:
                        peeked = self.connection.recv(1, socket.MSG_PEEK)
                    except OSError:
                        peeked = b""
                    if not peeked:
                        self.close_connection = True
                        return True
            return False

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


# -- wire-format builders ------------------------------------------------------------------


def openai_tool_call(name: str, arguments: Any, call_id: str = "call_1") -> dict[str, Any]:
    """One entry of ``message.tool_calls``; ``arguments`` is sent as given when it is a str."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def openai_completion(
    *,
    content: str | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
    model: str = "gpt-test",
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    cached_tokens: int | None = None,
) -> dict[str, Any]:
    """A ``chat.completion`` object as the OpenAI API returns it."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens, "audio_tokens": 0}
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if tool_calls else "stop",
            }
        ],
        "usage": usage,
    }


def openai_error(message: str, *, type_: str = "invalid_request_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": None, "code": None}}


def anthropic_tool_use(name: str, input_: Any, block_id: str = "toolu_1") -> dict[str, Any]:
    return {"type": "tool_use", "id": block_id, "name": name, "input": input_}


def anthropic_text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def anthropic_message(
    content: list[dict[str, Any]],
    *,
    model: str = "claude-test",
    input_tokens: int = 10,
    output_tokens: int = 5,
    cache_read_input_tokens: int | None = None,
    cache_creation_input_tokens: int | None = None,
) -> dict[str, Any]:
    """A ``message`` object as the Anthropic Messages API returns it."""
    uses_tool = any(block.get("type") == "tool_use" for block in content)
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if uses_tool else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_read_input_tokens": cache_read_input_tokens,
            "cache_creation_input_tokens": cache_creation_input_tokens,
        },
    }


def prompt_text(body: Any) -> str:
    """All text of the messages (and system prompt) in an OpenAI or Anthropic request body."""
    parts: list[str] = []
    system = body.get("system") if isinstance(body, dict) else None
    if isinstance(system, str):
        parts.append(system)
    for message in body.get("messages", []) if isinstance(body, dict) else []:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(b.get("text") or b.get("content") or "") for b in content]
    return "\n".join(parts)


def anthropic_error(message: str, *, type_: str = "invalid_request_error") -> dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}}


# -- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def _llm_wire_server_session() -> Iterator[LLMWireServer]:
    server = LLMWireServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def llm_server(_llm_wire_server_session: LLMWireServer) -> Iterator[LLMWireServer]:
    """The loopback LLM server with an empty queue and request log for this test."""
    _llm_wire_server_session.reset()
    yield _llm_wire_server_session
    # Whatever a test did, no variable value may have reached a model over the wire.
    sent = json.dumps(_llm_wire_server_session.bodies, ensure_ascii=False)
    leaked = [value for value in secret_values.ALL if value in sent]
    _llm_wire_server_session.reset()
    assert not leaked, f"secret value sent to the model: {leaked}"


@pytest.fixture(scope="session", autouse=True)
def block_real_llm_requests() -> Iterator[None]:
    """The project's own suite never reaches a real model: only loopback endpoints answer."""
    block_real_requests()
    try:
        yield
    finally:
        block_real_requests(None)  # back to the environment's say
