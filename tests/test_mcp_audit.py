"""The MCP server against bad input, hostile pages and secrets: every failure an error result
that names the package error and leaks no variable's value, every tool within its timeout_s.

The server runs in-process (the official client connects to the ``MCPServer`` itself) with a
scripted model, on pages written for each test.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from stagehand_py._async.stagehand import AsyncStagehand
from stagehand_py.mcp import McpOptions, build_server
from stagehand_py.testing import (
    AsyncFunctionLLM,
    RequestContext,
    check_answer,
    do_action,
    serve_directory,
    verify_answer,
)
from tests import secret_values

SECRET = secret_values.EMAIL
PAGES = {
    "busy.html": "<title>Busy</title><h1>Report</h1><script>addEventListener('DOMContentLoaded',"
    " () => setTimeout(() => { const end = Date.now() + 8000; while (Date.now() < end); }));"
    "</script>",
    "opener.html": "<title>Shop</title><h1>Shop</h1>"
    "<button onclick=\"window.open('help.html')\">Open help</button>",
    "help.html": "<title>Help</title><h1>Help</h1>"
    "<button onclick=\"window.open('more.html')\">More help</button>"
    '<button onclick="window.close()">Close help</button>',
    "more.html": '<title>More</title><h1>More</h1><button onclick="window.close()">Close more'
    "</button>",
    "terms.html": "<title>Terms</title><h1>Terms</h1><label><input type=checkbox id=agree>"
    "Subscribed</label>",
}
Reply = Callable[[RequestContext], Any]


class _Model:
    """Answers chat (act) and structured (verify, extract, check) requests with the functions
    a test sets, counting the requests."""

    def __init__(self) -> None:
        self.chat: Reply = lambda ctx: verify_answer(True, "done")
        self.structured: Reply = lambda ctx: verify_answer(True, "done")
        self.requests = 0

    def llm(self) -> AsyncFunctionLLM:
        def chat(messages: Any, tools: Any, ctx: RequestContext) -> Any:
            self.requests += 1
            return self.chat(ctx)

        def structured(messages: Any, schema: Any, ctx: RequestContext) -> Any:
            self.requests += 1
            return self.structured(ctx)

        return AsyncFunctionLLM(chat, structured)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("mcp_pages")
    for name, html in PAGES.items():
        (root / name).write_text(f"<!doctype html>{html}", encoding="utf-8")
    with serve_directory(root) as base_url:
        yield base_url


@asynccontextmanager
async def serving(model: _Model, tmp_path: Path) -> AsyncIterator[Client]:
    options = McpOptions(
        view="dom", timeout_s=20, cache_dir=str(tmp_path / "cache"), variables={"EMAIL": SECRET}
    )
    stagehand = AsyncStagehand(llm=model.llm(), snapshot="dom")
    async with Client(build_server(options, stagehand), read_timeout_seconds=60) as client:
        yield client


@contextmanager
def server_log() -> Iterator[list[str]]:
    """Every record the MCP SDK logs meanwhile, formatted with its traceback (its stderr)."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(logging.Formatter().format(record))

    handler, logger = Keep(logging.DEBUG), logging.getLogger("mcp")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _text(result: Any) -> str:
    return json.dumps(result.model_dump(mode="json"))


def _no_secret(*texts: str) -> None:
    for text in texts:
        assert not [form for form in secret_values.FORMS if form in text], text


@pytest.mark.parametrize(
    ("tool", "arguments", "error"),
    [
        ("navigate", {"url": "http://127.0.0.1:1/?who=" + SECRET}, "PageError"),
        ("navigate", {"url": "http://127.0.0.1:{free}/?who=" + SECRET}, "PageError"),
    ],
)
async def test_a_page_failure_is_a_package_error_result_without_the_secret(
    site: str, tmp_path: Path, tool: str, arguments: dict[str, Any], error: str
) -> None:
    if "url" in arguments:  # a port nothing listens on: the connection is refused
        with socket.socket() as unused:
            unused.bind(("127.0.0.1", 0))
            free = unused.getsockname()[1]
        arguments = {"url": arguments["url"].replace("{free}", str(free))}
    async with serving(_Model(), tmp_path) as mcp:
        with server_log() as log:
            failed = await mcp.call_tool(tool, arguments)
        assert failed.is_error and error in _text(failed), _text(failed)
        _no_secret(_text(failed), *log)
        assert not any("Traceback" in line for line in log), log


@pytest.mark.parametrize("timeout_s", [1.0, 1.5])
async def test_navigate_to_a_busy_page_ends_within_its_timeout(
    site: str, tmp_path: Path, timeout_s: float
) -> None:
    async with serving(_Model(), tmp_path) as mcp:
        await mcp.call_tool("navigate", {"url": site + "terms.html"})
        started = time.monotonic()
        late = await mcp.call_tool("navigate", {"url": site + "busy.html", "timeout_s": timeout_s})
        took = time.monotonic() - started
        assert late.is_error and "StagehandTimeoutError" in _text(late), _text(late)
        assert took < timeout_s + 1.0, took
        shown = await mcp.call_tool("snapshot", {"timeout_s": 5})  # the script was stopped
        assert not shown.is_error and "<h1>Report</h1>" in _text(shown), _text(shown)


@pytest.mark.parametrize("tool", ["navigate", "snapshot"])
async def test_a_negative_timeout_is_a_configuration_error(
    site: str, tmp_path: Path, tool: str
) -> None:
    arguments: dict[str, Any] = {"url": site + "terms.html"} if tool == "navigate" else {}
    async with serving(_Model(), tmp_path) as mcp:
        for timeout_s in (-5, -2):  # one session: each refusal leaves it working
            refused = await mcp.call_tool(tool, {**arguments, "timeout_s": timeout_s})
            assert refused.is_error and "ConfigurationError" in _text(refused), _text(refused)
            assert "timeout_s" in _text(refused)
            assert not (await mcp.call_tool(tool, arguments)).is_error


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def _wide(count: int) -> dict[str, Any]:
    field = {"type": "string", "description": "x" * 50}
    return {"type": "object", "properties": {f"p{i}": field for i in range(count)}}


HOSTILE_SCHEMAS = {
    "deep": _nested(60),
    "enormous": _wide(50_000),
    "enum-of-objects": {"type": "object", "properties": {"a": {"enum": [{"x": 1}]}}},
    "empty-anyOf": {"type": "object", "properties": {"a": {"anyOf": []}}},
    "list-properties": {"type": "object", "properties": ["a", "b"]},
    "number-required": {"type": "object", "properties": {"a": {"type": "string"}}, "required": 5},
    "object-const": {"type": "object", "properties": {"a": {"const": {"x": 1}}}},
}


async def test_a_hostile_extract_schema_is_a_configuration_error_in_time(
    site: str, tmp_path: Path
) -> None:
    model = _Model()
    async with serving(model, tmp_path) as mcp:  # one session for all: each refusal is clean
        await mcp.call_tool("navigate", {"url": site + "terms.html"})
        for name, schema in HOSTILE_SCHEMAS.items():
            started = time.monotonic()
            with server_log() as log:
                refused = await mcp.call_tool(
                    "extract", {"instruction": "the terms", "schema": schema, "timeout_s": 2}
                )
            took = time.monotonic() - started
            shown = _text(refused)[:500]
            assert refused.is_error and "ConfigurationError" in _text(refused), (name, shown)
            assert "schema" in _text(refused) and model.requests == 0, name
            assert not any("Traceback" in line for line in log), name
            assert took < 3.0, (name, took)


@pytest.mark.parametrize(
    ("schema", "data"),
    [
        ({"type": "object", "properties": {"a": {"type": "object"}}}, {"a": {SECRET: "x"}}),
        ({"type": "array", "items": {"type": "object"}}, {"items": [{SECRET: 1}]}),
    ],
)
async def test_an_extracted_key_that_shows_a_secret_is_redacted(
    site: str, tmp_path: Path, schema: dict[str, Any], data: dict[str, Any]
) -> None:
    model = _Model()
    model.structured = lambda ctx: {"data": data, "complete": True}
    async with serving(model, tmp_path) as mcp:
        await mcp.call_tool("navigate", {"url": site + "terms.html"})
        read = await mcp.call_tool("extract", {"instruction": "the names", "schema": schema})
    assert not read.is_error, _text(read)
    assert "<|EMAIL|>" in _text(read)
    _no_secret(_text(read))


@pytest.mark.parametrize("statement", ["Subscribed", "#agree"])
async def test_check_judges_a_statement_written_like_a_selector(
    site: str, tmp_path: Path, statement: str
) -> None:
    model = _Model()
    model.structured = lambda ctx: check_answer(False, reason="the box is not ticked")
    async with serving(model, tmp_path) as mcp:
        await mcp.call_tool("navigate", {"url": site + "terms.html"})
        checked = await mcp.call_tool("check", {"statement": statement, "timeout_s": 5})
        shown = await mcp.call_tool("snapshot", {})
    assert not checked.is_error, _text(checked)
    assert checked.structured_content["holds"] is False and model.requests >= 1
    assert "checked" not in shown.structured_content["text"]  # the box was not ticked


@pytest.mark.parametrize(
    ("opened", "closer", "back_to"),
    [(["Open help"], "Close help", "Shop"), (["Open help", "More help"], "Close more", "Help")],
)
async def test_when_the_tab_closes_itself_the_session_returns_to_the_newest_open_one(
    site: str, tmp_path: Path, opened: list[str], closer: str, back_to: str
) -> None:
    model = _Model()
    target = {"text": opened[0]}
    model.chat = lambda ctx: do_action("click", ctx.find(target["text"]), completed=True)
    async with serving(model, tmp_path) as mcp:
        await mcp.call_tool("navigate", {"url": site + "opener.html"})
        for button in [*opened, closer]:
            target["text"] = button
            await mcp.call_tool("act", {"instruction": f"click {button}"})
        shown = await mcp.call_tool("snapshot", {})
    assert not shown.is_error, _text(shown)
    assert f"<h1>{back_to}</h1>" in shown.structured_content["text"], shown.structured_content
